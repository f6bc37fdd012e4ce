package fast

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The hot paths one by one: kin-openapi's request and response validation against the
// precomputed checks that replace them where that is sound (plan.go), and the store.
// BenchmarkServe and BenchmarkList (reference's server_test.go) measure whole requests.

// benchRoute routes a request as the api does and returns what validation needs.
type benchRoute struct {
	route  *routers.Route
	params map[string]string
	opts   *openapi3filter.Options
	keys   *core.KeySet
	plans  map[string]*Plan
}

func newBenchRoute(b *testing.B, r *http.Request) benchRoute {
	b.Helper()
	doc := spec.MustLoad()
	rdoc := *doc
	rdoc.Servers = openapi3.Servers{{URL: "/v1/"}}
	router, err := gorillamux.NewRouter(&rdoc)
	if err != nil {
		b.Fatal(err)
	}
	route, params, err := router.FindRoute(r)
	if err != nil {
		b.Fatal(err)
	}
	keys, err := core.NewKeySet([]string{"test-key"})
	if err != nil {
		b.Fatal(err)
	}
	plans, err := NewPlans(factsOf(b, doc), true)
	if err != nil {
		b.Fatal(err)
	}
	return benchRoute{route: route, params: params, keys: keys, plans: plans,
		opts: &openapi3filter.Options{AuthenticationFunc: keys.Authenticate, IncludeResponseStatus: true, SkipSettingDefaults: true}}
}

// BenchmarkValidateRequest: kin-openapi's ValidateRequest against the precomputed check.
func BenchmarkValidateRequest(b *testing.B) {
	for _, tc := range []struct{ name, method, path, body string }{
		{"listPets", "GET", "/v1/pets?limit=20&status=sold", ""},
		{"getPet", "GET", "/v1/pets/7", ""},
		{"createPet", "POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"sold"}`},
	} {
		r := benchRequest(tc.method, tc.path, nil)
		br := newBenchRoute(b, r)
		b.Run(tc.name+"/kin-openapi", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Body = io.NopCloser(strings.NewReader(tc.body))
				in := &openapi3filter.RequestValidationInput{Request: r, PathParams: br.params, Route: br.route, Options: br.opts}
				if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
		if p := br.plans[br.route.Operation.OperationID]; p.simpleRequest {
			b.Run(tc.name+"/precomputed", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if !p.RequestValid(r, br.params, br.keys.Check(r)) {
						b.Fatal("shortcut not taken")
					}
				}
			})
		} else if p.body != nil {
			body := []byte(tc.body)
			b.Run(tc.name+"/compiled", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if !p.BodyValid(r, br.params, br.keys.Check(r), body) {
						b.Fatal("shortcut not taken")
					}
				}
			})
		}
	}
}

// BenchmarkValidateResponse: kin-openapi's ValidateResponse of a list of 20 animals,
// against the check made once per animal when it is stored, and the test made per response
// instead.
func BenchmarkValidateResponse(b *testing.B) {
	r := benchRequest("GET", "/v1/pets", nil)
	br := newBenchRoute(b, r)
	s := core.NewStore([]string{"available", "pending", "sold"}, 100)
	if err := s.Reset(benchSeed(20)); err != nil {
		b.Fatal(err)
	}
	rec := &core.Recorder{Headers: http.Header{"Content-Type": {"application/json"}}, Status: 200, Kind: core.BodyPets}
	rec.Body.Write(append(s.AppendList(nil, 20, ""), '\n'))
	b.Run("listPets-20/kin-openapi", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, Route: br.route, Options: br.opts},
				Status:                 rec.Status, Header: rec.Headers, Options: br.opts,
				Body: io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("listPets-20/precomputed", func(b *testing.B) {
		p := br.plans["listPets"]
		b.ReportAllocs()
		for b.Loop() {
			if !p.ResponseValid(rec) {
				b.Fatal("shortcut not taken")
			}
		}
	})
	for _, c := range []struct {
		name  string
		check func([]byte) error
	}{
		{"pet-once-when-stored", PetCheck(spec.MustLoad(), PetSchemas(factsOf(b, spec.MustLoad())))},
		{"pet-once-when-stored/kin-openapi", kinPetCheck(spec.MustLoad(), PetSchemas(factsOf(b, spec.MustLoad())))},
	} {
		check := c.check
		b.Run(c.name, func(b *testing.B) {
			pet, _ := s.AppendPet(nil, 3)
			b.ReportAllocs()
			for b.Loop() {
				if err := check(pet); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchStores caches stores by size: 1,000,000 animals are built once per run, outside the
// timed part, and only when benchmarks run.
var benchStores = struct {
	sync.Mutex
	m map[int]*core.Store
}{m: map[int]*core.Store{}}

func benchStore(b *testing.B, n int) *core.Store {
	benchStores.Lock()
	defer benchStores.Unlock()
	if s, ok := benchStores.m[n]; ok {
		return s
	}
	s := core.NewStore([]string{"available", "pending", "sold"}, n)
	if err := s.Reset(benchSeed(n)); err != nil {
		b.Fatal(err)
	}
	benchStores.m[n] = s
	return s
}

// BenchmarkStoreList: encoding a page costs O(limit), whatever the store size and filter.
func BenchmarkStoreList(b *testing.B) {
	for _, status := range []string{"", "sold"} {
		for _, n := range []int{100, 1_000_000} {
			b.Run(fmt.Sprintf("limit=20/status=%s/animals=%d", status, n), func(b *testing.B) {
				s := benchStore(b, n)
				buf := make([]byte, 0, 4096)
				b.ReportAllocs()
				for b.Loop() {
					buf = s.AppendList(buf[:0], 20, status)
				}
			})
		}
	}
}

// BenchmarkStoreAdd adds animals with the check of a validated server, and reports the
// live heap each one takes (B/animal, after a GC).
func BenchmarkStoreAdd(b *testing.B) {
	s := core.NewStore([]string{"available", "pending", "sold"}, 1<<30)
	s.Check = PetCheck(spec.MustLoad(), PetSchemas(factsOf(b, spec.MustLoad())))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	buf := make([]byte, 0, 256)
	p := core.NewPet{Name: "pet1000000", CategoryID: 3, Status: "sold"}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, _, err = s.Add(buf[:0], p); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "B/animal")
	runtime.KeepAlive(s)
}

// BenchmarkDecodeNewPet: the handler's decoding of a createPet body, in one pass and in full.
func BenchmarkDecodeNewPet(b *testing.B) {
	body := []byte(`{"name":"Rex","categoryId":1,"status":"sold"}`)
	for _, d := range []struct {
		name   string
		decode func([]byte) (core.NewPet, error)
	}{{"one-pass", DecodeNewPetQuick}, {"full", core.DecodeNewPet}} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchRequest is an authenticated JSON request.
func benchRequest(method, path string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, path, body)
	r.Header.Set("Authorization", "Bearer test-key")
	r.Header.Set("Content-Type", "application/json")
	return r
}

// benchSeed returns n animals of each status in turn.
func benchSeed(n int) []core.NewPet {
	out := make([]core.NewPet, n)
	for i := range out {
		out[i] = core.NewPet{Name: "pet" + strconv.Itoa(i+1), CategoryID: int64(i % 7), Status: shipped.Statuses[i%len(shipped.Statuses)]}
	}
	return out
}

package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

const jsonCT = "application/json"

// withoutStatus is the answer to a createPet body without a status: 201, or 400 when the
// spec requires one.
var withoutStatus = func() (w struct {
	status int
	code   string
}) {
	w.status = http.StatusCreated
	if core.StatusRequired(shipped) {
		w.status, w.code = http.StatusBadRequest, core.CodeInvalidRequest
	}
	return w
}()

// responseCases covers every row of the interface document's response tables (4.1, 4.2,
// 4.3, 5, 7) and the reference server's answers where the document is silent.
var responseCases = []struct {
	name   string
	req    req
	status int
	code   string // Error code; "" for a success body
}{
	// 4.1 List all animals
	{"4.1 200 list", get("/v1/pets"), 200, ""},
	{"4.1 200 limit and status", get("/v1/pets?limit=5&status=sold"), 200, ""},
	{"4.1 401 no key", req{method: "GET", path: "/v1/pets"}, 401, core.CodeUnauthorized},
	{"silent: limit 0", get("/v1/pets?limit=0"), 400, core.CodeInvalidRequest},
	{"silent: limit one past the maximum", get("/v1/pets?limit=" + aboveMax), 400, core.CodeInvalidRequest},
	{"silent: limit not an integer", get("/v1/pets?limit=ten"), 400, core.CodeInvalidRequest},
	{"silent: limit 1.5", get("/v1/pets?limit=1.5"), 400, core.CodeInvalidRequest},
	{"silent: limit empty", get("/v1/pets?limit="), 400, core.CodeInvalidRequest},
	{"silent: limit repeated", get("/v1/pets?limit=1&limit=2"), 400, core.CodeInvalidRequest},
	{"silent: unknown status", get("/v1/pets?status=lost"), 400, core.CodeInvalidRequest},
	{"silent: status repeated", get("/v1/pets?status=sold&status=sold"), 400, core.CodeInvalidRequest},
	{"silent: unknown query parameter ignored", get("/v1/pets?page=2"), 200, ""},

	// 4.2 Add an animal
	{"4.2 201", post(`{"name":"Rex","categoryId":1,"status":"available"}`), 201, ""},
	{"4.2 201 without status (400 where the spec requires one)", post(`{"name":"Rex","categoryId":1}`), withoutStatus.status, withoutStatus.code},
	{"4.2 201 charset parameter", req{method: "POST", path: "/v1/pets", auth: authed, contentType: "application/json; charset=utf-8", body: `{"name":"Rex","categoryId":1,"status":"available"}`}, 201, ""},
	{"silent: unknown field ignored", post(`{"name":"Rex","categoryId":1,"status":"available","colour":"red"}`), 201, ""},
	{"silent: categoryId negative", post(`{"name":"Rex","categoryId":-9223372036854775808,"status":"available"}`), 201, ""},
	{"4.2 400 no body", req{method: "POST", path: "/v1/pets", auth: authed, contentType: jsonCT}, 400, core.CodeInvalidRequest},
	{"4.2 400 name missing", post(`{"categoryId":1}`), 400, core.CodeInvalidRequest},
	{"4.2 400 categoryId missing", post(`{"name":"Rex"}`), 400, core.CodeInvalidRequest},
	{"4.2 400 name not a string", post(`{"name":7,"categoryId":1}`), 400, core.CodeInvalidRequest},
	{"4.2 400 categoryId a string", post(`{"name":"Rex","categoryId":"1"}`), 400, core.CodeInvalidRequest},
	{"4.2 400 categoryId fractional", post(`{"name":"Rex","categoryId":1.5}`), 400, core.CodeInvalidRequest},
	{"4.2 400 categoryId beyond int64", post(`{"name":"Rex","categoryId":9223372036854775808}`), 400, core.CodeInvalidRequest},
	{"4.2 400 unknown status", post(`{"name":"Rex","categoryId":1,"status":"lost"}`), 400, core.CodeInvalidRequest},
	{"4.2 400 null status", post(`{"name":"Rex","categoryId":1,"status":null}`), 400, core.CodeInvalidRequest},
	{"4.2 400 not an object", post(`["Rex",1]`), 400, core.CodeInvalidRequest},
	{"4.2 400 malformed JSON", post(`{"name":"Rex",`), 400, core.CodeInvalidRequest},
	{"silent: duplicate key", post(`{"name":"Rex","categoryId":1,"name":"Tom"}`), 400, core.CodeInvalidRequest},
	{"silent: empty name", post(`{"name":"","categoryId":1}`), 400, core.CodeInvalidRequest},
	{"silent: name of 201 characters", post(`{"name":"` + strings.Repeat("é", 201) + `","categoryId":1}`), 400, core.CodeInvalidRequest},
	{"silent: name of 200 characters", post(`{"name":"` + strings.Repeat("é", 200) + `","categoryId":1,"status":"available"}`), 201, ""},
	{"silent: control character in name", post(`{"name":"Rex\u0007","categoryId":1}`), 400, core.CodeInvalidRequest},
	{"4.2 401 no key", req{method: "POST", path: "/v1/pets", contentType: jsonCT, body: `{"name":"Rex","categoryId":1}`}, 401, core.CodeUnauthorized},
	{"silent: 415 text/plain", req{method: "POST", path: "/v1/pets", auth: authed, contentType: "text/plain", body: `{"name":"Rex","categoryId":1}`}, 415, core.CodeUnsupportedMediaType},
	{"silent: 415 no Content-Type", req{method: "POST", path: "/v1/pets", auth: authed, body: `{"name":"Rex","categoryId":1}`}, 415, core.CodeUnsupportedMediaType},
	{"silent: 413 body too large", post(`{"name":"Rex","categoryId":1,"pad":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}`), 413, core.CodePayloadTooLarge},

	// 4.3 Get an animal
	{"4.3 200", get("/v1/pets/1"), 200, ""},
	{"4.3 401 no key", req{method: "GET", path: "/v1/pets/1"}, 401, core.CodeUnauthorized},
	{"4.3 404 unknown id", get("/v1/pets/9999"), 404, core.CodeNotFound},
	{"silent: petId 0", get("/v1/pets/0"), 404, core.CodeNotFound},
	{"silent: petId negative", get("/v1/pets/-1"), 404, core.CodeNotFound},
	{"silent: petId not an integer", get("/v1/pets/abc"), 400, core.CodeInvalidRequest},
	{"silent: petId beyond int64", get("/v1/pets/9223372036854775808"), 400, core.CodeInvalidRequest},

	// 5 Authentication: the scheme is case-insensitive (RFC 9110 11.1), the key is not.
	{"5 401 wrong key", req{method: "GET", path: "/v1/pets", auth: "Bearer nope"}, 401, core.CodeUnauthorized},
	{"5 401 key in other case", req{method: "GET", path: "/v1/pets", auth: "Bearer " + strings.ToUpper(testKey)}, 401, core.CodeUnauthorized},
	{"5 401 Basic scheme", req{method: "GET", path: "/v1/pets", auth: "Basic dGVzdC1rZXk6"}, 401, core.CodeUnauthorized},
	{"5 401 Basic with the key", req{method: "GET", path: "/v1/pets", auth: "Basic " + testKey}, 401, core.CodeUnauthorized},
	{"5 401 empty bearer", req{method: "GET", path: "/v1/pets", auth: "Bearer "}, 401, core.CodeUnauthorized},
	{"5 401 scheme only", req{method: "GET", path: "/v1/pets", auth: "Bearer"}, 401, core.CodeUnauthorized},
	{"5 401 key without scheme", req{method: "GET", path: "/v1/pets", auth: testKey}, 401, core.CodeUnauthorized},
	{"5 200 lower-case bearer", req{method: "GET", path: "/v1/pets", auth: "bearer " + testKey}, 200, ""},
	{"5 200 upper-case BEARER", req{method: "GET", path: "/v1/pets", auth: "BEARER " + testKey}, 200, ""},
	{"5 401 before 400", req{method: "GET", path: "/v1/pets?limit=0"}, 401, core.CodeUnauthorized},

	// Outside the operations
	{"404 unknown path", get("/v1/cats"), 404, core.CodeNotFound},
	{"404 outside the base path", get("/pets"), 404, core.CodeNotFound},
	{"404 trailing slash", get("/v1/pets/"), 404, core.CodeNotFound},
	{"405 a method no operation has", req{method: unusedMethod, path: "/v1/pets", auth: authed}, 405, core.CodeMethodNotAllowed},
	{"405 PUT /pets/{petId}", req{method: "PUT", path: "/v1/pets/1", auth: authed}, 405, core.CodeMethodNotAllowed},
}

// get is an authenticated GET; post an authenticated JSON POST /v1/pets.
func get(path string) req { return req{method: "GET", path: path, auth: authed} }
func post(body string) req {
	return req{method: "POST", path: "/v1/pets", auth: authed, contentType: jsonCT, body: body}
}

// TestResponses runs every case with validation on and off: the handlers alone must give
// the same answers as the handlers behind the validator.
func TestResponses(t *testing.T) {
	for _, mode := range []struct {
		name string
		cfg  Config
	}{{"validated", Config{}}, {"no-validation", Config{NoValidation: true}}} {
		for _, tc := range responseCases {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				cfg := mode.cfg
				cfg.Seed = seedOf(3)
				h := newTestServer(t, cfg)
				w := do(t, h, tc.req)
				require.Equal(t, tc.status, w.Code, "body: %s", w.Body)
				if tc.code == "" {
					assert.Equal(t, jsonCT, w.Header().Get("Content-Type"))
					return
				}
				e := errorBody(t, w)
				assert.Equal(t, tc.code, e.Code)
				switch tc.status {
				case http.StatusUnauthorized:
					assert.Equal(t, "Bearer", w.Header().Get("WWW-Authenticate"))
				case http.StatusMethodNotAllowed:
					assert.NotEmpty(t, w.Header().Get("Allow"))
				}
			})
		}
	}
}

func TestMethodNotAllowedListsSpecMethods(t *testing.T) {
	h := newTestServer(t, Config{})
	for path, allow := range map[string]string{"/v1/pets": allowHeader("/pets"), "/v1/pets/1": allowHeader("/pets/{petId}")} {
		w := do(t, h, req{method: unusedMethod, path: path, auth: authed})
		assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
		assert.Equal(t, allow, w.Header().Get("Allow"), path)
	}
}

func TestBodyLimit(t *testing.T) {
	h := newTestServer(t, Config{MaxBodyBytes: 64})
	body := `{"name":"` + strings.Repeat("x", 60) + `","categoryId":1}`
	w := do(t, h, req{method: "POST", path: "/v1/pets", auth: authed, contentType: jsonCT, body: body})
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.Equal(t, core.CodePayloadTooLarge, errorBody(t, w).Code)

	// Without a Content-Length the limit applies while reading.
	r := newRequest(t, "POST", "/v1/pets", strings.NewReader(body))
	r.ContentLength = -1
	w = serve(h, r)
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, "body: %s", w.Body)
	assert.Equal(t, core.CodePayloadTooLarge, errorBody(t, w).Code)
}

func TestStoreFull(t *testing.T) {
	h := newTestServer(t, Config{Seed: seedOf(2), MaxPets: 2})
	w := do(t, h, req{method: "POST", path: "/v1/pets", auth: authed, contentType: jsonCT, body: `{"name":"Rex","categoryId":1,"status":"available"}`})
	assert.Equal(t, http.StatusInsufficientStorage, w.Code)
	assert.Equal(t, core.CodeStoreFull, errorBody(t, w).Code)
}

// Many parallel creates: every one succeeds, ids are unique and dense, none is lost.
func TestConcurrentCreates(t *testing.T) {
	const workers, each = 16, 25
	h := newTestServer(t, Config{Seed: seedOf(5)})
	ids := make(chan int64, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				body := fmt.Sprintf(`{"name":"w%d-%d","categoryId":%d,"status":"sold"}`, w, i, w)
				rec := serve(h, newRequest(t, "POST", "/v1/pets", strings.NewReader(body)))
				if !assert.Equal(t, http.StatusCreated, rec.Code, "body: %s", rec.Body) {
					return
				}
				var p Pet
				if assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p)) {
					ids <- p.ID
				}
				// Reads run alongside the writes.
				serve(h, newRequest(t, "GET", "/v1/pets?status=sold&"+limitMax, nil))
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		assert.False(t, seen[id], "id %d assigned twice", id)
		seen[id] = true
	}
	require.Len(t, seen, workers*each)
	for id := int64(6); id <= 5+workers*each; id++ {
		assert.True(t, seen[id], "id %d missing", id)
	}
}

// benchServers caches the servers by size so that building 1,000,000 animals happens once
// per run, outside the timed part, and only when benchmarks run.
var benchServers = struct {
	sync.Mutex
	m map[int]http.Handler
}{m: map[int]http.Handler{}}

func benchServer(b *testing.B, n int) http.Handler {
	benchServers.Lock()
	defer benchServers.Unlock()
	if h, ok := benchServers.m[n]; ok {
		return h
	}
	h := newTestServer(b, Config{Seed: seedOf(n), MaxPets: n + 1})
	benchServers.m[n] = h
	return h
}

// BenchmarkList shows that a list with limit=20 costs the same on 100 animals as on
// 1,000,000, with and without a status filter (the store keeps an index per status).
func BenchmarkList(b *testing.B) {
	for _, query := range []string{"limit=20", "limit=20&status=sold"} {
		for _, n := range []int{100, 1_000_000} {
			b.Run(fmt.Sprintf("%s/animals=%d", query, n), func(b *testing.B) {
				h := benchServer(b, n)
				r := newRequest(b, "GET", "/v1/pets?"+query, nil)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					w := serve(h, r.Clone(r.Context()))
					if w.Code != http.StatusOK {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}

// BenchmarkServe compares each operation with and without validation (the later target is
// at least 70% of the unvalidated throughput).
func BenchmarkServe(b *testing.B) {
	for _, mode := range []struct {
		name string
		off  bool
	}{{"validated", false}, {"no-validation", true}} {
		for _, op := range []struct{ name, method, path, body string }{
			{"listPets", "GET", "/v1/pets", ""},
			{"createPet", "POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"sold"}`},
			{"getPet", "GET", "/v1/pets/7", ""},
		} {
			b.Run(mode.name+"/"+op.name, func(b *testing.B) {
				h := newTestServer(b, Config{Seed: seedOf(100), NoValidation: mode.off, MaxPets: 1 << 30})
				b.ReportAllocs()
				for b.Loop() {
					w := serve(h, newRequest(b, op.method, op.path, strings.NewReader(op.body)))
					if w.Code >= 300 {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}

// A 404 says where to look when a person would want it: a documented path without the base
// path, and the admin endpoints of a server started without an admin key. Other misses stay
// plain.
func TestMissedRoutesHint(t *testing.T) {
	h := newTestServer(t, Config{APIKeys: []string{testKey}})
	for path, want := range map[string]string{
		"/pets":            "no such resource: the API is under /v1; did you mean /v1/pets?",
		"/pets/7":          "no such resource: the API is under /v1; did you mean /v1/pets/7?",
		"/_admin/requests": "no such resource: the endpoints under /_admin/ are on only with an admin key (petstore serve --admin-key, or PETSTORE_ADMIN_KEY)",
		"/v1/animals":      "no such resource",
		"/pets/7/photos":   "no such resource",
	} {
		w := serve(h, newRequest(t, "GET", path, nil))
		assert.Equal(t, http.StatusNotFound, w.Code, path)
		assert.Equal(t, want, errorBody(t, w).Message, path)
	}
	withAdmin := newTestServer(t, Config{APIKeys: []string{testKey}, AdminKey: "admin-key-0123456789"})
	r := newRequest(t, "GET", "/_admin/nothing", nil)
	r.Header.Set("Authorization", "Bearer admin-key-0123456789")
	assert.Equal(t, "no such resource", errorBody(t, serve(withAdmin, r)).Message)
}

// Validation changes nothing in what a valid request gets: same status, headers and bytes.
func TestNoValidationAnswersTheSameBytes(t *testing.T) {
	reqs := []req{get("/v1/pets"), get("/v1/pets?status=sold&" + limitMax), get("/v1/pets?limit=1"),
		get("/v1/pets/2"), get("/v1/pets/99"), post(`{"name":"Rex <3","categoryId":4,"status":"sold"}`),
		{method: "GET", path: "/v1/pets"}}
	on := newTestServer(t, Config{Seed: seedOf(30)})
	off := newTestServer(t, Config{Seed: seedOf(30), NoValidation: true})
	for _, rq := range reqs {
		a, b := do(t, on, rq), do(t, off, rq)
		assert.Equal(t, b.Code, a.Code, rq.path)
		assert.Equal(t, b.Header(), a.Header(), rq.path)
		assert.Equal(t, b.Body.String(), a.Body.String(), rq.path)
	}
}

// A spec whose list schema has a constraint of its own: lists are validated in full (no
// plan takes them as validated, plan_test.go), so a list that breaks it is a 500 Error,
// never served.
func TestArrayConstraintFallsBackToFullValidation(t *testing.T) {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	two := uint64(2)
	doc.Components.Schemas["Pets"].Value.MaxItems = &two
	h := newTestServer(t, Config{Spec: doc, Seed: seedOf(3)})
	w := do(t, h, get("/v1/pets"))
	require.Equal(t, http.StatusInternalServerError, w.Code, "body: %s", w.Body)
	assert.Contains(t, errorBody(t, w).Message, "violated the spec")
	assert.Len(t, pets(t, do(t, h, get("/v1/pets?limit=2"))), 2)
}

// A spec whose Pet schema refuses an animal the handlers accept: the animal is never
// stored, so no list or get can serve it; a seed with one is refused at start; lenient mode
// stores and serves it, validating (and logging) every response.
func TestInvalidPetIsNeverStored(t *testing.T) {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	three := uint64(3)
	doc.Components.Schemas["Pet"].Value.Properties["name"].Value.MaxLength = &three

	var log bytes.Buffer
	h := newTestServer(t, Config{Spec: doc, Seed: []core.NewPet{{Name: "Tom", CategoryID: 1, Status: "available"}}, Log: &log})
	w := do(t, h, post(`{"name":"Rexxx","categoryId":1,"status":"available"}`))
	require.Equal(t, http.StatusInternalServerError, w.Code, "body: %s", w.Body)
	assert.Equal(t, core.CodeInternal, errorBody(t, w).Code)
	assert.Contains(t, log.String(), "response violates the spec")
	assert.Equal(t, http.StatusNotFound, do(t, h, get("/v1/pets/2")).Code)
	assert.Equal(t, []core.Pet{{ID: 1, Name: "Tom", CategoryID: 1, Status: "available"}}, pets(t, do(t, h, get("/v1/pets"))))
	assert.Equal(t, http.StatusCreated, do(t, h, post(`{"name":"Rex","categoryId":1,"status":"available"}`)).Code)
	assert.Len(t, pets(t, do(t, h, get("/v1/pets"))), 2)

	_, err = NewServer(Config{Spec: doc, APIKeys: []string{testKey}, Seed: []core.NewPet{{Name: "Tom", CategoryID: 1, Status: "available"}, {Name: "Rexxx", CategoryID: 1, Status: "available"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "entry 1")

	log.Reset()
	h = newTestServer(t, Config{Spec: doc, Lenient: true, Log: &log})
	assert.Equal(t, http.StatusCreated, do(t, h, post(`{"name":"Rexxx","categoryId":1,"status":"available"}`)).Code)
	assert.Len(t, pets(t, do(t, h, get("/v1/pets"))), 1)
	assert.Equal(t, 2, strings.Count(log.String(), "response violates the spec"), log.String())
}

// A server without the double's settings runs none of its code on the way of a request (no
// frame of a file of reference/double, inlined or not, is on the stack when the handler
// answers); with the journal or
// the scenarios on, the double is around the api.
func TestPlainServerRunsNoDoubleCode(t *testing.T) {
	for _, tc := range []struct {
		d    double.Double
		want bool
	}{{double.Double{}, false}, {double.Double{Journal: 10}, true}, {double.Double{Scenarios: true}, true}} {
		inDouble := false
		h, err := newServer(Config{APIKeys: []string{testKey}, Now: fixedNow, Double: tc.d}, func(m map[string]core.Handler) {
			list := m["listPets"]
			m["listPets"] = func(rec *core.Recorder, r *http.Request) {
				pcs := make([]uintptr, 64)
				frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
				for more := true; more; {
					var f runtime.Frame
					f, more = frames.Next()
					inDouble = inDouble || strings.Contains(filepath.ToSlash(f.File), "/reference/double/")
				}
				list(rec, r)
			}
		})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, do(t, h, get("/v1/pets")).Code)
		assert.Equal(t, tc.want, inDouble, "%+v", tc.d)
	}
}

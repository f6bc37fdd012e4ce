// Package seqmutants is the evidence that conformance explore finds faults only sequences
// show: each mutant is the reference server behind a wrapper that injects one such fault
// (ids handed out twice when creates race, a lost write, a fault that starts after some
// requests, an intermittent 500, a filter broken for one status value, a store that drops
// animals past some size, a field that loses precision, a removal that leaves the animal
// visible, served with a spec grown by the DELETE), with the budget within which
// explore must find it. Allowed are servers that make the document's open choices otherwise
// (newest-first order, random ids, short pages, a listing lag, another client creating
// animals): explore must find nothing in them.
package seqmutants

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// Key is the API key every server here accepts.
const Key = "seqmutants-key-7c21"

// Budget is what explore may spend to find a mutant.
type Budget struct {
	Workers int
	Steps   int
}

func (b Budget) String() string {
	return strconv.Itoa(b.Steps) + " steps, " + strconv.Itoa(b.Workers) + " workers"
}

// Mutant is the reference server with one fault (or, for the allowed servers, one open
// choice made otherwise).
type Mutant struct {
	Name  string
	Fault string
	// Budget is what explore may spend to find the fault.
	Budget Budget
	// New returns a fresh wrapper (its own state) for one server.
	New func(doc *openapi3.T) func(http.Handler) http.Handler
	// Grow names the additions (internal/grownspec) to the spec that the server serves and
	// explore reads, for a fault of an operation a spec adds; none: the spec as given.
	Grow []string
	// Background, when set, runs beside explore for as long as the server lives (another
	// client), sending to t the operations f describes.
	Background func(ctx context.Context, t exchange.Target, f *spec.Facts)
}

// Catalogue lists the sequence mutants. The function is long because it is a table: one
// literal per mutant, each with its fault, its budget and its wrapper.
func Catalogue() []Mutant {
	return []Mutant{
		{Name: "racing-ids", Fault: "two creates that overlap get the same id; the later animal overwrites the earlier",
			Budget: Budget{Workers: 8, Steps: 2000},
			New: func(*openapi3.T) func(http.Handler) http.Handler {
				var next atomic.Int64
				return newIDs(func() int64 {
					n := next.Load() // read, then write: the lost update of an unlocked counter
					runtime.Gosched()
					time.Sleep(time.Millisecond) // a slow store between read and write
					next.Store(n + 1)
					return n + 1
				}).wrap
			}},
		{Name: "lost-write", Fault: "a create with categoryId 7 (a shard that drops writes) is answered 201 but never stored",
			Budget: Budget{Workers: 4, Steps: 2000},
			New: func(*openapi3.T) func(http.Handler) http.Handler {
				var next atomic.Int64
				l := newIDs(func() int64 { return next.Add(1) })
				l.keep = func(m map[string]any) bool { return m["categoryId"] != json.Number("7") }
				return l.wrap
			}},
		{Name: "fault-after-n", Fault: "after 400 requests, listPets ignores its limit and answers as many as it can",
			Budget: Budget{Workers: 4, Steps: 2000},
			New: func(doc *openapi3.T) func(http.Handler) http.Handler {
				lim, _ := spec.QueryInt(doc, "listPets", "limit")
				var n atomic.Int64
				return func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if n.Add(1) > 400 && kit.IsList(r) {
							r = editQuery(r, func(q url.Values) { q.Set("limit", strconv.FormatInt(lim.Max, 10)) })
						}
						next.ServeHTTP(w, r)
					})
				}
			}},
		{Name: "intermittent-500", Fault: "one request in 20, at random, is answered 500",
			Budget: Budget{Workers: 4, Steps: 1000},
			New: func(*openapi3.T) func(http.Handler) http.Handler {
				return func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if rand.IntN(20) == 0 {
							kit.Fail(w, http.StatusInternalServerError, "internal", "internal server error")
							return
						}
						next.ServeHTTP(w, r)
					})
				}
			}},
		{Name: "filter-one-status", Fault: "listPets ignores the status filter for one value (the second of the enumeration)",
			Budget: Budget{Workers: 4, Steps: 2000},
			New: func(doc *openapi3.T) func(http.Handler) http.Handler {
				values, _ := spec.StatusValues(doc)
				broken := values[1%len(values)]
				return func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if kit.IsList(r) && r.URL.Query().Get("status") == broken {
							r = editQuery(r, func(q url.Values) { q.Del("status") })
						}
						next.ServeHTTP(w, r)
					})
				}
			}},
		{Name: "store-size", Fault: "the store holds 150 animals; each further create drops the oldest",
			Budget: Budget{Workers: 4, Steps: 4000},
			New: func(*openapi3.T) func(http.Handler) http.Handler {
				var next atomic.Int64
				l := newIDs(func() int64 { return next.Add(1) })
				l.capacity = 150
				return l.wrap
			}},
		{Name: "lossy-category", Fault: "categoryId goes through a float64: integers above 2^53 come back rounded",
			Budget: Budget{Workers: 4, Steps: 4000},
			New: func(*openapi3.T) func(http.Handler) http.Handler {
				return editPets(func(m map[string]any) {
					if n, ok := m["categoryId"].(json.Number); ok {
						if f, err := n.Float64(); err == nil {
							m["categoryId"] = json.Number(strconv.FormatFloat(f, 'f', -1, 64))
						}
					}
				})
			}},
		{Name: "deleted-visible", Fault: "a DELETE of one animal (a spec grown by it) is answered 204, and the animal stays",
			Grow: []string{grownspec.Delete}, Budget: Budget{Workers: 4, Steps: 2000},
			New: func(*openapi3.T) func(http.Handler) http.Handler {
				return func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Method != http.MethodDelete {
							next.ServeHTTP(w, r)
							return
						}
						get := r.Clone(r.Context()) // answered as the reference answers a getPet (401, 404), without removing
						get.Method = http.MethodGet
						if rp := kit.Capture(next, get); rp.Status != http.StatusOK {
							rp.Send(w)
							return
						}
						w.WriteHeader(http.StatusNoContent)
					})
				}
			}},
	}
}

// Spec is doc grown by m's additions (Grow), and its text; doc itself without any (text:
// the embedded spec's).
func (m Mutant) Spec(doc *openapi3.T) (*openapi3.T, []byte, error) {
	if len(m.Grow) == 0 {
		return doc, spec.Bytes(), nil
	}
	text, err := grownspec.Text(m.Grow...)
	if err != nil {
		return nil, nil, err
	}
	grown, err := spec.Parse(text)
	return grown, text, err
}

// editQuery is r with its query changed.
func editQuery(r *http.Request, edit func(url.Values)) *http.Request {
	r = r.Clone(r.Context())
	q := r.URL.Query()
	edit(q)
	r.URL.RawQuery = q.Encode()
	return r
}

// editPets changes every animal of every successful answer (Pet and Pets bodies).
func editPets(edit func(map[string]any)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !kit.IsList(r) && !kit.IsGet(r) && !kit.IsCreate(r) {
				next.ServeHTTP(w, r)
				return
			}
			rp := kit.Capture(next, r)
			if rp.Status/100 == 2 {
				if m, ok := rp.Object(); ok {
					edit(m)
					rp.SetBody(m)
				} else if l, ok := rp.Objects(); ok {
					for _, m := range l {
						edit(m)
					}
					rp.SetBody(l)
				}
			}
			rp.Send(w)
		})
	}
}

// Serve starts the reference wrapped by m on a loopback port (with m's background client,
// if any) and returns the target and the function that stops both.
func Serve(doc *openapi3.T, m Mutant) (exchange.Target, func(), error) {
	h, err := reference.NewServer(reference.Config{Spec: doc, APIKeys: []string{Key}})
	if err != nil {
		return exchange.Target{}, nil, err
	}
	if m.New != nil {
		h = m.New(doc)(h)
	}
	f, err := spec.ReadFacts(doc)
	if err != nil {
		return exchange.Target{}, nil, err
	}
	srv := httptest.NewServer(h)
	t := exchange.Target{BaseURL: srv.URL + f.BasePath, APIKey: Key, Client: srv.Client()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if m.Background != nil {
			m.Background(ctx, t, f)
		}
	}()
	return t, func() { cancel(); <-done; srv.Close() }, nil
}

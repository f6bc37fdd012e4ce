package mutants

import (
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

func getMutants(f *facts) []Mutant {
	afterSunset := f.getPet.Sunset.Add(24 * time.Hour)
	return []Mutant{
		{
			Name:  "get-unknown-null",
			Fault: "An unknown id is answered with 200 and the body null.",
			Catch: []string{"getPet/unknown-id", "errors/not-found"},
			Wrap: respond(isGet, func(_ *http.Request, rp *reply) {
				if rp.status == http.StatusNotFound {
					rp.setJSON(http.StatusOK, nil)
				}
			}),
		},
		{
			Name:  "get-404-empty",
			Fault: "An unknown id is answered with 404 and an empty body.",
			Catch: []string{"getPet/unknown-id", "errors/not-found"},
			Wrap: respond(isGet, func(_ *http.Request, rp *reply) {
				if rp.status == http.StatusNotFound {
					rp.body = nil
					rp.header.Del("Content-Type")
				}
			}),
		},
		{
			Name:  "get-removed-early",
			Fault: "GET /pets/{petId} already answers 410 Gone, years before its removal date.",
			Catch: []string{"getPet/listed-returned", "getPet/created-returned"},
			Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !isGet(r) {
						next.ServeHTTP(w, r)
						return
					}
					fail(w, http.StatusGone, "gone", "this endpoint was removed; use GET /pets")
				})
			},
		},
		{
			Name:  "get-wrong-animal",
			Fault: "The lookup is off by one: GET /pets/{petId} returns the animal with the next id.",
			Catch: []string{"getPet/listed-returned", "getPet/created-returned"},
			Wrap: request(isGet, func(r *http.Request) {
				if n, err := strconv.ParseInt(path.Base(r.URL.Path), 10, 64); err == nil {
					r.URL.Path, r.URL.RawPath = path.Dir(r.URL.Path)+"/"+strconv.FormatInt(n+1, 10), ""
				}
			}),
		},
		{
			Name:  "get-recent-only",
			Fault: "GET /pets/{petId} reads a cache of the 10 animals created last and answers 404 for older ones instead of asking the store.",
			Catch: []string{"getPet/listed-returned"},
			Wrap:  recentOnly(10),
		},
		{
			Name:  "get-status-dropped",
			Fault: "GET /pets/{petId} leaves out the animal's status.",
			Catch: []string{"getPet/listed-returned", "getPet/created-returned"},
			Wrap:  onSuccess(isGet, func(rp *reply) { rp.editJSON(eachObject(func(m map[string]any) { delete(m, "status") })) }),
		},
		{
			Name:  "get-non-integer-500",
			Fault: "A petId that is not an integer crashes the handler: 500 instead of a 4xx.",
			Catch: []string{"getPet/non-integer-id"},
			Wrap: crashWhen(func(r *http.Request) bool {
				_, err := strconv.ParseInt(path.Base(r.URL.Path), 10, 64)
				return isGet(r) && err != nil
			}),
		},
		{
			Name:    "get-sunset-wrong-date",
			Fault:   "The Sunset header names a date a year before the removal date (caught in strict mode: a Should rule).",
			Catch:   []string{"getPet/deprecation-headers"},
			Options: strict,
			Wrap: onSuccess(isGet, func(rp *reply) {
				rp.header.Set("Sunset", f.getPet.Sunset.AddDate(-1, 0, 0).Format(http.TimeFormat))
			}),
		},
		{
			Name:    "get-deprecation-true",
			Fault:   `The Deprecation header is the draft form "true" instead of an RFC 9745 date (caught in strict mode).`,
			Catch:   []string{"getPet/deprecation-headers"},
			Options: strict,
			Wrap:    onSuccess(isGet, func(rp *reply) { rp.header.Set("Deprecation", "true") }),
		},
		{
			Name:    "get-kept-after-sunset",
			Fault:   "GET /pets/{petId} keeps answering after its removal date (a legacy route that ignores the sunset).",
			Catch:   []string{"getPet/gone-after-sunset"},
			Options: func(o *conformance.Options) { o.Now = afterSunset },
			Config:  func(cfg *reference.Config) { cfg.Now = func() time.Time { return afterSunset } },
			// The reference has removed the operation; the legacy route finds the animal in
			// the listing instead.
			Wrap: respondNext(isGet, func(next http.Handler, r *http.Request, rp *reply) {
				id := path.Base(r.URL.Path)
				for _, p := range listAll(f, next, r) {
					if fmt.Sprint(p.(map[string]any)["id"]) == id {
						rp.setJSON(http.StatusOK, p)
						return
					}
				}
			}),
		},
	}
}

// recentOnly keeps the ids of the last n animals created (each server its own cache) and
// answers 404 for any other id.
func recentOnly(n int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		var mu sync.Mutex
		var recent []string
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case isCreate(r):
				rp := capture(next, r)
				rp.editJSON(eachObject(func(m map[string]any) {
					mu.Lock()
					defer mu.Unlock()
					recent = append(recent, fmt.Sprint(m["id"]))
					recent = recent[max(0, len(recent)-n):]
				}))
				rp.send(w)
			case isGet(r):
				rp := capture(next, r) // authentication and validation come first
				mu.Lock()
				cached := slices.Contains(recent, path.Base(r.URL.Path))
				mu.Unlock()
				if rp.status == http.StatusOK && !cached {
					fail(w, http.StatusNotFound, "not_found", "pet "+path.Base(r.URL.Path)+" not found")
					return
				}
				rp.send(w)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

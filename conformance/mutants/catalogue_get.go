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
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
)

// getMutants are the faults of getPet. The function is long because it is a table: one
// literal per mutant, each with its fault, its wrapper and the rule that must catch it.
func getMutants(f *facts) []Mutant {
	afterSunset := f.getPet.Sunset.Add(24 * time.Hour)
	return []Mutant{
		{
			Name:      "get-unknown-null",
			Fault:     "An unknown id is answered with 200 and the body null.",
			Catch:     []string{"getPet/unknown-id", "errors/not-found"},
			AlsoFails: []string{"getPet/cases-path", "getPet/cases-anatomy", "listPets/cases-anatomy"},
			Wrap: kit.Respond(kit.IsGet, func(_ *http.Request, rp *kit.Reply) {
				if rp.Status == http.StatusNotFound {
					rp.SetJSON(http.StatusOK, nil)
				}
			}),
		},
		{
			Name:      "get-404-empty",
			Fault:     "An unknown id is answered with 404 and an empty body.",
			Catch:     []string{"getPet/unknown-id", "errors/not-found"},
			AlsoFails: []string{"errors/cases-routes", "getPet/cases-path", "getPet/cases-anatomy", "listPets/cases-anatomy"},
			Wrap: kit.Respond(kit.IsGet, func(_ *http.Request, rp *kit.Reply) {
				if rp.Status == http.StatusNotFound {
					rp.Body = nil
					rp.Header.Del("Content-Type")
				}
			}),
		},
		{
			Name:      "get-removed-early",
			Fault:     "GET /pets/{petId} already answers 410 Gone, years before its removal date.",
			Catch:     []string{"getPet/listed-returned", "getPet/created-returned"},
			AlsoFails: []string{"auth/getPet-basic", "auth/getPet-empty-token", "auth/getPet-missing", "auth/getPet-near-key", "auth/getPet-not-bearer", "auth/getPet-wrong-key", "createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "errors/not-found", "getPet/cases-auth", "getPet/cases-headers", "getPet/cases-path", "getPet/unknown-id", "createPet/cases-anatomy", "getPet/cases-anatomy"},
			Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !kit.IsGet(r) {
						next.ServeHTTP(w, r)
						return
					}
					kit.Fail(w, http.StatusGone, "gone", "this endpoint was removed; use GET /pets")
				})
			},
		},
		{
			Name:      "get-wrong-animal",
			Fault:     "The lookup is off by one: GET /pets/{petId} returns the animal with the next id.",
			Catch:     []string{"getPet/listed-returned", "getPet/created-returned"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "getPet/cases-auth", "getPet/cases-headers", "getPet/cases-path", "createPet/cases-anatomy", "getPet/cases-anatomy"},
			Wrap: kit.Request(kit.IsGet, func(r *http.Request) {
				if n, err := strconv.ParseInt(path.Base(r.URL.Path), 10, 64); err == nil {
					r.URL.Path, r.URL.RawPath = path.Dir(r.URL.Path)+"/"+strconv.FormatInt(n+1, 10), ""
				}
			}),
		},
		{
			Name:      "get-recent-only",
			Fault:     "GET /pets/{petId} reads a cache of the 10 animals created last and answers 404 for older ones instead of asking the store.",
			Catch:     []string{"getPet/listed-returned"},
			AlsoFails: []string{"getPet/cases-headers", "getPet/cases-path", "getPet/cases-anatomy"},
			Wrap:      recentOnly(10),
		},
		{
			Name:      "get-status-dropped",
			Fault:     "GET /pets/{petId} leaves out the animal's status.",
			Catch:     []string{"getPet/listed-returned", "getPet/created-returned"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/cases-anatomy"},
			Wrap:      kit.OnSuccess(kit.IsGet, func(rp *kit.Reply) { rp.EditJSON(kit.EachObject(func(m map[string]any) { delete(m, "status") })) }),
		},
		{
			Name:      "get-non-integer-500",
			Fault:     "A petId that is not an integer crashes the handler: 500 instead of a 4xx.",
			Catch:     []string{"getPet/non-integer-id"},
			AlsoFails: []string{"errors/cases-routes", "getPet/cases-auth", "getPet/cases-path", "getPet/cases-anatomy", "listPets/cases-anatomy"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				_, err := strconv.ParseInt(path.Base(r.URL.Path), 10, 64)
				return kit.IsGet(r) && err != nil
			}),
		},
		{
			Name:    "get-sunset-wrong-date",
			Fault:   "The Sunset header names a date a year before the removal date (caught in strict mode: a Should rule).",
			Catch:   []string{"getPet/deprecation-headers"},
			Options: strict,
			Wrap: kit.OnSuccess(kit.IsGet, func(rp *kit.Reply) {
				rp.Header.Set("Sunset", f.getPet.Sunset.AddDate(-1, 0, 0).Format(http.TimeFormat))
			}),
		},
		{
			Name:    "get-deprecation-true",
			Fault:   `The Deprecation header is the draft form "true" instead of an RFC 9745 date (caught in strict mode).`,
			Catch:   []string{"getPet/deprecation-headers"},
			Options: strict,
			Wrap:    kit.OnSuccess(kit.IsGet, func(rp *kit.Reply) { rp.Header.Set("Deprecation", "true") }),
		},
		{
			Name:    "get-kept-after-sunset",
			Fault:   "GET /pets/{petId} keeps answering after its removal date (a legacy route that ignores the sunset).",
			Catch:   []string{"getPet/gone-after-sunset"},
			Options: func(o *conformance.Options) { o.Now = afterSunset },
			Config:  func(cfg *reference.Config) { cfg.Now = func() time.Time { return afterSunset } },
			// The reference has removed the operation; the legacy route finds the animal in
			// the listing instead.
			Wrap: kit.RespondNext(kit.IsGet, func(next http.Handler, r *http.Request, rp *kit.Reply) {
				id := path.Base(r.URL.Path)
				for _, p := range listAll(f, next, r) {
					if fmt.Sprint(p.(map[string]any)["id"]) == id {
						rp.SetJSON(http.StatusOK, p)
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
			case kit.IsCreate(r):
				rp := kit.Capture(next, r)
				rp.EditJSON(kit.EachObject(func(m map[string]any) {
					mu.Lock()
					defer mu.Unlock()
					recent = append(recent, fmt.Sprint(m["id"]))
					recent = recent[max(0, len(recent)-n):]
				}))
				rp.Send(w)
			case kit.IsGet(r):
				rp := kit.Capture(next, r) // authentication and validation come first
				mu.Lock()
				cached := slices.Contains(recent, path.Base(r.URL.Path))
				mu.Unlock()
				if rp.Status == http.StatusOK && !cached {
					kit.Fail(w, http.StatusNotFound, "not_found", "pet "+path.Base(r.URL.Path)+" not found")
					return
				}
				rp.Send(w)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

package seqmutants

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/spec"
)

// ListingLag is how long the lagging server hides a new animal: a few hundred
// milliseconds, within explore's default allowed lag.
const ListingLag = 300 * time.Millisecond

// Allowed lists servers that make the document's open choices otherwise than the reference:
// explore must find nothing in them.
func Allowed() []Mutant {
	randomIDs := func(*openapi3.T) func(http.Handler) http.Handler {
		return newIDs(func() int64 { return rand.Int64N(1<<62) + 1 }).wrap
	}
	return []Mutant{
		{Name: "reference", Fault: "none: the unmodified reference server"},
		{Name: "newest-first", Fault: "listPets answers the newest animals first", New: newestFirst},
		{Name: "random-ids", Fault: "ids are random positive int64 values", New: randomIDs},
		{Name: "short-pages", Fault: "listPets leaves out about half of the animals of each page", New: shortPages},
		{Name: "listing-lag", Fault: fmt.Sprintf("a new animal is missing from listings and getPet for %s", ListingLag), New: lagging},
		{Name: "other-client", Fault: "another client creates animals all through the run", Background: otherClient},
		{Name: "all-open-choices", Fault: "all of the above at once", Background: otherClient,
			New: func(doc *openapi3.T) func(http.Handler) http.Handler {
				ws := []func(http.Handler) http.Handler{randomIDs(doc), newestFirst(doc), shortPages(doc), lagging(doc)}
				return func(h http.Handler) http.Handler {
					for _, w := range ws {
						h = w(h)
					}
					return h
				}
			}},
	}
}

// newestFirst answers listPets from its own record of the animals created through it,
// newest first, each read back with getPet; the reference still answers every request
// it would refuse (key, parameters).
func newestFirst(doc *openapi3.T) func(http.Handler) http.Handler {
	lim, _ := spec.QueryInt(doc, "listPets", "limit")
	type rec struct {
		id     int64
		status string
	}
	var mu sync.Mutex
	var recs []rec
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case kit.IsCreate(r):
				serveCreate(next, w, r, func(id int64, m map[string]any) {
					status, _ := m["status"].(string)
					mu.Lock()
					recs = append(recs, rec{id, status})
					mu.Unlock()
				})
			case kit.IsList(r):
				// The reference judges the key and the parameters; its page is then replaced.
				if rp := kit.Capture(next, r); rp.Status != http.StatusOK {
					rp.Send(w)
					return
				}
				q := r.URL.Query()
				limit, status := lim.Default, q.Get("status")
				if q.Has("limit") {
					limit, _ = strconv.ParseInt(q.Get("limit"), 10, 64)
				}
				mu.Lock()
				var ids []int64
				for i := len(recs) - 1; i >= 0 && int64(len(ids)) < limit; i-- {
					if status == "" || recs[i].status == status {
						ids = append(ids, recs[i].id)
					}
				}
				mu.Unlock()
				out := make([]any, 0, len(ids))
				for _, id := range ids {
					get := kit.WithPath(r, path.Join(r.URL.Path, strconv.FormatInt(id, 10)))
					get.URL.RawQuery = ""
					if rp := kit.Capture(next, get); rp.Status == http.StatusOK {
						if m, ok := rp.Object(); ok {
							out = append(out, m)
						}
					}
				}
				rp := &kit.Reply{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}}
				rp.SetBody(out)
				rp.Send(w)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

// serveCreate serves a createPet through next and hands the animal a 201 answered to record.
func serveCreate(next http.Handler, w http.ResponseWriter, r *http.Request, record func(id int64, pet map[string]any)) {
	rp := kit.Capture(next, r)
	if m, ok := rp.Object(); ok && rp.Status == http.StatusCreated {
		id, _ := idOf(m)
		record(id, m)
	}
	rp.Send(w)
}

// shortPages leaves out each animal of a listing with probability one half.
func shortPages(*openapi3.T) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !kit.IsList(r) {
				next.ServeHTTP(w, r)
				return
			}
			rp := kit.Capture(next, r)
			if l, ok := rp.Objects(); ok && rp.Status == http.StatusOK {
				l = slices.DeleteFunc(l, func(map[string]any) bool { return rand.IntN(2) == 0 })
				rp.SetBody(l)
			}
			rp.Send(w)
		})
	}
}

// lagging hides each animal for ListingLag after its creation, from listings and getPet.
func lagging(*openapi3.T) func(http.Handler) http.Handler {
	var mu sync.Mutex
	born := map[int64]time.Time{}
	young := func(id int64) bool {
		mu.Lock()
		defer mu.Unlock()
		t, ok := born[id]
		return ok && time.Since(t) < ListingLag
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case kit.IsCreate(r):
				serveCreate(next, w, r, func(id int64, _ map[string]any) {
					mu.Lock()
					born[id] = time.Now()
					mu.Unlock()
				})
			case kit.IsList(r):
				rp := kit.Capture(next, r)
				if l, ok := rp.Objects(); ok && rp.Status == http.StatusOK {
					l = slices.DeleteFunc(l, func(m map[string]any) bool { id, _ := idOf(m); return young(id) })
					rp.SetBody(l)
				}
				rp.Send(w)
			case kit.IsGet(r):
				rp := kit.Capture(next, r)
				if id, err := strconv.ParseInt(path.Base(r.URL.Path), 10, 64); err == nil && rp.Status == http.StatusOK && young(id) {
					kit.Fail(w, http.StatusNotFound, "not_found", "pet "+strconv.FormatInt(id, 10)+" not found")
					return
				}
				rp.Send(w)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

// otherClient creates an animal every few milliseconds until ctx ends.
func otherClient(ctx context.Context, t exchange.Target, f *spec.Facts) {
	// Every status of the spec, and none where the spec lets a create leave it out.
	var statuses []string
	if !spec.IsRequired(f.NewPet, "status") {
		statuses = append(statuses, "")
	}
	for _, s := range f.Statuses {
		statuses = append(statuses, fmt.Sprintf(`,"status":%q`, s))
	}
	for i := 0; ctx.Err() == nil; i++ {
		body := fmt.Sprintf(`{"name":"other-client-%d","categoryId":%d%s}`, i, 1+i%5, statuses[i%len(statuses)])
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.BaseURL+f.ByID[spec.OpCreate].Path, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+t.APIKey)
		req.Header.Set("Content-Type", "application/json")
		if resp, err := t.Client.Do(req); err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(3 * time.Millisecond):
		}
	}
}

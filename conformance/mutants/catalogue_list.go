package mutants

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// listAll merges every listing the reference server can give (unfiltered and per status,
// each at the maximum limit) into the whole store in id order: what a server without an
// upper bound on limit would return.
func listAll(f *facts, next http.Handler, r *http.Request) []any {
	byID := map[string]any{}
	for _, s := range append([]string{""}, f.statuses...) {
		q := url.Values{"limit": {strconv.FormatInt(f.limit.Max, 10)}}
		if s != "" {
			q.Set("status", s)
		}
		inner := r.Clone(r.Context())
		inner.Method, inner.Body, inner.ContentLength = http.MethodGet, nil, 0
		if path.Base(inner.URL.Path) != "pets" { // a request for one animal
			inner.URL.Path = path.Dir(inner.URL.Path)
		}
		inner.URL.RawPath, inner.URL.RawQuery = "", q.Encode()
		kit.Capture(next, inner).EditJSON(func(v any) any {
			list, _ := v.([]any)
			for _, p := range list {
				if m, ok := p.(map[string]any); ok {
					byID[fmt.Sprint(m["id"])] = m
				}
			}
			return v
		})
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, _ := strconv.ParseInt(ids[i], 10, 64)
		b, _ := strconv.ParseInt(ids[j], 10, 64)
		return a < b
	})
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out
}

// unbounded answers the listings whose limit satisfies beyond with every animal in the
// store (cut at the limit when it is positive): a server without the documented maximum.
func unbounded(f *facts, beyond func(n int64) bool) func(http.Handler) http.Handler {
	return kit.RespondNext(kit.IsList, func(next http.Handler, r *http.Request, rp *kit.Reply) {
		n, err := strconv.ParseInt(r.URL.Query().Get("limit"), 10, 64)
		if err != nil || !beyond(n) {
			return
		}
		all := listAll(f, next, r)
		if n > 0 {
			all = all[:min(int64(len(all)), n)]
		}
		rp.SetJSON(http.StatusOK, all)
	})
}

// listMutants are the faults of listPets. The function is long because it is a table: one
// literal per mutant, each with its fault, its wrapper and the rule that must catch it.
func listMutants(f *facts) []Mutant {
	statusRules := make([]string, 0, len(f.statuses))
	for _, s := range f.statuses {
		statusRules = append(statusRules, "listPets/status-"+s)
	}
	max := strconv.FormatInt(f.limit.Max, 10)
	// half is where list-limit-capped lowers a limit; the seeds hold more animals than
	// the maximum for the mutants that must return more.
	half := strconv.FormatInt(f.limit.Max/2, 10)
	beyondMax, above := int(f.limit.Max)+50, strconv.FormatInt(f.limit.Max+1, 10)
	return []Mutant{
		{
			Name:      "list-default-25",
			Fault:     "Without limit, the listing returns up to 25 animals instead of 20.",
			Catch:     []string{"listPets/default-limit"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/status-available", "listPets/status-default-limit", "listPets/cases-anatomy"},
			Wrap: kit.Query(kit.IsList, func(q url.Values) {
				if !q.Has("limit") {
					q.Set("limit", "25")
				}
			}),
		},
		{
			Name:    "list-default-10",
			Fault:   "Without limit, the listing returns 10 animals, the framework's page size, not the default 20 (caught in strict mode: a Should rule).",
			Catch:   []string{"listPets/default-limit-exact"},
			Options: strict,
			Wrap: kit.Query(kit.IsList, func(q url.Values) {
				if !q.Has("limit") {
					q.Set("limit", "10")
				}
			}),
		},
		{
			Name:      "list-limit-off-by-one",
			Fault:     "Listings return one animal more than the limit (<= instead of < in the loop), without limit 21.",
			Catch:     []string{"listPets/default-limit", "listPets/limit-min", "listPets/status-and-limit"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/empty-array", "listPets/status-available", "listPets/status-default-limit", "listPets/cases-anatomy"},
			Wrap: kit.RespondNext(kit.IsList, func(next http.Handler, r *http.Request, rp *kit.Reply) {
				q := r.URL.Query()
				n, err := strconv.ParseInt(q.Get("limit"), 10, 64)
				if !q.Has("limit") {
					n, err = f.limit.Default, nil
				}
				if err != nil || n < f.limit.Min || n > f.limit.Max || rp.Status != http.StatusOK {
					return
				}
				var out []any
				for _, p := range listAll(f, next, r) {
					if s := q.Get("status"); (s == "" || p.(map[string]any)["status"] == s) && int64(len(out)) <= n {
						out = append(out, p)
					}
				}
				rp.SetJSON(http.StatusOK, out)
			}),
		},
		{
			Name:      "list-limit-ignored",
			Fault:     "The limit parameter is ignored: every listing holds the default 20 animals.",
			Catch:     []string{"listPets/limit-min", "listPets/status-and-limit"},
			AlsoFails: []string{"listPets/cases-query", "listPets/cases-anatomy"},
			Wrap:      kit.Query(kit.IsList, func(q url.Values) { q.Del("limit") }),
		},
		{
			Name: "list-limit-capped-" + half,
			Fault: "limit values above " + half + " are silently lowered to " + half + ", so limit=" + max + " never returns more than " + half + " animals " +
				"(caught in strict mode: limit is a maximum, so the full page is a Should rule).",
			Catch:   []string{"listPets/limit-max-full"},
			Options: strict,
			Config:  seed(f, int(f.limit.Max)+20),
			Wrap: kit.Query(kit.IsList, func(q url.Values) {
				if n, err := strconv.ParseInt(q.Get("limit"), 10, 64); err == nil && n > f.limit.Max/2 && n <= f.limit.Max {
					q.Set("limit", half)
				}
			}),
		},
		{
			Name:      "list-no-upper-bound",
			Fault:     "limit above " + max + " is not refused: limit=1000 returns every animal in the store.",
			Catch:     []string{"listPets/limit-above-max", "listPets/limit-far-above-max"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-query"},
			Config:    seed(f, beyondMax),
			Wrap:      unbounded(f, func(n int64) bool { return n > f.limit.Max }),
		},
		{
			Name:      "list-limit-cap-500",
			Fault:     "limit is checked against 500, the server's own page cap, instead of " + max + ": limit=" + above + " returns " + above + " animals.",
			Catch:     []string{"listPets/limit-above-max"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-query"},
			Config:    seed(f, beyondMax),
			Wrap:      unbounded(f, func(n int64) bool { return n > f.limit.Max && n <= 500 }),
		},
		{
			Name:      "list-negative-unbounded",
			Fault:     "A negative limit means no limit, as LIMIT -1 does in SQLite: limit=-1 returns every animal.",
			Catch:     []string{"listPets/limit-negative"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-query"},
			Config:    seed(f, beyondMax),
			Wrap:      unbounded(f, func(n int64) bool { return n < 0 }),
		},
		{
			Name:      "list-limit-fraction-500",
			Fault:     "A fractional limit (1.5) passes the float parser and fails the integer conversion: 500 instead of a 4xx.",
			Catch:     []string{"listPets/limit-fraction"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-query"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				v := r.URL.Query().Get("limit")
				_, err := strconv.ParseFloat(v, 64)
				return kit.IsList(r) && strings.Contains(v, ".") && err == nil
			}),
		},
		{
			Name:      "list-limit-zero-500",
			Fault:     "limit=0 reaches the page computation and divides by zero: 500 instead of a 4xx or an empty list.",
			Catch:     []string{"listPets/limit-below-min"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-query"},
			Wrap:      kit.CrashWhen(func(r *http.Request) bool { return kit.IsList(r) && r.URL.Query().Get("limit") == "0" }),
		},
		{
			Name:  "list-status-ignored",
			Fault: "The status filter is ignored: a filtered listing holds animals of every status.",
			// Not the first status's rule: the first page holds only animals of that status
			// (listPets/status-default-limit prepared more than a page of them first).
			Catch:     append(slices.Clone(statusRules[1:]), "listPets/status-and-limit"),
			AlsoFails: []string{"listPets/cases-query"},
			Wrap:      kit.Query(kit.IsList, func(q url.Values) { q.Del("status") }),
		},
		{
			Name:  "list-status-needs-limit",
			Fault: "The status filter is applied only when limit is given too: the default-page code path forgets it.",
			// Not the first status's rule, as for list-status-ignored.
			Catch:     statusRules[1:],
			AlsoFails: []string{"listPets/cases-query"},
			Wrap: kit.Query(kit.IsList, func(q url.Values) {
				if !q.Has("limit") {
					q.Del("status")
				}
			}),
		},
		{
			Name:      "list-status-leaks-one",
			Fault:     "A status-filtered listing ends with one animal of another status (an off-by-one in the index scan).",
			Catch:     append(statusRules, "listPets/status-and-limit"),
			AlsoFails: []string{"listPets/cases-query", "listPets/status-default-limit"},
			Wrap: kit.RespondNext(kit.IsList, func(next http.Handler, r *http.Request, rp *kit.Reply) {
				status := r.URL.Query().Get("status")
				if status == "" || rp.Status != http.StatusOK {
					return
				}
				var other any
				for _, p := range listAll(f, next, r) {
					if p.(map[string]any)["status"] != status {
						other = p
						break
					}
				}
				rp.EditJSON(func(v any) any {
					list, _ := v.([]any)
					if other == nil {
						return list
					}
					if len(list) == 0 {
						return []any{other}
					}
					list[len(list)-1] = other
					return list
				})
			}),
		},
		{
			Name:      "list-status-no-default",
			Fault:     "A status-filtered listing without limit skips the default and returns every matching animal.",
			Catch:     []string{"listPets/status-default-limit"},
			AlsoFails: []string{"listPets/cases-query", "listPets/status-available", "listPets/status-pending", "listPets/status-sold"},
			Config:    seed(f, int(f.limit.Default)*len(f.statuses)+30), // more of each status than the default
			Wrap: kit.RespondNext(kit.IsList, func(next http.Handler, r *http.Request, rp *kit.Reply) {
				q := r.URL.Query()
				if q.Get("status") == "" || q.Has("limit") || rp.Status != http.StatusOK {
					return
				}
				var out []any
				for _, p := range listAll(f, next, r) {
					if p.(map[string]any)["status"] == q.Get("status") {
						out = append(out, p)
					}
				}
				rp.SetJSON(http.StatusOK, out)
			}),
		},
		{
			Name:      "list-repeats-last",
			Fault:     "A listing of two or more animals repeats its first animal in place of the last (a join that duplicates a row).",
			Catch:     append([]string{"listPets/bare-array", "listPets/limit-max"}, statusRules...),
			AlsoFails: []string{"listPets/default-limit", "listPets/status-default-limit"},
			Wrap: kit.OnSuccess(kit.IsList, func(rp *kit.Reply) {
				rp.EditJSON(func(v any) any {
					if list, ok := v.([]any); ok && len(list) > 1 {
						list[len(list)-1] = list[0]
					}
					return v
				})
			}),
		},
		{
			Name:       "list-wrapped",
			Fault:      `The listing is wrapped in an object, {"items": [...], "count": n}, instead of a bare array.`,
			Catch:      []string{"listPets/bare-array"},
			AlsoFails:  []string{"listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/default-limit", "listPets/limit-max", "listPets/limit-min", "listPets/status-and-limit", "listPets/status-available", "listPets/status-default-limit", "listPets/status-pending", "listPets/status-sold", "versioning/base-url", "listPets/cases-anatomy"},
			AlsoErrors: []string{"getPet/listed-returned", "listPets/default-limit-exact"},
			Wrap: kit.OnSuccess(kit.IsList, func(rp *kit.Reply) {
				rp.EditJSON(func(v any) any {
					list, _ := v.([]any)
					return map[string]any{"items": list, "count": len(list)}
				})
			}),
		},
		{
			Name:      "list-no-category-id",
			Fault:     "Listed animals lack categoryId (the listing uses a summary projection without it).",
			Catch:     []string{"listPets/bare-array"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/default-limit", "listPets/limit-max", "listPets/limit-min", "listPets/status-and-limit", "listPets/status-available", "listPets/status-default-limit", "listPets/status-pending", "listPets/status-sold", "versioning/base-url", "listPets/cases-anatomy"},
			Wrap:      kit.OnSuccess(kit.IsList, func(rp *kit.Reply) { rp.EditJSON(kit.EachObject(func(m map[string]any) { delete(m, "categoryId") })) }),
		},
		{
			Name:      "list-id-as-string",
			Fault:     `Listed ids are JSON strings ("7") instead of integers.`,
			Catch:     []string{"listPets/bare-array"},
			AlsoFails: []string{"getPet/listed-returned", "listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/default-limit", "listPets/limit-max", "listPets/limit-min", "listPets/status-and-limit", "listPets/status-available", "listPets/status-default-limit", "listPets/status-pending", "listPets/status-sold", "versioning/base-url", "listPets/cases-anatomy"},
			Wrap: kit.OnSuccess(kit.IsList, func(rp *kit.Reply) {
				rp.EditJSON(kit.EachObject(func(m map[string]any) { m["id"] = fmt.Sprint(m["id"]) }))
			}),
		},
		{
			Name:      "list-status-upper-case",
			Fault:     "Listed statuses are upper case (AVAILABLE), outside the enumeration.",
			Catch:     append([]string{"listPets/bare-array"}, statusRules...),
			AlsoFails: []string{"getPet/listed-returned", "listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/default-limit", "listPets/limit-max", "listPets/limit-min", "listPets/status-and-limit", "listPets/status-default-limit", "versioning/base-url", "listPets/cases-anatomy"},
			Wrap: kit.OnSuccess(kit.IsList, func(rp *kit.Reply) {
				rp.EditJSON(kit.EachObject(func(m map[string]any) {
					if s, ok := m["status"].(string); ok {
						m["status"] = strings.ToUpper(s)
					}
				}))
			}),
		},
		{
			Name:      "list-unknown-status-500",
			Fault:     "An unknown status filter value crashes the handler: 500 instead of a 4xx or an empty list.",
			Catch:     []string{"listPets/status-unknown"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-query"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				s, ok := r.URL.Query()["status"]
				return kit.IsList(r) && ok && !slices.Contains(f.statuses, s[0])
			}),
		},
	}
}

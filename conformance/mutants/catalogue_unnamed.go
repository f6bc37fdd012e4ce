package mutants

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// Faults no one named: the ones servers written the usual way for their framework showed
// just beside what the generated cases named (issue 23). Each is caught by a variant that
// exists for that class: a rejected key combined with another bad part, the key offered
// elsewhere, a name a normaliser changes, two creates of the same fields, the empty
// listing, a path far beyond int64.
func unnamedMutants(*facts) []Mutant {
	return []Mutant{
		{
			Name:  "auth-malformed-body-first",
			Fault: "The body is parsed before the key is checked: a body that is not JSON gets 400 without a key (a framework's body parser runs first).",
			Catch: []string{"createPet/cases-auth"},
			Wrap: beforeAuth(kit.IsCreate, func(r *http.Request, body []byte) int {
				if len(body) > 0 && !json.Valid(body) {
					return http.StatusBadRequest
				}
				return 0
			}),
			AlsoFails: []string{"createPet/cases-anatomy"},
		},
		{
			Name:  "auth-oversized-body-first",
			Fault: "A body over 64 KiB gets 413 before the key is checked (a size limit in front of authentication).",
			Catch: []string{"createPet/cases-auth"},
			Wrap: beforeAuth(kit.IsCreate, func(r *http.Request, body []byte) int {
				if len(body) > 64<<10 {
					return http.StatusRequestEntityTooLarge
				}
				return 0
			}),
		},
		{
			Name:  "auth-bad-limit-first",
			Fault: "GET /pets validates limit before the key: a limit that is not an integer gets 400 without a key.",
			Catch: []string{"listPets/cases-auth"},
			Wrap: beforeAuth(kit.IsList, func(r *http.Request, _ []byte) int {
				if v := r.URL.Query().Get("limit"); v != "" {
					if _, err := strconv.Atoi(v); err != nil {
						return http.StatusBadRequest
					}
				}
				return 0
			}),
		},
		{
			Name:  "auth-key-in-query-api-key",
			Fault: "The key is also read from ?api_key= (a gateway's default API-key location).",
			Catch: []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Wrap:  kit.Request(func(r *http.Request) bool { return r.URL.Query().Get("api_key") == Key }, authorize),
		},
		{
			Name:  "auth-key-in-cookie",
			Fault: "The key is also read from a cookie named api_key (a session middleware's default).",
			Catch: []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Wrap: kit.Request(func(r *http.Request) bool {
				c, err := r.Cookie("api_key")
				return err == nil && c.Value == Key
			}, authorize),
		},
		{
			Name:  "auth-x-api-key",
			Fault: "The key is also read from an X-API-Key header field, and takes precedence over Authorization.",
			Catch: []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Wrap:  kit.Request(func(r *http.Request) bool { return r.Header.Get("X-API-Key") == Key }, authorize),
		},
		{
			Name:  "get-long-id-500",
			Fault: "GET /pets/{petId} copies the id into a fixed buffer before the key is checked: an id of more than 100 digits crashes (500), with a key or without.",
			Catch: []string{"getPet/cases-path", "getPet/cases-auth"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				return kit.IsGet(r) && len(r.URL.Path)-strings.LastIndex(r.URL.Path, "/") > 101
			}),
		},
		{
			Name:  "create-name-lowercased",
			Fault: "Names are stored in lower case (a case-insensitive collation, or a normaliser in the model).",
			Catch: []string{"createPet/cases-fields"},
			Wrap:  cleanObject(func(m map[string]any) { m["name"] = lower(m["name"]) }),
		},
		{
			Name:  "create-name-trimmed",
			Fault: "Names are stored without surrounding white space (a framework's trim-strings middleware).",
			Catch: []string{"createPet/cases-fields"},
			Wrap:  cleanObject(func(m map[string]any) { m["name"] = trim(m["name"]) }),
		},
		{
			Name:      "create-upsert-by-name",
			Fault:     "A create whose name an animal already has updates that animal and answers it (an upsert keyed by name): two creates of the same fields make one animal.",
			Catch:     []string{"createPet/same-fields-twice"},
			AlsoFails: []string{"createPet/cases-fields"},
			Wrap:      upsertByName(),
		},
		{
			Name:  "list-empty-null",
			Fault: "An empty listing is sent as null (a nil slice encoded as it is).",
			Catch: []string{"listPets/empty-array"},
			Wrap: kit.OnSuccess(kit.IsList, func(rp *kit.Reply) {
				if string(bytes.TrimSpace(rp.Body)) == "[]" {
					rp.Body = []byte("null\n")
				}
			}),
		},
	}
}

// beforeAuth answers the matching requests without a valid key with an Error record of the
// status refuse gives (0: none), as a check in front of authentication does.
func beforeAuth(when func(*http.Request) bool, refuse func(r *http.Request, body []byte) int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if when(r) && !keyed(r) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if status := refuse(r, body); status != 0 {
					kit.Fail(w, status, "invalid_request", http.StatusText(status))
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// keyed: r presents the key as the document fixes, in one Authorization field: what gets
// past the reference's key check to a handler behind it.
func keyed(r *http.Request) bool {
	vs := r.Header.Values("Authorization")
	return len(vs) == 1 && vs[0] == "Bearer "+Key
}

func lower(v any) any {
	if s, ok := v.(string); ok {
		return strings.ToLower(s)
	}
	return v
}

func trim(v any) any {
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s)
	}
	return v
}

// upsertByName answers a valid create whose name was created before with the animal first
// created under it, its other fields updated, and 201.
func upsertByName() func(http.Handler) http.Handler {
	var mu sync.Mutex
	byName := map[string]map[string]any{}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !kit.IsCreate(r) {
				next.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var sent map[string]any
			_ = kit.Decode(body, &sent)
			name, _ := sent["name"].(string)
			mu.Lock()
			old, ok := byName[name]
			mu.Unlock()
			if ok && keyed(r) {
				pet := map[string]any{"id": old["id"]}
				for k, v := range sent {
					pet[k] = v
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				_ = json.NewEncoder(w).Encode(pet)
				return
			}
			rp := kit.Capture(next, r)
			var pet map[string]any
			if rp.Status == http.StatusCreated && kit.Decode(rp.Body, &pet) && name != "" {
				mu.Lock()
				byName[name] = pet
				mu.Unlock()
			}
			rp.Send(w)
		})
	}
}

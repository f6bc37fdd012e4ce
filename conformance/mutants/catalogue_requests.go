package mutants

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// Request-side faults: how a server reads what it is sent, the faults real frameworks'
// defaults produce (a decoder that coerces, a field matcher that ignores case, a parser that
// stops at the first value, numbers through float64, validation in front of
// authentication). Each is caught by a family of generated cases. The function is long
// because it is a table: one literal per mutant.
func requestMutants(f *facts) []Mutant {
	return []Mutant{
		{
			Name:      "create-coercing-decoder",
			Fault:     "The body decoder coerces types: a categoryId sent as a string of digits is taken as the number, a name sent as a number as its text.",
			Catch:     []string{"createPet/cases-fields", "createPet/categoryId-string"},
			AlsoFails: []string{"createPet/name-not-string"},
			Wrap: cleanObject(func(m map[string]any) {
				if s, ok := m["categoryId"].(string); ok {
					if _, err := strconv.ParseInt(s, 10, 64); err == nil {
						m["categoryId"] = json.Number(s)
					}
				}
				if n, ok := m["name"].(json.Number); ok {
					m["name"] = n.String()
				}
			}),
		},
		{
			Name:  "create-case-insensitive-fields",
			Fault: "Body fields are matched case-insensitively, as encoding/json does: \"Name\" or \"NAME\" fills name, the last spelling winning.",
			Catch: []string{"createPet/cases-fields"},
			Wrap: kit.Body(kit.IsCreate, func(_ *http.Request, b []byte) []byte {
				var members []member
				if !wellFormed(b) || !readMembers(b, &members) {
					return b
				}
				out := map[string]json.RawMessage{}
				for _, m := range members {
					name := m.name
					for _, known := range []string{"name", "categoryId", "status"} {
						if strings.EqualFold(name, known) {
							name = known
						}
					}
					out[name] = m.value
				}
				nb, _ := json.Marshal(out)
				return nb
			}),
		},
		{
			Name:  "create-trailing-data-ignored",
			Fault: "The body parser reads the first JSON value and ignores what follows it (json.Decoder.Decode once).",
			Catch: []string{"createPet/cases-body"},
			Wrap: kit.Body(kit.IsCreate, func(_ *http.Request, b []byte) []byte {
				dec := json.NewDecoder(bytes.NewReader(b))
				var v json.RawMessage
				if dec.Decode(&v) != nil {
					return b
				}
				return v
			}),
		},
		{
			// READINGS.md: SHOULD (RFC 8259 8.1 binds the sender, 9 lets a parser take more),
			// so only a strict run fails it.
			Name:    "create-invalid-utf8-replaced",
			Fault:   "Bytes that are not UTF-8 in a body are replaced with U+FFFD and the animal is created (caught in strict mode: a SHOULD reading).",
			Catch:   []string{"createPet/cases-body"},
			Options: strict,
			Wrap: kit.Body(kit.IsCreate, func(_ *http.Request, b []byte) []byte {
				return bytes.ToValidUTF8(b, []byte("\uFFFD"))
			}),
		},
		{
			Name:  "create-float64-numbers",
			Fault: "Numbers in the body go through float64, as in JavaScript: a valid int64 beyond 2^53 is stored rounded.",
			Catch: []string{"createPet/cases-fields"},
			Wrap: kit.Body(kit.IsCreate, func(_ *http.Request, b []byte) []byte {
				var m map[string]any
				if !wellFormed(b) || json.Unmarshal(b, &m) != nil || m == nil {
					return b
				}
				if n, ok := m["categoryId"].(float64); ok && n == float64(int64(n)) && n < 9e18 && n > -9e18 {
					m["categoryId"] = int64(n)
				}
				nb, _ := json.Marshal(m)
				return nb
			}),
		},
		{
			Name:  "create-status-null-accepted",
			Fault: "\"status\": null is taken as no status, and the animal is created " + f.withoutStatus + ".",
			Catch: []string{"createPet/cases-fields"},
			Wrap: cleanObject(func(m map[string]any) {
				if v, ok := m["status"]; ok && v == nil {
					f.loseStatus(m)
				}
			}),
		},
		{
			Name:  "create-validation-before-auth",
			Fault: "The body is validated before the key is checked: an invalid body without a key gets 400, not 401.",
			Catch: []string{"createPet/cases-auth"},
			Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if kit.IsCreate(r) {
						var b bytes.Buffer
						_, _ = b.ReadFrom(r.Body)
						var m struct {
							Name       *string      `json:"name"`
							CategoryID *json.Number `json:"categoryId"`
						}
						if json.Unmarshal(b.Bytes(), &m) != nil || m.Name == nil || m.CategoryID == nil {
							kit.Fail(w, http.StatusBadRequest, "invalid_request", "invalid body")
							return
						}
						r.Body = io.NopCloser(&b)
					}
					next.ServeHTTP(w, r)
				})
			},
			AlsoFails: []string{"createPet/cases-anatomy"},
		},
		{
			Name:      "create-content-type-missing-500",
			Fault:     "The body reader dispatches on Content-Type and crashes (500) when the header is absent.",
			Catch:     []string{"createPet/cases-headers"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body"}, // no body and no Content-Type (glue-4)
			Wrap:      kit.CrashWhen(func(r *http.Request) bool { return kit.IsCreate(r) && r.Header.Get("Content-Type") == "" }),
		},
		{
			Name:  "create-charset-500",
			Fault: "The media type is compared as a whole string, and a Content-Type with a charset parameter crashes the body reader (500), which runs after the key is checked.",
			Catch: []string{"createPet/cases-headers"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				return kit.IsCreate(r) && keyed(r) && strings.HasPrefix(r.Header.Get("Content-Type"), "application/json;")
			}),
		},
		{
			Name:  "auth-query-token-list",
			Fault: "GET /pets also takes the key as ?access_token= (RFC 6750's query form, on by default in some bearer middlewares).",
			Catch: []string{"listPets/cases-auth"},
			Wrap:  kit.Request(func(r *http.Request) bool { return kit.IsList(r) && r.URL.Query().Get("access_token") == Key }, authorize),
		},
		{
			Name:  "get-404-before-auth",
			Fault: "GET /pets/{petId} looks the animal up before checking the key: an unknown id gets 404 without a key, telling strangers which ids exist.",
			Catch: []string{"getPet/cases-auth"},
			Wrap: kit.RespondNext(kit.IsGet, func(next http.Handler, r *http.Request, rp *kit.Reply) {
				if rp.Status != http.StatusUnauthorized {
					return
				}
				probe := r.Clone(r.Context())
				authorize(probe)
				if found := kit.Capture(next, probe); found.Status == http.StatusNotFound {
					*rp = *found
				}
			}),
		},
		{
			Name:  "auth-lenient-token",
			Fault: "The Authorization field is split on white space and its second word compared with the key: text after the token is ignored.",
			Catch: []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Wrap: kit.Request(func(r *http.Request) bool {
				words := strings.Fields(r.Header.Get("Authorization"))
				return len(words) > 2 && strings.EqualFold(words[0], "Bearer") && words[1] == Key
			}, authorize),
		},
		{
			Name: "list-unknown-param-no-default",
			Fault: "A listing with a query parameter other than limit and status takes it as a filter and forgets the default limit: it answers " +
				"up to " + strconv.FormatInt(f.limit.Max, 10) + " animals.",
			Catch: []string{"listPets/cases-query"},
			Wrap: kit.Query(kit.IsList, func(q url.Values) {
				for k := range q {
					if k != "limit" && k != "status" && q.Get("limit") == "" {
						q.Set("limit", strconv.FormatInt(f.limit.Max, 10))
					}
				}
			}),
			AlsoFails: []string{"listPets/cases-anatomy"},
		},
		{
			Name:  "list-accept-exact-406",
			Fault: "Content negotiation on GET /pets takes only Accept: application/json exactly; a wildcard such as application/* gets 406.",
			Catch: []string{"listPets/cases-headers"},
			Wrap:  refuseAccept(kit.IsList, "application/*"),
		},
		{
			Name:  "get-accept-any-406",
			Fault: "GET /pets/{petId} answers Accept: */* with 406 Not Acceptable.",
			Catch: []string{"getPet/cases-headers"},
			Wrap:  refuseAccept(kit.IsGet, "*/*"),
		},
		{
			Name:  "get-negative-id-500",
			Fault: "GET /pets/{petId} indexes the store with the id and crashes (500) on a negative one (the handler runs after the key is checked).",
			Catch: []string{"getPet/cases-path"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				n, err := strconv.ParseInt(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], 10, 64)
				return kit.IsGet(r) && keyed(r) && err == nil && n < 0
			}),
		},
	}
}

// wellFormed reports whether b is one JSON value in UTF-8: a fault that rewrites bodies
// leaves the others alone, so that it stays one fault (re-encoding would also repair bad
// UTF-8 and drop trailing data, which other mutants are about).
func wellFormed(b []byte) bool { return utf8.Valid(b) && json.Valid(b) }

// cleanObject changes the well-formed createPet bodies that are JSON objects.
func cleanObject(edit func(m map[string]any)) func(http.Handler) http.Handler {
	return kit.BodyObject(func(r *http.Request) bool {
		if !kit.IsCreate(r) {
			return false
		}
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		return wellFormed(b)
	}, edit)
}

// refuseAccept answers 406 with an Error record to the matching requests that accept only
// the media range accept.
func refuseAccept(when func(*http.Request) bool, accept string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if when(r) && r.Header.Get("Accept") == accept {
				kit.Fail(w, http.StatusNotAcceptable, "not_acceptable", "only application/json is served")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// member is one name and value of a JSON object, in order, duplicates kept.
type member struct {
	name  string
	value json.RawMessage
}

// readMembers reads the members of a JSON object in order.
func readMembers(b []byte, out *[]member) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok {
			return false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
		*out = append(*out, member{name, v})
	}
	return true
}

// routeMutants are faults of the routing layer, in front of the operations.
func routeMutants(*facts) []Mutant {
	return []Mutant{{
		Name:  "errors-route-miss-text-plain",
		Fault: "A path no operation has, or a method the path does not take, gets the router's own plain-text answer (404 page not found), not an Error record.",
		Catch: []string{"errors/cases-routes"},
		Wrap: kit.Respond(kit.AnyRequest, func(r *http.Request, rp *kit.Reply) {
			// The reference's own answer to a route miss ("no such resource") or a wrong
			// method, not to an unknown pet.
			if rp.Status == http.StatusNotFound && bytes.Contains(rp.Body, []byte("no such resource")) || rp.Status == http.StatusMethodNotAllowed {
				rp.Header = http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
				rp.Body = []byte("404 page not found\n")
				rp.Status = http.StatusNotFound
			}
		}),
		AlsoFails: []string{"createPet/cases-anatomy", "getPet/cases-anatomy", "listPets/cases-anatomy"},
	}, {
		Name: "errors-write-method-text-plain",
		Fault: "PUT, PATCH or DELETE on a path that does not take it gets the router's plain-text 405 (a framework's method table), " +
			"not an Error record; other methods are answered well.",
		Catch: []string{"errors/cases-routes"},
		Wrap: kit.Respond(func(r *http.Request) bool {
			return r.Method == http.MethodPut || r.Method == http.MethodPatch || r.Method == http.MethodDelete
		}, func(_ *http.Request, rp *kit.Reply) {
			if rp.Status == http.StatusMethodNotAllowed {
				rp.Header = http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "Allow": rp.Header["Allow"]}
				rp.Body = []byte("405 method not allowed\n")
			}
		}),
	}}
}

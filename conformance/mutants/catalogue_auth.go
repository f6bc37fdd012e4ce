package mutants

import (
	"net/http"
	"strings"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants/kit"
)

// authorize makes the reference server see the valid key: the way a fault lets a request
// in that it should have refused.
func authorize(r *http.Request) { r.Header.Set("Authorization", "Bearer "+Key) }

// unauthorized changes the 401 answers.
func unauthorized(edit func(r *http.Request, rp *kit.Reply)) func(http.Handler) http.Handler {
	return kit.Respond(kit.AnyRequest, func(r *http.Request, rp *kit.Reply) {
		if rp.Status == http.StatusUnauthorized {
			edit(r, rp)
		}
	})
}

func strict(o *conformance.Options) { o.Strict = true }

// authMutants are the faults of section 3 (authentication). The function is long because it
// is a table: one literal per mutant, each with its fault, its wrapper and the rule that
// must catch it.
func authMutants(*facts) []Mutant {
	scheme := func(r *http.Request) (string, string) {
		s, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		return s, token
	}
	return []Mutant{
		{
			Name:      "auth-open-list",
			Fault:     "GET /pets lets requests without an Authorization header in (the route was left public).",
			Catch:     []string{"auth/listPets-missing", "errors/unauthorized"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-anatomy"},
			Wrap: kit.Request(func(r *http.Request) bool { return kit.IsList(r) && r.Header.Get("Authorization") == "" },
				authorize),
		},
		{
			Name:      "auth-open-get",
			Fault:     "GET /pets/{petId}, a legacy route registered outside the auth middleware, needs no key.",
			Catch:     []string{"auth/getPet-missing", "auth/getPet-wrong-key"},
			AlsoFails: []string{"auth/getPet-basic", "auth/getPet-empty-token", "auth/getPet-near-key", "auth/getPet-not-bearer", "getPet/cases-auth", "getPet/cases-anatomy"},
			Wrap:      kit.Request(kit.IsGet, authorize),
		},
		{
			Name:      "auth-open-create",
			Fault:     "POST /pets without an Authorization header is served as an anonymous client instead of refused.",
			Catch:     []string{"auth/createPet-missing"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-anatomy"},
			Wrap: kit.Request(func(r *http.Request) bool { return kit.IsCreate(r) && r.Header.Get("Authorization") == "" },
				authorize),
		},
		{
			Name:      "auth-key-prefix",
			Fault:     "The key is compared by prefix (strings.HasPrefix), so any token that starts with the key is accepted.",
			Catch:     []string{"auth/listPets-near-key", "auth/createPet-near-key", "auth/getPet-near-key"},
			AlsoFails: []string{"createPet/cases-auth", "getPet/cases-auth", "listPets/cases-auth"},
			Wrap: kit.Request(func(r *http.Request) bool {
				s, token := scheme(r)
				// Only a token that is not the key: the key itself goes through untouched (two
				// fields holding it are the reference's to refuse, not this fault's).
				return strings.EqualFold(s, "Bearer") && strings.HasPrefix(token, Key) && token != Key
			}, authorize),
		},
		{
			Name:  "auth-key-case-insensitive",
			Fault: "The key is compared case-insensitively (strings.EqualFold), so the key with its case flipped is accepted.",
			Catch: []string{"auth/listPets-near-key", "auth/createPet-near-key", "auth/getPet-near-key"},
			Wrap: kit.Request(func(r *http.Request) bool {
				s, token := scheme(r)
				return strings.EqualFold(s, "Bearer") && strings.EqualFold(token, Key) && token != Key
			}, authorize),
		},
		{
			Name:      "auth-empty-token-accepted",
			Fault:     `An empty bearer token matches the empty key that a trailing comma in the key list ("k1,") configured.`,
			Catch:     []string{"auth/listPets-empty-token", "auth/createPet-empty-token", "auth/getPet-empty-token"},
			AlsoFails: []string{"createPet/cases-auth", "getPet/cases-auth", "listPets/cases-auth"},
			Wrap: kit.Request(func(r *http.Request) bool {
				s, token := scheme(r)
				return strings.EqualFold(s, "Bearer") && strings.TrimSpace(token) == ""
			}, authorize),
		},
		{
			Name:  "auth-any-key",
			Fault: "Any non-empty bearer token is accepted: the key is never compared.",
			Catch: []string{"auth/listPets-wrong-key", "auth/createPet-wrong-key", "auth/getPet-wrong-key"},
			AlsoFails: []string{
				"auth/createPet-near-key", "auth/getPet-near-key", "auth/listPets-near-key", "createPet/cases-auth",
				"getPet/cases-auth", "listPets/cases-auth",
			},
			Wrap: kit.Request(func(r *http.Request) bool {
				s, token := scheme(r)
				return strings.EqualFold(s, "Bearer") && strings.TrimSpace(token) != ""
			}, authorize),
		},
		{
			Name:      "auth-any-scheme",
			Fault:     "The scheme is not checked: the key is accepted after any word (Token, Key, Basic).",
			Catch:     []string{"auth/listPets-not-bearer", "auth/createPet-not-bearer", "auth/getPet-not-bearer"},
			AlsoFails: []string{"createPet/cases-auth", "getPet/cases-auth", "listPets/cases-auth"},
			Wrap: kit.Request(func(r *http.Request) bool {
				_, token := scheme(r)
				return token == Key
			}, authorize),
		},
		{
			Name:  "auth-basic-accepted",
			Fault: "HTTP Basic credentials with the key as the user name are accepted as well as the bearer token.",
			Catch: []string{"auth/listPets-basic", "auth/createPet-basic", "auth/getPet-basic"},
			Wrap: kit.Request(func(r *http.Request) bool {
				user, _, ok := r.BasicAuth()
				return ok && user == Key
			}, authorize),
		},
		{
			Name:      "auth-redirect-to-login",
			Fault:     "A request without a valid key is redirected (302) to a login page, as a web framework's default.",
			Catch:     []string{"auth/listPets-missing", "auth/createPet-missing", "auth/getPet-missing", "errors/unauthorized"},
			AlsoFails: []string{"auth/createPet-basic", "auth/createPet-empty-token", "auth/createPet-near-key", "auth/createPet-not-bearer", "auth/createPet-wrong-key", "auth/getPet-basic", "auth/getPet-empty-token", "auth/getPet-near-key", "auth/getPet-not-bearer", "auth/getPet-wrong-key", "auth/listPets-basic", "auth/listPets-empty-token", "auth/listPets-near-key", "auth/listPets-not-bearer", "auth/listPets-wrong-key", "createPet/cases-auth", "getPet/cases-auth", "listPets/cases-auth", "createPet/cases-anatomy", "getPet/cases-anatomy", "listPets/cases-anatomy"},
			Wrap: unauthorized(func(_ *http.Request, rp *kit.Reply) {
				rp.Status, rp.Body = http.StatusFound, nil
				rp.Header = http.Header{"Location": {"/login"}}
			}),
		},
		{
			Name:      "auth-401-empty",
			Fault:     "A 401 has no body.",
			Catch:     []string{"auth/listPets-missing", "errors/unauthorized"},
			AlsoFails: []string{"auth/createPet-basic", "auth/createPet-empty-token", "auth/createPet-missing", "auth/createPet-near-key", "auth/createPet-not-bearer", "auth/createPet-wrong-key", "auth/getPet-basic", "auth/getPet-empty-token", "auth/getPet-missing", "auth/getPet-near-key", "auth/getPet-not-bearer", "auth/getPet-wrong-key", "auth/listPets-basic", "auth/listPets-empty-token", "auth/listPets-near-key", "auth/listPets-not-bearer", "auth/listPets-wrong-key", "createPet/cases-auth", "getPet/cases-auth", "listPets/cases-auth", "createPet/cases-anatomy", "getPet/cases-anatomy", "listPets/cases-anatomy"},
			Wrap: unauthorized(func(_ *http.Request, rp *kit.Reply) {
				rp.Body = nil
				rp.Header.Del("Content-Type")
			}),
		},
		{
			Name:      "auth-401-status-400",
			Fault:     "The Error record of a 401 says status 400 (copied from the bad-request path).",
			Catch:     []string{"errors/unauthorized", "auth/listPets-missing"},
			AlsoFails: []string{"auth/createPet-basic", "auth/createPet-empty-token", "auth/createPet-missing", "auth/createPet-near-key", "auth/createPet-not-bearer", "auth/createPet-wrong-key", "auth/getPet-basic", "auth/getPet-empty-token", "auth/getPet-missing", "auth/getPet-near-key", "auth/getPet-not-bearer", "auth/getPet-wrong-key", "auth/listPets-basic", "auth/listPets-empty-token", "auth/listPets-near-key", "auth/listPets-not-bearer", "auth/listPets-wrong-key", "createPet/cases-auth", "getPet/cases-auth", "listPets/cases-auth", "createPet/cases-anatomy", "getPet/cases-anatomy", "listPets/cases-anatomy"},
			Wrap: unauthorized(func(_ *http.Request, rp *kit.Reply) {
				rp.EditJSON(kit.EachObject(func(m map[string]any) { m["status"] = 400 }))
			}),
		},
		{
			Name:  "auth-403-wrong-key",
			Fault: "A request with an invalid key gets 403 Forbidden instead of 401 (a missing key still gets 401).",
			Catch: []string{"auth/listPets-wrong-key", "auth/createPet-wrong-key", "auth/getPet-wrong-key"},
			AlsoFails: []string{
				"auth/createPet-basic", "auth/createPet-empty-token", "auth/createPet-near-key",
				"auth/createPet-not-bearer", "auth/getPet-basic", "auth/getPet-empty-token", "auth/getPet-near-key",
				"auth/getPet-not-bearer", "auth/listPets-basic", "auth/listPets-empty-token", "auth/listPets-near-key",
				"auth/listPets-not-bearer", "createPet/cases-auth", "getPet/cases-auth", "listPets/cases-auth",
			},
			Wrap: unauthorized(func(r *http.Request, rp *kit.Reply) {
				if r.Header.Get("Authorization") != "" {
					rp.SetJSON(http.StatusForbidden, map[string]any{"code": "forbidden", "message": "invalid API key", "status": 403})
					rp.Header.Del("WWW-Authenticate")
				}
			}),
		},
		{
			Name:    "auth-no-challenge",
			Fault:   "A 401 carries no WWW-Authenticate header (caught in strict mode: a Should rule).",
			Catch:   []string{"auth/listPets-www-authenticate", "auth/createPet-www-authenticate", "auth/getPet-www-authenticate"},
			Options: strict,
			Wrap:    unauthorized(func(_ *http.Request, rp *kit.Reply) { rp.Header.Del("WWW-Authenticate") }),
		},
		{
			Name:  "auth-bare-key",
			Fault: "An Authorization value without a scheme is taken as the key itself (a gateway that also takes bare tokens).",
			Catch: []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Wrap:  kit.Request(func(r *http.Request) bool { return r.Header.Get("Authorization") == Key }, authorize),
		},
		{
			Name:    "auth-last-field-wins",
			Fault:   "Of two Authorization fields the last one is read (a proxy appends the client's field after its own; caught in strict mode: refusing two fields is SHOULD).",
			Catch:   []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Options: strict,
			Wrap: kit.Request(func(r *http.Request) bool {
				v := r.Header.Values("Authorization")
				return len(v) > 1 && v[len(v)-1] == "Bearer "+Key
			}, authorize),
		},
		{
			Name:    "auth-repeated-field-collapsed",
			Fault:   "Two Authorization fields with the same value are collapsed into one and let in (a header de-duplicating proxy; caught in strict mode: refusing two fields is SHOULD).",
			Catch:   []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Options: strict,
			Wrap: kit.Request(func(r *http.Request) bool {
				v := r.Header.Values("Authorization")
				return len(v) == 2 && v[0] == v[1] && v[0] == "Bearer "+Key
			}, authorize),
		},
		{
			Name:    "auth-scheme-case-sensitive",
			Fault:   "The scheme name is compared case-sensitively: bearer and BEARER get 401 (caught in strict mode).",
			Catch:   []string{"auth/listPets-scheme-case", "auth/createPet-scheme-case", "auth/getPet-scheme-case"},
			Options: strict,
			Wrap: kit.Request(func(r *http.Request) bool {
				s, _ := scheme(r)
				return s != "Bearer" && strings.EqualFold(s, "Bearer")
			}, func(r *http.Request) { r.Header.Del("Authorization") }),
		},
	}
}

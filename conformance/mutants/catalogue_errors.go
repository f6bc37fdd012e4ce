package mutants

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// errorMutants are the faults of section 7 (the Error record). The function is long because
// it is a table: one literal per mutant, each with its fault, its wrapper and the rule that
// must catch it.
func errorMutants(*facts) []Mutant {
	every := []string{"errors/unauthorized", "errors/bad-request", "errors/not-found"}
	// errorBodies are the other rules that read an Error record, measured: each fails too
	// when every Error record is broken.
	errorBodies := []string{
		"auth/createPet-basic", "auth/createPet-empty-token", "auth/createPet-missing",
		"auth/createPet-near-key", "auth/createPet-not-bearer", "auth/createPet-wrong-key", "auth/getPet-basic",
		"auth/getPet-empty-token", "auth/getPet-missing", "auth/getPet-near-key", "auth/getPet-not-bearer",
		"auth/getPet-wrong-key", "auth/listPets-basic", "auth/listPets-empty-token", "auth/listPets-missing",
		"auth/listPets-near-key", "auth/listPets-not-bearer", "auth/listPets-wrong-key", "createPet/cases-auth",
		"createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers",
		"createPet/categoryId-beyond-int64", "createPet/categoryId-float", "createPet/categoryId-string",
		"createPet/empty-body", "createPet/empty-object", "createPet/malformed-json",
		"createPet/missing-categoryId", "createPet/missing-name", "createPet/name-not-string",
		"createPet/status-not-in-enum", "createPet/status-not-string", "errors/cases-routes",
		"getPet/cases-auth", "getPet/cases-path", "getPet/non-integer-id", "getPet/unknown-id",
		"listPets/cases-auth", "listPets/cases-query", "listPets/limit-above-max", "listPets/limit-below-min",
		"listPets/limit-far-above-max", "listPets/limit-fraction", "listPets/limit-negative",
		"listPets/limit-not-integer", "listPets/status-unknown",
		"createPet/cases-anatomy", "getPet/cases-anatomy", "listPets/cases-anatomy",
	}
	return []Mutant{
		{
			Name:      "errors-text-plain",
			Fault:     "Error responses are text/plain with the status text (the framework's default error page).",
			Catch:     every,
			AlsoFails: errorBodies,
			Wrap: kit.OnErrors(func(rp *kit.Reply) {
				rp.Header.Set("Content-Type", "text/plain; charset=utf-8")
				rp.Body = []byte(http.StatusText(rp.Status) + "\n")
			}),
		},
		{
			Name:      "errors-no-code",
			Fault:     "Error records lack the code field.",
			Catch:     every,
			AlsoFails: errorBodies,
			Wrap:      editErrorJSON(func(m map[string]any) { delete(m, "code") }),
		},
		{
			Name:    "errors-code-is-message",
			Fault:   "The code field carries the human-readable message (a sentence), not a machine-readable code (caught in strict mode: a Should rule).",
			Catch:   []string{"errors/machine-readable-code"},
			Wrap:    editErrorJSON(func(m map[string]any) { m["code"] = m["message"] }),
			Options: strict,
		},
		{
			Name:    "errors-code-embeds-id",
			Fault:   "The code embeds the number from the message (not_found_42), so one cause gets a different code per request (caught in strict mode).",
			Catch:   []string{"errors/machine-readable-code"},
			Options: strict,
			Wrap: editErrorJSON(func(m map[string]any) {
				if n := digits.FindString(fmt.Sprint(m["message"])); n != "" {
					m["code"] = fmt.Sprint(m["code"]) + "_" + n
				}
			}),
		},
		{
			Name:      "errors-status-string",
			Fault:     `The status field of Error records is a string ("404") instead of an integer.`,
			Catch:     every,
			AlsoFails: errorBodies,
			Wrap:      editErrorJSON(func(m map[string]any) { m["status"] = fmt.Sprint(m["status"]) }),
		},
		{
			Name:      "errors-problem-json",
			Fault:     "Errors are RFC 9457 problem details (application/problem+json: type, title, detail) instead of Error records.",
			Catch:     every,
			AlsoFails: errorBodies,
			Wrap: kit.OnErrors(func(rp *kit.Reply) {
				rp.EditJSON(func(v any) any {
					m, _ := v.(map[string]any)
					return map[string]any{"type": "about:blank", "title": http.StatusText(rp.Status), "status": rp.Status, "detail": m["message"]}
				})
				rp.Header.Set("Content-Type", "application/problem+json")
			}),
		},
		{
			Name:      "errors-limit-abc-500",
			Fault:     "A limit that is not a number (limit=abc) hits an unhandled parse error: 500 instead of a 4xx.",
			Catch:     []string{"listPets/limit-not-integer"},
			AlsoFails: []string{"listPets/cases-auth", "listPets/cases-query"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				v, ok := r.URL.Query()["limit"]
				if !ok || !kit.IsList(r) {
					return false
				}
				_, err := strconv.ParseFloat(v[0], 64)
				return err != nil
			}),
		},
	}
}

func transportMutants(*facts) []Mutant {
	hang := &kit.Hang{}
	return []Mutant{
		{
			Name:      "transport-text-html",
			Fault:     "Successful responses are labelled text/html; charset=utf-8 instead of application/json.",
			Catch:     []string{"listPets/bare-array", "createPet/valid"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/ids-unique", "createPet/same-fields-twice", "createPet/status-optional", "getPet/cases-auth", "getPet/cases-headers", "getPet/cases-path", "getPet/created-returned", "getPet/listed-returned", "listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/default-limit", "listPets/limit-max", "listPets/limit-min", "listPets/status-and-limit", "listPets/status-available", "listPets/status-default-limit", "listPets/status-pending", "listPets/status-sold", "versioning/base-url", "createPet/cases-anatomy", "getPet/cases-anatomy", "listPets/cases-anatomy"},
			Wrap:      kit.OnSuccess(kit.AnyRequest, func(rp *kit.Reply) { rp.Header.Set("Content-Type", "text/html; charset=utf-8") }),
		},
		{
			Name:       "transport-bom",
			Fault:      "Successful JSON bodies start with a UTF-8 byte order mark, which JSON forbids (RFC 8259 section 8.1).",
			Catch:      []string{"listPets/bare-array", "createPet/valid"},
			AlsoFails:  []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/ids-unique", "createPet/same-fields-twice", "createPet/status-optional", "getPet/created-returned", "listPets/cases-auth", "listPets/cases-headers", "listPets/cases-query", "listPets/default-limit", "listPets/limit-max", "listPets/limit-min", "listPets/status-and-limit", "listPets/status-available", "listPets/status-default-limit", "listPets/status-pending", "listPets/status-sold", "versioning/base-url", "createPet/cases-anatomy", "listPets/cases-anatomy"},
			AlsoErrors: []string{"getPet/cases-auth", "getPet/cases-headers", "getPet/cases-path", "getPet/deprecation-headers", "getPet/deprecation-headers-sent", "getPet/listed-returned", "listPets/default-limit-exact", "getPet/cases-anatomy"},
			Wrap:       kit.OnSuccess(kit.AnyRequest, func(rp *kit.Reply) { rp.Body = append([]byte("\xef\xbb\xbf"), rp.Body...) }),
		},
		{
			Name: "transport-slow-get",
			Fault: "GET /pets/{petId} finds the animal, then hangs (a lock never released) until the client " +
				"gives up.",
			Catch:        []string{"getPet/listed-returned", "getPet/created-returned"},
			AlsoErrors:   []string{"auth/getPet-scheme-case", "createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "getPet/cases-auth", "getPet/cases-headers", "getPet/cases-path", "getPet/deprecation-headers", "getPet/deprecation-headers-sent", "createPet/cases-anatomy", "getPet/cases-anatomy"},
			Inconclusive: true,
			// The client gives up the moment the server hangs, as it would when its timeout ran
			// out: no timeout short enough to keep the test quick and so short that a busy
			// machine's ordinary answers outlive it too.
			Client: hang.Client,
			Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !kit.IsGet(r) {
						next.ServeHTTP(w, r)
						return
					}
					rp := kit.Capture(next, r)
					if rp.Status == http.StatusOK {
						hang.Here(r)
						return
					}
					rp.Send(w)
				})
			},
		},
	}
}

// digits finds the first number in a message.
var digits = regexp.MustCompile(`[0-9]+`)

package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// createMutants are the faults of createPet. The function is long because it is a table: one
// literal per mutant, each with its fault, its wrapper and the rule that must catch it.
func createMutants(f *facts) []Mutant {
	return slices.DeleteFunc([]Mutant{
		{
			Name:       "create-200",
			Fault:      "A created animal is answered with 200 OK instead of 201 Created.",
			Catch:      []string{"createPet/valid"},
			AlsoFails:  []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/ids-unique", "createPet/same-fields-twice", "createPet/status-optional", "getPet/created-returned", "createPet/cases-anatomy"},
			AlsoErrors: []string{"getPet/cases-auth", "getPet/cases-headers", "getPet/cases-path", "getPet/deprecation-headers", "getPet/deprecation-headers-sent", "getPet/listed-returned", "listPets/cases-query", "listPets/default-limit", "listPets/default-limit-exact", "listPets/limit-max", "listPets/limit-max-full", "listPets/limit-min", "listPets/status-and-limit", "listPets/status-available", "listPets/status-default-limit", "listPets/status-pending", "listPets/status-sold", "getPet/cases-anatomy"},
			Wrap: kit.OnSuccess(kit.IsCreate, func(rp *kit.Reply) {
				if rp.Status == http.StatusCreated {
					rp.Status = http.StatusOK
				}
			}),
		},
		{
			Name:      "create-no-id",
			Fault:     "The 201 body echoes the animal sent without the id the service assigned.",
			Catch:     []string{"createPet/valid"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/ids-unique", "createPet/same-fields-twice", "createPet/status-optional", "getPet/cases-headers", "getPet/cases-path", "getPet/created-returned", "getPet/listed-returned", "createPet/cases-anatomy", "getPet/cases-anatomy"},
			AlsoErrors: []string{
				"getPet/cases-auth", "listPets/cases-query", "listPets/default-limit", "listPets/default-limit-exact",
				"listPets/limit-max", "listPets/limit-max-full", "listPets/limit-min", "listPets/status-and-limit",
				"listPets/status-available", "listPets/status-default-limit", "listPets/status-pending",
				"listPets/status-sold",
			},
			Wrap: kit.OnSuccess(kit.IsCreate, func(rp *kit.Reply) { rp.EditJSON(kit.EachObject(func(m map[string]any) { delete(m, "id") })) }),
		},
		{
			Name: "create-id-reused",
			Fault: fmt.Sprintf("The id is the size of the first page plus one (a count capped at the default limit), "+
				"so once %d animals exist every new one is reported as %d.", f.limit.Default, f.limit.Default+1),
			Catch:     []string{"createPet/ids-unique", "createPet/valid", "getPet/created-returned"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/same-fields-twice", "createPet/status-optional", "createPet/cases-anatomy"},
			Wrap: kit.OnSuccess(kit.IsCreate, func(rp *kit.Reply) {
				rp.EditJSON(kit.EachObject(func(m map[string]any) {
					if id, err := asNumber(m["id"]).Int64(); err == nil {
						m["id"] = min(id, f.limit.Default+1)
					}
				}))
			}),
		},
		{
			Name:      "create-id-off-by-one",
			Fault:     "The 201 body carries the id of the previously created animal (an off-by-one), not the new one's.",
			Catch:     []string{"getPet/created-returned"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/cases-anatomy"},
			Wrap: kit.OnSuccess(kit.IsCreate, func(rp *kit.Reply) {
				rp.EditJSON(kit.EachObject(func(m map[string]any) {
					if id, err := asNumber(m["id"]).Int64(); err == nil && id > 1 {
						m["id"] = id - 1
					}
				}))
			}),
		},
		{
			Name:      "create-status-dropped",
			Fault:     "The 201 body leaves out the status that was sent (and stored).",
			Catch:     []string{"createPet/valid"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/ids-unique", "createPet/same-fields-twice", "getPet/created-returned", "createPet/cases-anatomy"},
			Wrap:      kit.OnSuccess(kit.IsCreate, func(rp *kit.Reply) { rp.EditJSON(kit.EachObject(func(m map[string]any) { delete(m, "status") })) }),
		},
		{
			Name:      "create-category-ignored",
			Fault:     "categoryId is read from the wrong field (category_id), so every animal is stored in category 0.",
			Catch:     []string{"createPet/valid", "getPet/created-returned"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/categoryId-beyond-int64", "createPet/categoryId-float", "createPet/categoryId-string", "createPet/ids-unique", "createPet/missing-categoryId", "createPet/same-fields-twice", "createPet/status-optional", "createPet/cases-anatomy"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				n, ok := m["category_id"].(json.Number)
				if !ok {
					n = "0"
				}
				m["categoryId"] = n
			}),
		},
		{
			Name:      "create-status-forced-first",
			Fault:     "The stored status is always " + f.statuses[0] + ", whatever status was sent (a default applied after decoding).",
			Catch:     []string{"createPet/valid", "getPet/created-returned"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-fields", "createPet/cases-headers", "createPet/status-not-in-enum", "createPet/status-not-string", "createPet/cases-anatomy"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if _, ok := m["status"]; ok {
					m["status"] = f.statuses[0]
				}
			}),
		},
		{
			Name:  "create-category-forced-1",
			Fault: "Every animal is stored in category 1 (a hard-coded default category), whatever categoryId was sent.",
			Catch: []string{"createPet/valid", "getPet/created-returned"},
			AlsoFails: []string{
				"createPet/cases-body", "createPet/cases-fields", "createPet/categoryId-beyond-int64",
				"createPet/categoryId-float", "createPet/categoryId-string",
			},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if _, ok := m["categoryId"]; ok {
					m["categoryId"] = 1
				}
			}),
		},
		{
			Name:      "create-missing-category-zero",
			Fault:     "A missing categoryId becomes 0, the decoder's zero value, instead of a 400.",
			Catch:     []string{"createPet/missing-categoryId"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if _, ok := m["categoryId"]; !ok {
					m["categoryId"] = 0
				}
			}),
		},
		{
			Name:      "create-name-number-accepted",
			Fault:     `A numeric name (42) is converted to the string "42" and accepted (loose typing).`,
			Catch:     []string{"createPet/name-not-string"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if n, ok := m["name"].(json.Number); ok {
					m["name"] = n.String()
				}
			}),
		},
		{
			Name:      "create-status-number-dropped",
			Fault:     "A status that is not a string (42) is ignored and the animal created " + f.withoutStatus + ".",
			Catch:     []string{"createPet/status-not-string"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if _, ok := m["status"].(json.Number); ok {
					f.loseStatus(m)
				}
			}),
		},
		{
			Name:      "create-category-overflow-clamped",
			Fault:     "A categoryId beyond int64 goes through float64 and is clamped to the largest int64 instead of refused.",
			Catch:     []string{"createPet/categoryId-beyond-int64"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if x, err := asNumber(m["categoryId"]).Float64(); err == nil && x >= math.MaxInt64 {
					m["categoryId"] = int64(math.MaxInt64)
				}
			}),
		},
		{
			Name:      "create-status-required",
			Fault:     "A NewPet without status is refused with 400: the optional field is validated as required.",
			Catch:     []string{"createPet/status-optional"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-fields"},
			Wrap: refuseCreate(http.StatusBadRequest, func(b []byte) string {
				var m map[string]any
				if json.Unmarshal(b, &m) == nil && m != nil && m["status"] == nil {
					return `request body: property "status" is missing`
				}
				return ""
			}),
		},
		{
			Name:      "create-empty-object-defaults",
			Fault:     "An empty object {} is taken as no fields given, and an animal is created from defaults.",
			Catch:     []string{"createPet/empty-object", "errors/bad-request"},
			AlsoFails: []string{"createPet/cases-body"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if len(m) == 0 {
					m["name"], m["categoryId"] = "unnamed", 0
					if f.statusRequired {
						m["status"] = f.statuses[0]
					}
				}
			}),
		},
		{
			Name:      "create-missing-name-accepted",
			Fault:     "A body without name is accepted: the animal is stored as `unnamed` with 201.",
			Catch:     []string{"createPet/missing-name"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if _, ok := m["name"]; !ok {
					m["name"] = "unnamed"
				}
			}),
		},
		{
			Name:      "create-category-string-accepted",
			Fault:     `A categoryId sent as a string ("1") is converted instead of refused with 400.`,
			Catch:     []string{"createPet/categoryId-string"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if s, ok := m["categoryId"].(string); ok {
					if n, err := strconv.ParseInt(s, 10, 64); err == nil {
						m["categoryId"] = n
					}
				}
			}),
		},
		{
			Name:      "create-fraction-truncated",
			Fault:     "A fractional categoryId (1.5) is truncated to an integer instead of refused with 400.",
			Catch:     []string{"createPet/categoryId-float"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if x, err := asNumber(m["categoryId"]).Float64(); err == nil && x != math.Trunc(x) {
					m["categoryId"] = int64(x)
				}
			}),
		},
		{
			Name:      "create-bad-status-dropped",
			Fault:     "A status outside the enumeration is silently dropped and the animal created " + f.withoutStatus + ".",
			Catch:     []string{"createPet/status-not-in-enum"},
			AlsoFails: []string{"createPet/cases-body", "createPet/cases-fields"},
			Wrap: kit.BodyObject(kit.IsCreate, func(m map[string]any) {
				if s, ok := m["status"].(string); ok && !slices.Contains(f.statuses, s) {
					f.loseStatus(m)
				}
			}),
		},
		{
			Name:      "create-malformed-json-500",
			Fault:     "Malformed JSON crashes the decoder: 500 instead of 400.",
			Catch:     []string{"createPet/malformed-json"},
			AlsoFails: []string{"createPet/cases-auth", "createPet/cases-body", "createPet/cases-anatomy"},
			Wrap: refuseCreate(http.StatusInternalServerError, func(b []byte) string {
				if len(b) > 0 && !json.Valid(b) {
					return "internal server error"
				}
				return ""
			}),
		},
		{
			Name:      "create-empty-body-201",
			Fault:     "An empty body creates an animal from defaults (name `unnamed`, category 0) and answers 201.",
			Catch:     []string{"createPet/empty-body"},
			AlsoFails: []string{"createPet/cases-body"},
			Wrap: kit.Body(kit.IsCreate, func(r *http.Request, b []byte) []byte {
				if len(b) > 0 {
					return b
				}
				r.Header.Set("Content-Type", "application/json")
				if f.statusRequired {
					return []byte(`{"name":"unnamed","categoryId":0,"status":"` + f.statuses[0] + `"}`)
				}
				return []byte(`{"name":"unnamed","categoryId":0}`)
			}),
		},
	}, func(m Mutant) bool {
		// Where the spec requires a status, a refusal without one is the right answer.
		return f.statusRequired && m.Name == "create-status-required"
	})
}

// refuseCreate answers a createPet request with an Error record of the given status when
// reject returns a message for its body, and passes it on otherwise.
func refuseCreate(status int, reject func(body []byte) string) func(http.Handler) http.Handler {
	codes := map[int]string{http.StatusBadRequest: "invalid_request", http.StatusInternalServerError: "internal"}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if kit.IsCreate(r) && r.Body != nil {
				b, _ := io.ReadAll(r.Body)
				if msg := reject(b); msg != "" {
					kit.Fail(w, status, codes[status], msg)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(b))
			}
			next.ServeHTTP(w, r)
		})
	}
}

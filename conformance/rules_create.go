package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gavv/httpexpect/v2"
	"github.com/getkin/kin-openapi/openapi3"
)

// badBody is a createPet body that must get 400 with an Error record.
type badBody struct {
	slug, title string
	body        []byte
}

// badBodies derives the invalid bodies from the NewPet schema: each required property
// missing, each property of the wrong type or out of its format or enumeration, and bodies
// that are not a NewPet at all.
func badBodies(f *facts) []badBody {
	var out []badBody
	valid := f.validNewPet("invalid")
	with := func(name string, raw string) []byte {
		m := map[string]any{}
		for k, v := range valid {
			m[k] = v
		}
		m[name] = json.RawMessage(raw)
		b, _ := json.Marshal(m)
		return b
	}
	for _, name := range properties(f.newPet) {
		if !required(f.newPet, name) {
			continue
		}
		m := copyMap(valid)
		delete(m, name)
		b, _ := json.Marshal(m)
		out = append(out, badBody{"missing-" + name, "a body without the required " + name, b})
	}
	for _, name := range properties(f.newPet) {
		s := f.newPet.Properties[name].Value
		switch {
		case s.Type.Is(openapi3.TypeString):
			out = append(out, badBody{name + "-not-string", "a body whose " + name + " is a number, not a string", with(name, "42")})
			if len(s.Enum) > 0 {
				out = append(out, badBody{name + "-not-in-enum", "a body whose " + name + " is a string outside its enumeration",
					with(name, `"`+unknownStatus+`"`)})
			}
		case s.Type.Is(openapi3.TypeInteger):
			out = append(out,
				badBody{name + "-string", "a body whose " + name + " is a string holding a number", with(name, `"1"`)},
				badBody{name + "-float", "a body whose " + name + " is a fraction", with(name, "1.5")})
			if beyond, ok := map[string]string{"int64": "9223372036854775808", "int32": "2147483648"}[s.Format]; ok {
				out = append(out, badBody{name + "-beyond-" + s.Format, "a body whose " + name + " is beyond " + s.Format, with(name, beyond)})
			}
		}
	}
	return append(out,
		badBody{"empty-object", "an empty JSON object", []byte("{}")},
		badBody{"malformed-json", "a body of malformed JSON", []byte(`{"name": `)},
		badBody{"empty-body", "an empty body", nil},
	)
}

func createRules(f *facts) []Rule {
	rule := func(slug, section string, title string, check func(*Check)) Rule {
		return Rule{ID: opCreate + "/" + slug, Section: section, Severity: Must, Title: title, Op: opCreate,
			Creates: true, Expects: http.StatusCreated, Check: check}
	}
	rules := []Rule{
		rule("valid", "4.2; 2", "a valid NewPet gets 201 and a Pet with a new id and the name, categoryId and status sent",
			func(c *Check) { createAndCompare(c, f.validNewPet("valid")) }),
	}
	for _, name := range properties(f.newPet) {
		if required(f.newPet, name) {
			continue
		}
		body := f.validNewPet(name + "-optional")
		delete(body, name)
		rules = append(rules, rule(name+"-optional", "4.2; 2",
			fmt.Sprintf("a NewPet without the optional %s gets 201 and a Pet", name),
			func(c *Check) { createAndCompare(c, body) }))
	}
	for _, bb := range badBodies(f) {
		bad := rule(bb.slug, "4.2; 7", bb.title+" gets 400 with an Error body",
			func(c *Check) {
				req := c.Auth.POST("/pets").WithHeader("Content-Type", "application/json")
				if bb.body != nil {
					req = req.WithBytes(bb.body)
				}
				expectError(c, req.Expect(), http.StatusBadRequest)
			})
		bad.Expects = http.StatusBadRequest
		rules = append(rules, bad)
	}
	return append(rules, rule("ids-unique", "4.2; 2", "ids assigned by consecutive creates are unique and new",
		func(c *Check) {
			seen := fixtureIDs(c.Fixture)
			for i := 0; i < 2 && !c.Failed(); i++ {
				id := createAndCompare(c, f.validNewPet(fmt.Sprintf("unique-%d", i)))
				if seen[id] {
					c.Expectf("a new id", fmt.Sprint(id), "the id %v was assigned before", id)
				}
				seen[id] = true
			}
		}))
}

// createAndCompare creates body, expects 201 with a Pet that holds what was sent and an id
// no listed animal has, and returns the id.
func createAndCompare(c *Check, body map[string]any) any {
	obj := c.Auth.POST("/pets").WithJSON(body).Expect().Status(http.StatusCreated).JSON().Object()
	for k, v := range body {
		obj.Value(k).IsEqual(v)
	}
	id := obj.Value("id").Number().Raw()
	if !c.Failed() && fixtureIDs(c.Fixture)[id] {
		c.Expectf("a new id", fmt.Sprint(id), "the created animal got the id %v of an animal listed before", id)
	}
	return id
}

func fixtureIDs(fx *Fixture) map[any]bool {
	ids := map[any]bool{}
	for _, p := range fx.Pets {
		ids[p["id"]] = true
	}
	return ids
}

// getObject fetches /pets/{id} and returns the assertion on its body.
func getObject(c *Check, id any) *httpexpect.Object {
	return c.Auth.GET("/pets/{petId}", jsonNumber(id)).Expect().Status(http.StatusOK).JSON().Object()
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

package rules

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gavv/httpexpect/v2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/spec"
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
	valid := f.validNewPet()
	with := func(name string, raw string) []byte {
		m := map[string]any{}
		for k, v := range valid {
			m[k] = v
		}
		m[name] = json.RawMessage(raw)
		b, _ := json.Marshal(m)
		return b
	}
	for _, name := range properties(f.NewPet) {
		if !required(f.NewPet, name) {
			continue
		}
		m := copyMap(valid)
		delete(m, name)
		b, _ := json.Marshal(m)
		out = append(out, badBody{"missing-" + name, "a body without the required " + name, b})
	}
	for _, name := range properties(f.NewPet) {
		s := f.NewPet.Properties[name].Value
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
	rules := []Rule{{
		ID: spec.OpCreate + "/valid", Section: "4.2; 2", Uses: append(statusUses(f.lastStatus()), usesNewPet...), Severity: Must, Op: spec.OpCreate, Creates: true, Expects: http.StatusCreated,
		Title: fmt.Sprintf("a valid NewPet (status %s, a categoryId other than the example) gets 201 and a Pet with a new id and the name, categoryId and status sent", f.lastStatus()),
		Run:   func(c *Check) { createAndCompare(c, f, f.createBody(c.Fixture)) },
	}}
	for _, name := range properties(f.NewPet) {
		if required(f.NewPet, name) {
			continue
		}
		rules = append(rules, Rule{
			ID: spec.OpCreate + "/" + name + "-optional", Section: "4.2; 2", Uses: usesNewPet, Severity: Must, Op: spec.OpCreate, Creates: true, Expects: http.StatusCreated,
			Title: fmt.Sprintf("a NewPet without the optional %s gets 201 and a Pet", name),
			Run: func(c *Check) {
				body := f.petBody(c.Fixture, f.Statuses[0])
				delete(body, name)
				createAndCompare(c, f, body)
			},
		})
	}
	for _, bb := range badBodies(f) {
		rules = append(rules, Rule{
			ID: spec.OpCreate + "/" + bb.slug, Section: "4.2; 7", Uses: usesNewPet, Severity: Must, Op: spec.OpCreate, Creates: true, Expects: http.StatusBadRequest,
			Title: bb.title + " gets 400 with an Error body",
			Run: func(c *Check) {
				req := c.Auth.POST(f.ByID[spec.OpCreate].Path).WithHeader("Content-Type", "application/json")
				if bb.body != nil {
					req = req.WithBytes(bb.body)
				}
				expectError(req.Expect(), http.StatusBadRequest)
			},
		})
	}
	return append(rules, Rule{
		ID: spec.OpCreate + "/ids-unique", Section: "4.2; 2", Uses: usesNewPet, Severity: Must, Op: spec.OpCreate, Creates: true, Expects: http.StatusCreated,
		Title: "ids assigned by consecutive creates are unique and new",
		Run: func(c *Check) {
			seen := judge.IDSet(c.Fixture.Pets)
			for i := 0; i < 2 && !c.Failed(); i++ {
				pet := createAndCompare(c, f, f.petBody(c.Fixture, f.Statuses[0]))
				if pet == nil {
					return
				}
				id, _ := judge.IDOf(pet)
				if seen[id] {
					c.Expectf("a new id", id, "the id %s was assigned before", id)
				}
				seen[id] = true
			}
		},
	}, Rule{
		// READINGS.md: two creates with the same fields are two animals. A store keyed by
		// name (an upsert) answers the second with the first animal.
		ID: spec.OpCreate + "/same-fields-twice", Section: "4.2; 2 (Pet)", Severity: Must, Op: spec.OpCreate,
		Creates: true, Expects: http.StatusCreated,
		Title: "two creates with identical fields make two animals with two new ids",
		Run: func(c *Check) {
			seen := judge.IDSet(c.Fixture.Pets)
			body := f.petBody(c.Fixture, f.Statuses[0])
			for range 2 {
				pet := createAndCompare(c, f, body)
				if pet == nil {
					return
				}
				id, _ := judge.IDOf(pet)
				if seen[id] {
					c.Expectf("a new id", id, "the second create of the same fields answered the id %s, which an animal had already: "+
						"the service updated an animal instead of adding one", id)
					return
				}
				seen[id] = true
			}
		},
	})
}

// createBody is what createPet/valid and getPet/created-returned send: the last status
// value and a categoryId other than the spec's example (a listed animal's, else a made-up
// one), so that a service storing defaults instead of what it is sent is found out.
func (f *facts) createBody(fx *Fixture) map[string]any {
	body := f.petBody(fx, f.lastStatus())
	if ex := f.validNewPet()[categoryField]; sameJSON(body[categoryField], ex) {
		body[categoryField] = madeUpCategory(ex)
	}
	return body
}

// madeUpCategory is a categoryId unlike the example: 7, or 8 if the example is 7.
func madeUpCategory(example any) json.Number {
	if sameJSON(example, 7) {
		return "8"
	}
	return "7"
}

// createAndCompare creates body, expects 201 with a Pet that holds what was sent and an id
// no listed animal has, and returns the Pet (nil if there is none). A made-up categoryId
// that the service refuses (400: categories may have to exist) is replaced by the example.
func createAndCompare(c *Check, f *facts, body map[string]any) map[string]any {
	resp := c.Auth.POST(f.ByID[spec.OpCreate].Path).WithJSON(body).Expect()
	if ex := f.validNewPet()[categoryField]; code(resp) == http.StatusBadRequest && isMadeUp(body[categoryField], ex) {
		body[categoryField] = ex
		resp = c.Auth.POST(f.ByID[spec.OpCreate].Path).WithJSON(body).Expect()
	}
	resp.Status(http.StatusCreated)
	if code(resp) != http.StatusCreated {
		return nil
	}
	pet, ok := expectObject(c, resp)
	if !ok {
		return nil
	}
	compareFields(c, f.PetFields, body, pet, "the created Pet")
	id, isInt := judge.IDOf(pet)
	switch {
	case !isInt:
		c.Expectf("an integer id", id, "the created Pet has no integer id")
	case !c.Failed() && judge.IDSet(c.Fixture.Pets)[id]:
		c.Expectf("a new id", id, "the created animal got the id %s of an animal listed before", id)
	}
	return pet
}

func isMadeUp(v, example any) bool {
	n, ok := v.(json.Number)
	return ok && n == madeUpCategory(example)
}

// getPet fetches /pets/{id}, id as the target wrote it, and returns the object (nil if
// none). A 404 is retried for a while: a store may show what it stored only after a while.
func getPet(c *Check, f *facts, id string, retry404 bool) map[string]any {
	var resp *httpexpect.Response
	cases.Eventually(c.Ctx, c.Wait, func() bool {
		resp = c.Auth.GET(f.petPath(id)).Expect()
		return !retry404 || code(resp) != http.StatusNotFound
	})
	resp.Status(http.StatusOK)
	if code(resp) != http.StatusOK {
		return nil
	}
	pet, _ := expectObject(c, resp)
	return pet
}

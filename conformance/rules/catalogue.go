package rules

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gavv/httpexpect/v2"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/spec"
)

// Sections are the rule ID prefixes that are not operationIds.
var Sections = []string{"auth", "errors", "versioning"}

// facts are the description's facts (spec.Facts) with what the rules build from them.
type facts struct{ *spec.Facts }

// All returns the catalogue for doc: every rule, in report order. Rules that differ only in
// data (auth per operation, limits per bound, filters per status value) are generated here.
func All(sf *spec.Facts) []Rule {
	f := &facts{sf}
	var rules []Rule
	for _, part := range []func(*facts) []Rule{authRules, errorRules, listRules, createRules, getRules, versioningRules, caseRules} {
		rules = append(rules, part(f)...)
	}
	return f.cite(rules)
}

// Fuzz returns the rules of n random combinations of generated variants per operation
// (--fuzz).
func Fuzz(sf *spec.Facts, n int) []Rule {
	f := &facts{sf}
	return f.cite(fuzzRules(f, n))
}

// PetBody is a valid createPet body with the given status, its categoryId borrowed from an
// animal of fx the harness did not create (see petBody): what preparation creates.
func PetBody(sf *spec.Facts, fx *Fixture, status string) map[string]any {
	return (&facts{sf}).petBody(fx, status)
}

// properties and required read the NewPet schema (spec.PropertyNames, spec.IsRequired).
var properties, required = spec.PropertyNames, spec.IsRequired

// validNewPet builds a body that the spec accepts: every property set from the schema (a
// short unique name for strings, the example or 1 for integers, the first value of an enum).
func (f *facts) validNewPet() map[string]any {
	body := map[string]any{}
	for _, name := range properties(f.NewPet) {
		if v, ok := validValue(f.NewPet.Properties[name].Value); ok {
			body[name] = v
		}
	}
	return body
}

func validValue(s *openapi3.Schema) (any, bool) {
	switch {
	case len(s.Enum) > 0:
		return s.Enum[0], true
	case s.Type.Is(openapi3.TypeString):
		return newName(), true
	case s.Type.Is(openapi3.TypeInteger):
		if s.Example != nil {
			return s.Example, true
		}
		return 1, true
	}
	return nil, false
}

// categoryField is the NewPet property that refers to a category.
const categoryField = "categoryId"

// petBody is a valid body with the given status whose categoryId, when the fixture lists
// animals, is one of theirs (one other than the spec's example if there is one): a service
// that checks that the category exists accepts it.
func (f *facts) petBody(fx *Fixture, status string) map[string]any {
	body := f.validNewPet()
	if _, ok := body["status"]; ok {
		body["status"] = status
	}
	if c, ok := f.borrowedCategory(fx, body[categoryField]); ok {
		body[categoryField] = c
	}
	return body
}

// borrowedCategory is the categoryId of a listed animal the harness did not create (what
// it created holds what the service made of the harness's own guesses), preferring one
// unlike example.
func (f *facts) borrowedCategory(fx *Fixture, example any) (any, bool) {
	var found any
	if fx != nil {
		for _, p := range fx.Pets {
			c, ok := p[categoryField].(json.Number)
			if name, _ := p["name"].(string); !ok || strings.HasPrefix(name, cases.NamePrefix) {
				continue
			}
			if !sameJSON(c, example) {
				return c, true
			}
			found = c
		}
	}
	return found, found != nil
}

// petPath is getPet's path for the animal with id (as the target wrote it).
func (f *facts) petPath(id string) string {
	return cases.FillPath(f.ByID[spec.OpGet].Path, url.PathEscape(id))
}

// lastStatus is the last value of the status enumeration: createPet sends it, so that a
// service that stores the first value whatever it is sent is found out.
func (f *facts) lastStatus() string { return f.Statuses[len(f.Statuses)-1] }

// exampleRequest builds a request for op that is valid but for what the caller changes:
// path parameters and the JSON body come from the spec's examples.
func exampleRequest(e *httpexpect.Expect, op spec.Operation) *httpexpect.Request {
	path := op.Path
	for _, p := range op.Op.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInPath {
			id := exampleString(p.Value)
			if cases.Unsafe(op.Method) {
				// The example names an animal someone else may hold; the rules that use this
				// request judge the key, which comes first whatever the path names (5.3).
				id = cases.ImpossibleID
			}
			path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", id)
		}
	}
	req := e.Request(op.Method, path)
	if rb := op.Op.RequestBody; rb != nil && rb.Value != nil {
		if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Example != nil {
			body := mt.Example
			// A non-conforming target may act on the request: whatever it creates must carry
			// the harness's prefix.
			if m, ok := body.(map[string]any); ok {
				if n, ok := m["name"].(string); ok {
					m = copyMap(m)
					m["name"] = cases.NamePrefix + n
					body = m
				}
			}
			req = req.WithJSON(body)
		}
	}
	return req
}

func exampleString(p *openapi3.Parameter) string {
	v := p.Example
	if v == nil && p.Schema != nil && p.Schema.Value != nil {
		v = p.Schema.Value.Example
	}
	switch n := v.(type) {
	case nil:
		return "1"
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	default:
		return fmt.Sprint(n)
	}
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

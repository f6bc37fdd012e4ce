// Package fast holds the reference's fast paths: shortcuts taken only where they are
// provably equal to the core's path (precomputed request and response checks, a compiled
// schema check, a one-pass decoder of the usual createPet body, the access log line).
package fast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/petstore/petstore/internal/schemacheck"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// Validation without repeated work. Two shortcuts, each taken only when it is provably
// equivalent to kin-openapi's full check, and each falling back to that check otherwise:
//
//   - Requests: for an operation whose parameters are integers with bounds or strings from
//     an enum, and whose request body, if it has one, has a schema that compiles
//     (internal/schemacheck), a precomputed check that accepts only what
//     openapi3filter.ValidateRequest accepts. Whatever it does not accept (a bad value, a
//     repeated or missing parameter, a missing key, a body it cannot decide or one that
//     fails) goes to ValidateRequest, so every 400 and 401 is kin-openapi's answer, word for
//     word.
//   - Responses: an animal's JSON encoding is validated against the Pet schema once, when it
//     is stored (store.check); animals are immutable and their encoding is a function of the
//     record, so a body that is one stored animal, or an array of them, is valid wherever
//     the spec's schema for it is that Pet schema, or an array of it with no constraint of
//     its own (items only: no minItems, maxItems, uniqueItems ...). That is checked here at
//     start, per operation and status; any other response is validated in full.

// petResponses are the answers the handlers build from stored animals.
var petResponses = []struct {
	op     string
	status int
	kind   core.BodyKind
}{
	{spec.OpList, http.StatusOK, core.BodyPets},
	{spec.OpCreate, http.StatusCreated, core.BodyPet},
	{spec.OpGet, http.StatusOK, core.BodyPet},
}

// plan is what was worked out at start for one operation.
type Plan struct {
	simpleRequest bool // no request body, and params below are all there is to check, besides the key
	auth          bool // the request needs a valid bearer key
	params        []paramCheck
	// body is the compiled check of the request body, for an operation with one whose params
	// and key are checked as above; nil when there is none.
	body   *bodyCheck
	bodies map[int]core.BodyKind // statuses whose body need not be validated again
}

// paramCheck accepts a value that the parameter's schema certainly accepts.
type paramCheck struct {
	name, in string
	required bool
	ok       func(string) bool
}

// requestValid reports whether the request certainly passes ValidateRequest; false means
// "run ValidateRequest", not "invalid". authorized says the request carries a valid key
// (checked once by the caller, keySet.check).
func (p *Plan) RequestValid(r *http.Request, pathParams map[string]string, authorized bool) bool {
	return p.simpleRequest && p.paramsValid(r, pathParams, authorized)
}

func (p *Plan) ChecksBody() bool { return p.body != nil }

// bodyValid is requestValid for an operation with a request body, read whole into body (the
// request's own Body has been read): it needs the compiled check to pass body.
func (p *Plan) BodyValid(r *http.Request, pathParams map[string]string, authorized bool, body []byte) bool {
	return p.body != nil && p.paramsValid(r, pathParams, authorized) &&
		p.body.check(r.Header.Get("Content-Type"), body) == schemacheck.Valid
}

// paramsValid reports whether the key and the parameters certainly pass ValidateRequest.
func (p *Plan) paramsValid(r *http.Request, pathParams map[string]string, authorized bool) bool {
	if p.auth && !authorized {
		return false
	}
	var query map[string][]string
	for _, pc := range p.params {
		var v string
		if pc.in == openapi3.ParameterInPath {
			v = pathParams[pc.name]
		} else {
			if query == nil {
				query = core.QueryOf(r)
			}
			vs, ok := query[pc.name]
			if !ok && !pc.required {
				continue
			}
			if len(vs) != 1 {
				return false
			}
			v = vs[0]
		}
		if !pc.ok(v) {
			return false
		}
	}
	return true
}

// responseValid reports whether the recorded response is one that was validated before.
func (p *Plan) ResponseValid(rec *core.Recorder) bool {
	return rec.Kind != core.BodyOther && p.bodies[rec.Status] == rec.Kind &&
		rec.Headers.Get("Content-Type") == "application/json"
}

// petSchemas returns the schemas a stored animal must be valid against: those of the
// responses in petResponses (for an array, its items).
func PetSchemas(facts *spec.Facts) []*openapi3.Schema {
	var out []*openapi3.Schema
	for _, pr := range petResponses {
		s := responseSchema(facts.ByID[pr.op].Op, pr.status)
		if s != nil && pr.kind == core.BodyPets {
			s = plainArrayItems(s)
		}
		if s != nil && !containsSchema(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// petCheck returns store.check: the encoding must be valid against every pet schema, with
// the options openapi3filter.ValidateResponse uses. Where every schema compiles
// (internal/schemacheck), an encoding they all pass is valid without kin-openapi; kin-openapi
// judges any other (and words the error).
func PetCheck(doc *openapi3.T, schemas []*openapi3.Schema) func([]byte) error {
	kin := kinPetCheck(doc, schemas)
	var compiled []*schemacheck.Check
	for _, s := range schemas {
		c := schemacheck.Compile(s)
		if c == nil || c.Kind() != schemacheck.Object || doc.IsOpenAPI31OrLater() {
			return kin
		}
		compiled = append(compiled, c)
	}
	return func(data []byte) error {
		if len(compiled) > 0 && allPass(compiled, data) {
			return nil
		}
		return kin(data)
	}
}

// kinPetCheck is petCheck with kin-openapi alone.
func kinPetCheck(doc *openapi3.T, schemas []*openapi3.Schema) func([]byte) error {
	opts := []openapi3.SchemaValidationOption{openapi3.VisitAsResponse()}
	if doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	return func(data []byte) error {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // as openapi3filter decodes a body
		var v any
		if err := dec.Decode(&v); err != nil {
			return core.Violated(err)
		}
		for _, s := range schemas {
			if err := s.VisitJSON(v, opts...); err != nil {
				return core.Violated(fmt.Errorf("response body doesn't match schema: %w", err))
			}
		}
		return nil
	}
}

func allPass(checks []*schemacheck.Check, data []byte) bool {
	for _, c := range checks {
		if c.Decide(data) != schemacheck.Valid {
			return false
		}
	}
	return true
}

// newPlans works out a plan per operationId. With prevalidated false (no store check) no
// response is taken as validated.
func NewPlans(facts *spec.Facts, prevalidated bool) (map[string]*Plan, error) {
	pets := PetSchemas(facts)
	plans := map[string]*Plan{}
	for _, op := range facts.Ops {
		if op.ID == "" {
			return nil, fmt.Errorf("reference: %s %s has no operationId", op.Method, op.Path)
		}
		p := requestPlan(facts.Doc, facts.Doc.Paths.Value(op.Path), op.Op)
		p.bodies = map[int]core.BodyKind{}
		for _, pr := range petResponses {
			if pr.op != op.ID || !prevalidated {
				continue
			}
			s := responseSchema(op.Op, pr.status)
			if pr.kind == core.BodyPets && s != nil {
				s = plainArrayItems(s)
			}
			if s != nil && containsSchema(pets, s) {
				p.bodies[pr.status] = pr.kind
			}
		}
		plans[op.ID] = p
	}
	return plans, nil
}

// responseSchema returns the application/json schema of an operation's response, as
// ValidateResponse finds it, or nil when that response declares headers (which
// ValidateResponse would check) or is missing.
func responseSchema(op *openapi3.Operation, status int) *openapi3.Schema {
	if op == nil || op.Responses == nil {
		return nil
	}
	ref := op.Responses.Status(status)
	if ref == nil {
		ref = op.Responses.Default()
	}
	if ref == nil || ref.Value == nil || len(ref.Value.Headers) > 0 {
		return nil
	}
	mt := ref.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// plainArrayItems returns the items schema of an array schema that says nothing else: an
// array of valid items is then valid. Otherwise nil.
func plainArrayItems(s *openapi3.Schema) *openapi3.Schema {
	t := schemacheck.WithoutDocs(*s)
	if t.Type == nil || !t.Type.Is(openapi3.TypeArray) || t.Items == nil || t.Items.Value == nil {
		return nil
	}
	items := t.Items.Value
	t.Type, t.Items = nil, nil
	if !reflect.ValueOf(t).IsZero() {
		return nil
	}
	return items
}

func containsSchema(list []*openapi3.Schema, s *openapi3.Schema) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// requestPlan builds the precomputed request check of an operation, when there is one.
func requestPlan(doc *openapi3.T, item *openapi3.PathItem, op *openapi3.Operation) *Plan {
	p := &Plan{}
	var body *bodyCheck
	if op.RequestBody != nil {
		if body = compileBody(doc, op.RequestBody); body == nil {
			return p
		}
	}
	security := doc.Security
	if op.Security != nil {
		security = *op.Security
	}
	switch {
	case len(security) == 0:
	case len(security) == 1 && len(security[0]) == 1:
		for name, scopes := range security[0] {
			ref := doc.Components.SecuritySchemes[name]
			if len(scopes) > 0 || ref == nil || ref.Value == nil || !isBearer(ref.Value) {
				return p
			}
		}
		p.auth = true
	default:
		return p
	}
	params := map[string]*openapi3.Parameter{}
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, ref := range list {
			if ref.Value == nil {
				return p
			}
			params[ref.Value.In+" "+ref.Value.Name] = ref.Value // the operation's win
		}
	}
	for _, prm := range params {
		pc, ok := paramPlan(prm)
		if !ok {
			return p
		}
		p.params = append(p.params, pc)
	}
	p.simpleRequest, p.body = body == nil, body
	return p
}

// bodyCheck is the compiled check of a request body (internal/schemacheck).
type bodyCheck struct {
	contentTypes []string // Content-Type values, as sent, that select the schema
	schema       *schemacheck.Check
}

// compileBody compiles the check of a request body whose application/json schema compiles
// and which openapi3filter decodes with its JSON decoder; otherwise it returns nil.
func compileBody(doc *openapi3.T, ref *openapi3.RequestBodyRef) *bodyCheck {
	const mime = "application/json"
	if doc.IsOpenAPI31OrLater() || ref.Value == nil {
		return nil // 3.1 validates with JSON Schema 2020-12: another validator
	}
	mt := ref.Value.Content.Get(mime)
	decoder := openapi3filter.RegisteredBodyDecoder(mime)
	if mt == nil || mt.Schema == nil || len(mt.Encoding) > 0 || decoder == nil ||
		reflect.ValueOf(decoder).Pointer() != reflect.ValueOf(openapi3filter.JSONBodyDecoder).Pointer() {
		return nil
	}
	schema := schemacheck.Compile(mt.Schema.Value)
	if schema == nil || schema.Kind() != schemacheck.Object {
		return nil
	}
	bc := &bodyCheck{schema: schema}
	// The usual spellings; another one (a charset in capitals, say) goes to kin-openapi.
	for _, ct := range []string{mime, mime + "; charset=utf-8", mime + ";charset=utf-8", mime + "; charset=UTF-8"} {
		if ref.Value.Content.Get(ct) == mt {
			bc.contentTypes = append(bc.contentTypes, ct)
		}
	}
	return bc
}

// check decides a request body sent with the given Content-Type.
func (bc *bodyCheck) check(contentType string, body []byte) schemacheck.Verdict {
	if len(body) == 0 || !slices.Contains(bc.contentTypes, contentType) {
		return schemacheck.Ask
	}
	return bc.schema.Decide(body)
}

func isBearer(s *openapi3.SecurityScheme) bool {
	return s.Type == "http" && strings.EqualFold(s.Scheme, "bearer") // as keySet.authenticate
}

// paramPlan returns the check of a query or path parameter of default style whose schema
// is an integer with bounds or a string enum (internal/schemacheck); ok is false for any other
// parameter (a free string would meet kin-openapi's rules on empty values).
func paramPlan(prm *openapi3.Parameter) (paramCheck, bool) {
	pc := paramCheck{name: prm.Name, in: prm.In, required: prm.Required}
	if (prm.In != openapi3.ParameterInQuery && prm.In != openapi3.ParameterInPath) ||
		prm.Style != "" || prm.Explode != nil || prm.AllowEmptyValue || prm.AllowReserved ||
		prm.Content != nil || prm.Schema == nil || prm.Schema.Value == nil {
		return pc, false
	}
	sc := schemacheck.Compile(prm.Schema.Value)
	switch {
	case sc == nil:
		return pc, false
	case sc.Kind() == schemacheck.Integer:
		// Within ±2^53 a float64 holds every integer exactly, whatever way kin-openapi reads it.
		lo, hi := sc.Bounds()
		lo, hi = max(lo, -1<<53), min(hi, 1<<53)
		pc.ok = func(v string) bool {
			n, ok := core.CanonicalInt(v)
			return ok && float64(n) >= lo && float64(n) <= hi
		}
	case sc.Enum() != nil:
		enum := sc.Enum()
		pc.ok = func(v string) bool { return enum[v] }
	case sc.Kind() == schemacheck.String:
		// A string of no other constraint: any value but the empty one, which kin-openapi
		// may refuse.
		pc.ok = func(v string) bool { return v != "" }
	default:
		return pc, false
	}
	return pc, true
}

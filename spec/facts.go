package spec

import (
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// The operations the interface document names.
const (
	OpList   = "listPets"
	OpCreate = "createPet"
	OpGet    = "getPet"
)

// Facts are the values of a description that the reference server, the harness, the
// mutants, the proxy and the commands read from it: read once by ReadFacts, passed to each.
type Facts struct {
	Doc *openapi3.T
	// Ops are every operation, ordered by path and method; ByID finds one by operationId.
	Ops  []Operation
	ByID map[string]Operation
	// Limit is listPets' limit: minimum, maximum and default.
	Limit IntBounds
	// Statuses are the PetStatus values, in the description's order.
	Statuses []string
	// Version is the version segment ("v1"); BasePath the servers' path ("/v1").
	Version  string
	BasePath string
	// NewPet is createPet's application/json request body schema.
	NewPet *openapi3.Schema
	// PetFields are the documented fields of a Pet as getPet returns it (following allOf),
	// sorted; NewPet's properties when getPet documents no body.
	PetFields []string
	// ErrSchema is the Error record (section 7).
	ErrSchema *openapi3.SchemaRef
	// Validator routes and validates requests and responses against Doc.
	Validator *Validator
}

// ReadFacts reads the facts of doc, failing when the description lacks one the interface
// document requires.
func ReadFacts(doc *openapi3.T) (*Facts, error) {
	f := &Facts{Doc: doc, ByID: map[string]Operation{}}
	var err error
	if f.Ops, err = Operations(doc); err != nil {
		return nil, err
	}
	for _, o := range f.Ops {
		f.ByID[o.ID] = o
	}
	for _, id := range []string{OpList, OpCreate, OpGet} {
		if _, ok := f.ByID[id]; !ok {
			return nil, fmt.Errorf("conformance: the spec has no operation %q", id)
		}
	}
	if f.Limit, err = QueryInt(doc, OpList, "limit"); err != nil {
		return nil, err
	}
	if !f.Limit.HasMin || !f.Limit.HasMax || !f.Limit.HasDefault {
		return nil, fmt.Errorf("conformance: %s limit needs a minimum, a maximum and a default", OpList)
	}
	if f.Statuses, err = StatusValues(doc); err != nil {
		return nil, err
	}
	if f.Version, err = VersionSegment(doc); err != nil {
		return nil, err
	}
	if f.BasePath, err = BasePath(doc); err != nil {
		return nil, err
	}
	if f.NewPet, err = JSONBodySchema(f.ByID[OpCreate]); err != nil {
		return nil, err
	}
	if pet := ResponseSchema(f.ByID[OpGet].Op, 200); pet != nil {
		f.PetFields = AllProperties(pet)
	} else {
		f.PetFields = PropertyNames(f.NewPet)
	}
	if f.ErrSchema = doc.Components.Schemas["Error"]; f.ErrSchema == nil || f.ErrSchema.Value == nil {
		return nil, fmt.Errorf("conformance: the spec has no Error schema")
	}
	if f.Validator, err = NewValidator(doc); err != nil {
		return nil, err
	}
	return f, nil
}

// JSONBodySchema is op's application/json request body schema.
func JSONBodySchema(op Operation) (*openapi3.Schema, error) {
	rb := op.Op.RequestBody
	if rb == nil || rb.Value == nil {
		return nil, fmt.Errorf("conformance: %s has no request body", op.ID)
	}
	mt := rb.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil, fmt.Errorf("conformance: %s has no application/json body schema", op.ID)
	}
	return mt.Schema.Value, nil
}

// ResponseSchema is the application/json schema of op's response with status, or nil.
func ResponseSchema(op *openapi3.Operation, status int) *openapi3.Schema {
	r := op.Responses.Status(status)
	if r == nil || r.Value == nil {
		return nil
	}
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// AllProperties are the properties of s and of every schema its allOf holds, sorted.
func AllProperties(s *openapi3.Schema) []string {
	var out []string
	var walk func(*openapi3.Schema)
	walk = func(s *openapi3.Schema) {
		out = append(out, PropertyNames(s)...)
		for _, ref := range s.AllOf {
			if ref.Value != nil {
				walk(ref.Value)
			}
		}
	}
	walk(s)
	slices.Sort(out)
	return slices.Compact(out)
}

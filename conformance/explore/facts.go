// Package explore runs seeded random sequences of requests from concurrent workers against a
// pet store service and checks every answer against a model of what the interface document
// fixes and what it leaves free (docs/harness.md lists both, with their sections). Each
// operation of the spec it sends is one value (op.go); a finding cites the rule of the
// catalogue it breaks (rules.go). A failing sequence is shrunk (fewer workers, fewer steps,
// simpler inputs), replayed to tell a deterministic fault from an intermittent one, and
// written as a replay file. Facts (operations, the limit's bounds and default, the status
// values, the NewPet schema, getPet's removal date) come from the description, never from
// literals.
package explore

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/spec"
)

// Operation ids and the names of the fields and parameters the model reads. Each is looked
// up in the description when the facts are loaded, so a renamed one fails loudly.
const (
	opList   = spec.OpList
	opCreate = spec.OpCreate
	opGet    = spec.OpGet

	paramLimit  = "limit"
	paramStatus = "status"

	fieldID       = "id"
	fieldName     = "name"
	fieldCategory = "categoryId"
	fieldStatus   = "status"
)

// factsOf is the model's facts: sf when they are doc's (read once by the caller: the command
// reads them once for the run, its replays and the reference it starts), else doc's.
func factsOf(doc *openapi3.T, f *spec.Facts) (*spec.Facts, error) {
	if f == nil || f.Doc != doc {
		var err error
		if f, err = spec.ReadFacts(doc); err != nil {
			return nil, err
		}
	}
	if p := f.ByID[opList].Op.Parameters.GetByInAndName(openapi3.ParameterInQuery, paramStatus); p == nil {
		return nil, fmt.Errorf("%s has no query parameter %q", opList, paramStatus)
	}
	for _, name := range []string{fieldName, fieldCategory, fieldStatus} {
		if f.NewPet.Properties[name] == nil {
			return nil, fmt.Errorf("the %s body has no property %q", opCreate, name)
		}
	}
	return f, nil
}

// sentFields is what a createPet body asks the service to store: its NewPet properties (an
// unknown property, which the service may drop, is not among them).
func sentFields(f *spec.Facts, body string) map[string][]string {
	wants, _ := judge.Sent([]byte(body))
	for name := range wants {
		if _, known := f.NewPet.Properties[name]; !known {
			delete(wants, name)
		}
	}
	return wants
}

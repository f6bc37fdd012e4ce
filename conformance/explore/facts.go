// Package explore runs seeded random sequences of requests from concurrent workers against a
// pet store service and checks every answer against a model of what the interface document
// fixes and what it leaves free. A failing sequence is shrunk (fewer workers, fewer steps,
// simpler inputs), replayed to tell a deterministic fault from an intermittent one, and
// written as a replay file.
//
// The model, with the sections it rests on:
//   - fixed: an animal created is there for good with exactly the fields it was created with
//     (2, 4.2, 4.3); ids are unique (2); a listing holds at most the limit, the default when
//     none is given (4.1 rule 1, 8); a status filter is exact (4.1 rule 2); getPet returns the
//     animal with that id, or 404 when none exists (4.3); a missing or wrong key is a 401 (5.3);
//     every error is an Error record whose status repeats the HTTP status (7); no answer is a
//     5xx, and every answer validates against the spec.
//   - free: listing order; pages shorter than the limit; visibility that lags creation by at
//     most Config.Lag; animals other clients create meanwhile; the answer to the requests the
//     document is silent on (an out-of-range limit, an unknown status filter, a petId that is
//     not an integer), as long as it is not a 5xx and a 4xx is an Error record.
//
// Facts (operations, the limit's bounds and default, the status values, the NewPet schema,
// getPet's removal date) come from the description, never from literals.
package explore

import (
	"fmt"
	"time"

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

// Facts is what the model knows from the description: the description's facts, read once by
// spec.ReadFacts, and what they say at the run's clock.
type Facts struct {
	*spec.Facts
	GetGone bool // getPet's removal date has passed at the run's clock
}

// factsOf is the model's facts: from sf when they are doc's (read once by the caller: the
// command reads them once for the run, its replays and the reference it starts), else read
// from doc; now decides whether getPet is gone (zero: time.Now).
func factsOf(doc *openapi3.T, sf *spec.Facts, now time.Time) (*Facts, error) {
	if sf == nil || sf.Doc != doc {
		var err error
		if sf, err = spec.ReadFacts(doc); err != nil {
			return nil, err
		}
	}
	if now.IsZero() {
		now = time.Now()
	}
	f := &Facts{Facts: sf, GetGone: sf.ByID[opGet].Gone(now)} // spec.ReadFacts requires the three operations
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
func (f *Facts) sentFields(body string) map[string][]string {
	wants, _ := judge.Sent([]byte(body))
	for name := range wants {
		if _, known := f.NewPet.Properties[name]; !known {
			delete(wants, name)
		}
	}
	return wants
}

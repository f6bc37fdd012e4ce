package mutants

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// facts are the spec values the faults are phrased against (the limit bounds, the status
// values, the removal date), read once.
type facts struct {
	limit    spec.IntBounds
	statuses []string
	getPet   spec.Operation
	// statusRequired says that the spec's NewPet requires a status: a mutant that loses a
	// request's status then puts the first value in its place (lost, it would only be
	// refused, which is no fault); withoutStatus says which, for the faults' text.
	statusRequired bool
	withoutStatus  string
}

// loseStatus is what a mutant that loses the status of a createPet body does to it.
func (f *facts) loseStatus(m map[string]any) {
	if f.statusRequired {
		m["status"] = f.statuses[0]
		return
	}
	delete(m, "status")
}

// Catalogue returns every mutant, grouped by area: list, create, get, auth, errors,
// transport.
func Catalogue(doc *openapi3.T) ([]Mutant, error) {
	f := &facts{}
	var err error
	if f.limit, err = spec.QueryInt(doc, "listPets", "limit"); err != nil {
		return nil, err
	}
	if f.statuses, err = spec.StatusValues(doc); err != nil {
		return nil, err
	}
	if f.getPet, err = spec.FindOperation(doc, "getPet"); err != nil {
		return nil, err
	}
	create, err := spec.FindOperation(doc, spec.OpCreate)
	if err != nil {
		return nil, err
	}
	newPet, err := spec.JSONBodySchema(create)
	if err != nil {
		return nil, err
	}
	f.statusRequired, f.withoutStatus = spec.IsRequired(newPet, "status"), "without one"
	if f.statusRequired {
		f.withoutStatus = "with status " + f.statuses[0] + " (the spec requires one)"
	}
	var all []Mutant
	for _, part := range []func(*facts) []Mutant{listMutants, createMutants, getMutants, authMutants, errorMutants, transportMutants, requestMutants, routeMutants, unnamedMutants, anatomyMutants} {
		all = append(all, part(f)...)
	}
	return all, nil
}

var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)+$`)

// Check reports the first malformed mutant of ms, or nil: names kebab-case and unique, a
// fault, a wrapper, and Catch (and AlsoFails, AlsoErrors) rules that exist in the
// catalogue rules, each listed once.
func Check(ms []Mutant, rules map[string]bool) error {
	seen := map[string]bool{}
	for _, m := range ms {
		switch {
		case !kebab.MatchString(m.Name):
			return fmt.Errorf("mutant %q: the name is not kebab-case", m.Name)
		case seen[m.Name]:
			return fmt.Errorf("mutant %q: the name is used twice", m.Name)
		case m.Fault == "" || m.Wrap == nil || len(m.Catch) == 0:
			return fmt.Errorf("mutant %q: needs a fault, a wrapper and the rules that catch it", m.Name)
		}
		seen[m.Name] = true
		listed := map[string]bool{}
		for _, id := range slices.Concat(m.Catch, m.AlsoFails, m.AlsoErrors) {
			if !rules[id] {
				return fmt.Errorf("mutant %q: rule %q is not in the catalogue", m.Name, id)
			}
			if listed[id] {
				return fmt.Errorf("mutant %q: rule %q is listed twice", m.Name, id)
			}
			listed[id] = true
		}
	}
	return nil
}

// seed returns n valid animals, the statuses taking turns.
func seed(f *facts, n int) func(*reference.Config) {
	return func(cfg *reference.Config) {
		for i := range n {
			cfg.Seed = append(cfg.Seed, reference.NewPet{
				Name: fmt.Sprintf("seed-%d", i+1), CategoryID: int64(i%5 + 1), Status: f.statuses[i%len(f.statuses)],
			})
		}
	}
}

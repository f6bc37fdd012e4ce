package rules

import (
	"encoding/json"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/spec"
)

// Generated cases. Each family of conformance/cases is a rule: one per family and operation
// ("createPet/cases-fields", "getPet/cases-auth"), the routes, and with --fuzz the random
// combinations. The family is sent and judged in conformance/cases; here it only takes its
// place in the catalogue.

// DefaultMaxCreates caps the animals a run creates when Options.MaxCreates is zero: enough
// for the enumerated cases and a --fuzz of a few hundred, few enough for a shared staging.
const DefaultMaxCreates = 500

// caseRules returns the generated-case rules.
func caseRules(f *facts) []Rule { return familyRules(cases.Catalogue(f.Facts)) }

// fuzzRules are the random combinations, one rule per operation, when the run asks for them.
func fuzzRules(f *facts, n int) []Rule { return familyRules(cases.Fuzz(f.Facts, n)) }

func familyRules(fams []cases.Family) []Rule {
	rules := make([]Rule, len(fams))
	for i := range fams {
		rules[i] = Family(&fams[i], familyUses(fams[i].ID))
	}
	return rules
}

// Furnished is fx with what valid requests are built from, out of the animals it holds: a
// categoryId one of them has (else the spec's example), and a valid body for an animal a
// rule creates to act on.
func Furnished(sf *spec.Facts, fx *Fixture) *Fixture {
	f := &facts{sf}
	out := &Fixture{}
	if fx != nil {
		*out = *fx
	}
	out.Reference, out.NewPet = "1", func() map[string]any { return f.petBody(fx, f.Statuses[0]) }
	if ex, ok := f.validNewPet()[categoryField]; ok {
		out.Reference = jsonText(ex)
	}
	if cat, ok := f.borrowedCategory(fx, nil); ok {
		out.Reference = jsonText(cat)
	}
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

package rules

import (
	"slices"
	"strings"

	"github.com/petstore/petstore/internal/document"
)

// What a rule cites. A rule states a requirement of the interface document with a value it
// reads from the spec (the limit maximum, a status value, the required fields). Where the
// spec gives that value otherwise than the document, the requirement is the spec's, not the
// document's: the rule cites the spec's node ("spec #/paths/~1pets/get/parameters/0/schema/maximum")
// and `conformance lint` reports the departure with the document's section.

// The facts rules take from the spec, as their Uses.
var (
	usesDefault = []string{document.FactLimitDefault}
	usesMin     = []string{document.FactLimitMin}
	usesMax     = []string{document.FactLimitMax}
	usesBounds  = []string{document.FactLimitMin, document.FactLimitMax}
	usesNewPet  = []string{document.FactRequired("NewPet")}
	usesAuth    = []string{document.FactAuth}
	usesRemoval = []string{document.FactRemovalDate, document.FactDeprecated}
)

// statusUses is the PetStatus fact when one of values is not a value the document gives:
// a rule about "available" stands on the document whatever other values the spec adds.
func statusUses(values ...string) []string {
	for _, v := range values {
		if !slices.Contains(document.PetStatus.Values, v) {
			return []string{document.FactPetStatus}
		}
	}
	return nil
}

// familyUses are the facts a family of generated cases derives its variants from, by the
// family's kind (the end of its ID).
func familyUses(id string) []string {
	switch id[strings.LastIndex(id, "/")+1:] {
	case "cases-query":
		return []string{document.FactLimitMin, document.FactLimitMax, document.FactLimitDefault, document.FactPetStatus}
	case "cases-fields":
		return []string{document.FactRequired("NewPet"), document.FactPetStatus}
	case "cases-auth":
		return usesAuth
	case "cases-fuzz":
		return []string{document.FactLimitMin, document.FactLimitMax, document.FactRequired("NewPet"), document.FactPetStatus, document.FactAuth}
	}
	return nil
}

// cite is the one place a rule's citation is decided: the rule keeps its section of the
// document unless a fact it uses departs from the document in this spec, and then cites the
// spec's node.
func (f *facts) cite(rules []Rule) []Rule {
	departures := document.Compare(f.Doc)
	if len(departures) == 0 {
		return rules
	}
	for i := range rules {
		for _, fact := range rules[i].Uses {
			if d, ok := departures.Of(fact); ok {
				rules[i].Section = SpecCitation + d.Pointer
				break
			}
		}
	}
	return rules
}

// SpecCitation starts the Section of a rule that cites the spec rather than the document.
const SpecCitation = "spec "

package diff

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/spec"
)

// What a change does to the harness: the rules and the generated case families of the
// catalogue built from the base that differ in the catalogue built from the head. A rule
// differs when it is added, removed, or changes its title (which states its values), its
// severity, the status it expects or what it needs; a family, when its cases (each a variant
// and the verdict the document gives it) differ. A rule that only cites the spec instead of
// the document now is not counted: lint reports the departure.

// catalogue is what a spec makes of the harness: its rules (not the families) and the cases
// of each family, by ID, and the operation of each.
type catalogue struct {
	rules    map[string]rules.Rule
	families map[string]map[string]string // family ID → case name → what the case is
	op       map[string]string            // rule or family ID → operationId
}

func newCatalogue(doc *openapi3.T) (*catalogue, error) {
	facts, err := spec.ReadFacts(doc)
	if err != nil {
		return nil, err
	}
	c := &catalogue{rules: map[string]rules.Rule{}, families: map[string]map[string]string{}, op: map[string]string{}}
	for _, r := range rules.All(facts) {
		c.op[r.ID] = r.Op
		if r.Cost == nil {
			c.rules[r.ID] = r
		}
	}
	g := cases.New(cases.Base{Reference: "1", KnownID: "1", Unknown: []string{"0"}, Name: func() string { return cases.NamePrefix }})
	add := func(id, op string, cs []cases.Case) {
		if len(cs) == 0 {
			return
		}
		c.op[id] = op
		c.families[id] = map[string]string{}
		for _, k := range cs {
			c.families[id][k.Name] = fmt.Sprintf("%s %s %v %s", k.Words, k.Verdict, k.Statuses, k.Section)
		}
	}
	for _, o := range facts.Ops {
		for _, fam := range cases.Families {
			add(o.ID+"/cases-"+fam, o.ID, g.Cases(o, fam))
		}
	}
	add("errors/cases-routes", "", g.Routes(facts.Ops))
	return c, nil
}

// sameRule reports whether a rule reads the same in both catalogues.
func sameRule(a, b rules.Rule) bool {
	return a.Title == b.Title && a.Severity == b.Severity &&
		a.Expects == b.Expects && a.Needs == b.Needs && a.Open == b.Open && a.Gone == b.Gone
}

// effects lists, by operationId ("" for none), the rules and the families that differ from
// base to head.
func effects(base, head *catalogue) (rulesByOp, familiesByOp map[string][]string) {
	rulesByOp, familiesByOp = map[string][]string{}, map[string][]string{}
	for _, id := range union(base.rules, head.rules) {
		b, inBase := base.rules[id]
		h, inHead := head.rules[id]
		switch {
		case !inBase:
			rulesByOp[head.op[id]] = append(rulesByOp[head.op[id]], "+"+id)
		case !inHead:
			rulesByOp[base.op[id]] = append(rulesByOp[base.op[id]], "-"+id)
		case !sameRule(b, h):
			rulesByOp[head.op[id]] = append(rulesByOp[head.op[id]], "~"+id)
		}
	}
	for _, id := range union(base.families, head.families) {
		b, inBase := base.families[id]
		h, inHead := head.families[id]
		switch {
		case !inBase:
			familiesByOp[head.op[id]] = append(familiesByOp[head.op[id]], fmt.Sprintf("+%s (%s)", id, words.Plural(len(h), "case")))
		case !inHead:
			familiesByOp[base.op[id]] = append(familiesByOp[base.op[id]], "-"+id)
		case !reflect.DeepEqual(b, h):
			familiesByOp[head.op[id]] = append(familiesByOp[head.op[id]], "~"+id+" ("+caseCounts(b, h)+")")
		}
	}
	return rulesByOp, familiesByOp
}

// caseCounts says how the cases of a family differ: "2 added, 1 changed".
func caseCounts(base, head map[string]string) string {
	var added, removed, changed int
	for _, name := range union(base, head) {
		b, inBase := base[name]
		h, inHead := head[name]
		switch {
		case !inBase:
			added++
		case !inHead:
			removed++
		case b != h:
			changed++
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{added, "added"}, {removed, "removed"}, {changed, "changed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", words.Plural(p.n, "case"), p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// attribute gives each change the rules and families of its operation that differ. A spec
// the harness cannot build a catalogue from leaves them empty.
func attribute(base, head *openapi3.T, changes []Change) {
	b, errB := newCatalogue(base)
	h, errH := newCatalogue(head)
	if errB != nil || errH != nil {
		return
	}
	rulesByOp, familiesByOp := effects(b, h)
	for i := range changes {
		op := changes[i].OperationID
		changes[i].Rules, changes[i].Families = rulesByOp[op], familiesByOp[op]
	}
}

func union[V any](a, b map[string]V) []string {
	var ids []string
	for id := range a {
		ids = append(ids, id)
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

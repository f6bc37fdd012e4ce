package mutants

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

func load(t *testing.T) (*openapi3.T, []Mutant) {
	t.Helper()
	doc, err := spec.Load()
	require.NoError(t, err)
	ms, err := Catalogue(doc)
	require.NoError(t, err)
	return doc, ms
}

// outcomes caches each mutant's full run, shared by TestMutants and the ablation test.
var outcomes sync.Map // name -> func() (Outcome, error)

func outcome(t *testing.T, doc *openapi3.T, m Mutant) Outcome {
	t.Helper()
	f, _ := outcomes.LoadOrStore(m.Name, sync.OnceValues(func() (Outcome, error) {
		return Run(context.Background(), doc, m)
	}))
	o, err := f.(func() (Outcome, error))()
	require.NoError(t, err)
	return o
}

func ruleIDs(t *testing.T, doc *openapi3.T) []string {
	t.Helper()
	rules, err := conformance.All(doc)
	require.NoError(t, err)
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return ids
}

func TestCatalogue(t *testing.T) {
	doc, ms := load(t)
	assert.GreaterOrEqual(t, len(ms), 30)
	known := map[string]bool{}
	for _, id := range ruleIDs(t, doc) {
		known[id] = true
	}
	require.NoError(t, Check(ms, known))
	areas := map[string]int{}
	for _, m := range ms {
		area, _, _ := strings.Cut(m.Name, "-")
		areas[area]++
	}
	for _, area := range []string{"list", "create", "get", "auth", "errors", "transport"} {
		assert.NotZero(t, areas[area], "no mutant in area %s", area)
	}
	assert.Len(t, areas, 6, "every mutant name starts with its area: %v", areas)
}

func TestCheckRefusesMalformedMutants(t *testing.T) {
	ok := Mutant{Name: "list-fine", Fault: "f", Catch: []string{"r/1"}, Wrap: func(h http.Handler) http.Handler { return h }}
	rules := map[string]bool{"r/1": true}
	for name, m := range map[string]Mutant{
		"not kebab-case": {Name: "List_Fine", Fault: ok.Fault, Catch: ok.Catch, Wrap: ok.Wrap},
		"no fault":       {Name: ok.Name, Catch: ok.Catch, Wrap: ok.Wrap},
		"no catch":       {Name: ok.Name, Fault: ok.Fault, Wrap: ok.Wrap},
		"unknown rule":   {Name: ok.Name, Fault: ok.Fault, Catch: []string{"r/2"}, Wrap: ok.Wrap},
	} {
		assert.Error(t, Check([]Mutant{m}, rules), name)
	}
	assert.Error(t, Check([]Mutant{ok, ok}, rules), "a name used twice")
	assert.NoError(t, Check([]Mutant{ok}, rules))
}

// TestUnmutatedReferencePasses is the control: every rule passes against the plain
// reference server, strict mode included, before and after getPet's removal date.
func TestUnmutatedReferencePasses(t *testing.T) {
	doc, _ := load(t)
	op, err := spec.FindOperation(doc, "getPet")
	require.NoError(t, err)
	after := op.Sunset.AddDate(0, 0, 1)
	for name, plain := range map[string]Mutant{
		"before sunset": {Name: "reference", Options: strict},
		"after sunset": {Name: "reference-after-sunset",
			Config:  func(c *reference.Config) { c.Now = func() time.Time { return after } },
			Options: func(o *conformance.Options) { strict(o); o.Now = after }},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o, err := Run(context.Background(), doc, plain)
			require.NoError(t, err)
			assert.True(t, o.Report.Conforming())
			for _, res := range o.Report.Results {
				if res.Status == conformance.Skip {
					assert.Contains(t, res.Reason, op.Sunset.Format(time.DateOnly), res.ID)
					continue
				}
				assert.Equal(t, conformance.Pass, res.Status, "%s: %s %v", res.ID, res.Reason, res.Failures)
			}
		})
	}
}

// TestMutants runs the catalogue against every mutant and holds it to the exact, measured
// set of rules it does not pass: the rules named for the fault (Catch) fail, each of them
// (an Inconclusive mutant's may end in Error instead), the other rules that fail are
// AlsoFails and those that end in Error AlsoErrors, and no other rule fails. A rule that
// fails without being listed, or is listed and does not fail, is named. A mutant with a
// Gap must still survive, so that the note is removed once the rule that catches it
// exists.
func TestMutants(t *testing.T) {
	doc, ms := load(t)
	for _, m := range ms {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			o := outcome(t, doc, m)
			if m.Gap != "" {
				assert.False(t, o.Killed(), "mutant %s is caught now by %v: remove its Gap", m.Name, o.Caught)
				return
			}
			assert.True(t, o.Detected(), "mutant %s survived: the run conforms (%s)", m.Name, m.Fault)
			for _, d := range differences(m, o.Report) {
				t.Error(d)
			}
		})
	}
}

// differences compares what m lists (Catch, AlsoFails, AlsoErrors) with what rep says: one
// line for each rule that does not pass and is not listed as it ended, and for each listed
// rule that ended otherwise.
func differences(m Mutant, rep *conformance.Report) []string {
	want := map[string]string{}
	for _, id := range m.AlsoFails {
		want[id] = "fails"
	}
	for _, id := range m.AlsoErrors {
		want[id] = "ends in Error"
	}
	for _, id := range m.Catch {
		want[id] = "fails (named for the fault)"
	}
	var out []string
	for _, res := range rep.Results {
		var got string
		switch {
		case res.Status == conformance.Fail:
			got = "fails"
		case res.Status == conformance.Error:
			got = "ends in Error"
		}
		w, listed := want[res.ID]
		delete(want, res.ID)
		if got == "ends in Error" && m.Inconclusive && slices.Contains(m.Catch, res.ID) {
			got = w // a transport fault's rule that meets it cannot be judged
		}
		switch {
		case !listed && got == "":
		case !listed:
			out = append(out, fmt.Sprintf("%s %s, but is not listed for mutant %s (AlsoFails, AlsoErrors or Catch)", res.ID, got, m.Name))
		case got == "":
			out = append(out, fmt.Sprintf("%s is listed for mutant %s as it %s, but its status is %s (%s)", res.ID, m.Name, w, res.Status, res.Reason))
		case !strings.HasPrefix(w, got):
			out = append(out, fmt.Sprintf("%s %s against mutant %s, but is listed as it %s", res.ID, got, m.Name, w))
		}
	}
	for id := range want {
		out = append(out, fmt.Sprintf("%s is listed for mutant %s but was not run", id, m.Name))
	}
	sort.Strings(out)
	return out
}

// differences names each rule that breaks the exact set, whichever way.
func TestDifferences(t *testing.T) {
	rep := &conformance.Report{Results: []conformance.Result{
		{ID: "r/caught", Status: conformance.Fail},
		{ID: "r/also", Status: conformance.Fail},
		{ID: "r/unlisted", Status: conformance.Fail},
		{ID: "r/passes", Status: conformance.Pass, Reason: "fine"},
		{ID: "r/errs", Status: conformance.Error},
		{ID: "r/hang", Status: conformance.Error},
	}}
	m := Mutant{Name: "m", Catch: []string{"r/caught", "r/passes"}, AlsoFails: []string{"r/also", "r/errs"}, AlsoErrors: []string{"r/gone"}}
	assert.Equal(t, []string{
		"r/errs ends in Error against mutant m, but is listed as it fails",
		"r/gone is listed for mutant m but was not run",
		"r/hang ends in Error, but is not listed for mutant m (AlsoFails, AlsoErrors or Catch)",
		"r/passes is listed for mutant m as it fails (named for the fault), but its status is pass (fine)",
		"r/unlisted fails, but is not listed for mutant m (AlsoFails, AlsoErrors or Catch)",
	}, differences(m, rep))
	exact := Mutant{Name: "m", Catch: []string{"r/caught", "r/hang"}, AlsoFails: []string{"r/also", "r/unlisted"}, AlsoErrors: []string{"r/errs"}, Inconclusive: true}
	assert.Empty(t, differences(exact, rep))
}

// TestSkippingARuleLetsAMutantThrough spot-checks that rules earn their place: with one of
// these rules (or one family of generated rules) skipped, some mutant passes the suite.
// Every family of generated cases is the only catcher of some request-side mutant. (Many
// hand-written rules, listPets/limit-above-max or createPet/missing-name say, are no longer
// the only catchers of anything since the generated cases came: they stay as readable
// statements of single requirements.)
func TestSkippingARuleLetsAMutantThrough(t *testing.T) {
	doc, ms := load(t)
	var singles []string
	for _, id := range ruleIDs(t, doc) {
		// The mutants are faults of the documented operations; another one the spec has
		// (a DELETE its author added) has families no mutant is for.
		if op, _, _ := strings.Cut(id, "/"); strings.Contains(id, "/cases-") && (op == "errors" || slices.Contains([]string{spec.OpList, spec.OpCreate, spec.OpGet}, op)) {
			singles = append(singles, id)
		}
	}
	require.Len(t, singles, 14, "a generated family per operation and kind of variant, and the routes")
	singles = append(singles, "listPets/limit-max-full")
	entries := Singles(singles)
	ops, err := spec.Operations(doc) // every operation's near-key rule is in the family
	require.NoError(t, err)
	opIDs := make([]string, len(ops))
	for i, o := range ops {
		opIDs[i] = o.ID
	}
	for _, f := range Families(ruleIDs(t, doc), opIDs) {
		if f.Name == "auth/*-near-key" {
			entries = append(entries, f)
		}
	}
	require.Len(t, entries, len(singles)+1)
	all := make([]Outcome, len(ms))
	for i, m := range ms {
		all[i] = outcome(t, doc, m)
	}
	as, err := Ablate(context.Background(), doc, all, entries, 2, true)
	require.NoError(t, err)
	for _, a := range as {
		assert.NotEmpty(t, a.Survivors, "skipping %s lets no mutant through (it failed on %v)", a.Name, a.FailedOn)
		t.Logf("skip %s: %v pass", a.Name, a.Survivors)
	}
}

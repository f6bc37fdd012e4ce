package conformance_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// failedByTestServer are the rules no mutant fails, each with a server of these tests that
// fails it (the mutants are faults of the document's MUSTs; an ADVISORY reading warns).
var failedByTestServer = map[string]func(http.Handler) http.Handler{
	"getPet/deprecation-headers-sent": noDeprecationHeaders,
}

// Every rule of the catalogue can fail against some server: a mutant fails it (TestMutants
// holds each mutant to the exact set of rules it fails or warns on, so the sets read here
// are measured), or a server of these tests does, run here. A rule no server can fail judges
// the spec, not the server: it belongs in conformance lint.
func TestEveryRuleCanFail(t *testing.T) {
	doc, err := spec.Load()
	require.NoError(t, err)
	ms, err := mutants.Catalogue(doc)
	require.NoError(t, err)
	failedBy := map[string]string{}
	for _, m := range ms {
		if m.Gap != "" {
			continue // survives: its Catch fail nowhere
		}
		ids := m.AlsoFails
		if !m.Inconclusive {
			ids = append(ids, m.Catch...) // an inconclusive mutant's rules may end in Error only
		}
		for _, id := range ids {
			failedBy[id] = m.Name
		}
	}
	all, err := conformance.All(doc)
	require.NoError(t, err)
	for _, r := range all {
		wrap, ok := failedByTestServer[r.ID]
		if _, byMutant := failedBy[r.ID]; byMutant || !ok {
			assert.True(t, byMutant, "no mutant and no test server fails %s: a rule no server can fail judges nothing about the server", r.ID)
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			rep := run(t, serve(t, wrap(newReference(t, beforeSunset, reference.Config{}))), conformance.Options{Only: []string{r.ID}})
			res, ok := rep.Result(r.ID)
			require.True(t, ok)
			assert.Contains(t, []conformance.Status{conformance.Fail, conformance.Warn}, res.Status, res.Reason)
		})
	}
	for id := range failedByTestServer {
		assert.NotContains(t, failedBy, id, "a mutant fails %s: its test server goes from the list", id)
	}
}

package conformance_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// Change the spec in memory (limit maximum 200, default 50, a fourth status value) and
// both the reference server and the rule catalogue follow without a code change: every rule
// passes, and the new values are the ones exercised (issue 8 item 3).
func TestReferenceAndRulesFollowTheSpec(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	text := strings.NewReplacer(
		"maximum: 100", "maximum: 200",
		"default: 20", "default: 50",
		"        - sold\n", "        - sold\n        - reserved\n",
	).Replace(string(document.Spec)) // the document's spec, whatever spec/openapi.yaml says
	require.NotEqual(t, string(document.Spec), text)
	doc, err := spec.Parse([]byte(text))
	require.NoError(t, err)

	target := serve(t, newReference(t, beforeSunset, reference.Config{Spec: doc}))
	rep := run(t, target, conformance.Options{Spec: doc, Strict: true})
	for _, res := range rep.Results {
		assert.Contains(t, []conformance.Status{conformance.Pass, conformance.Skip}, res.Status,
			"%s: %s %v", res.ID, res.Reason, res.Failures)
	}
	assert.Equal(t, conformance.Conforming, rep.Verdict)
	for _, id := range []string{"listPets/default-limit-exact", "listPets/limit-max", "listPets/status-reserved"} {
		res, ok := rep.Result(id)
		require.True(t, ok, id)
		assert.Equal(t, conformance.Pass, res.Status, id)
	}
	titles := map[string]string{}
	rules, err := conformance.All(doc)
	require.NoError(t, err)
	for _, r := range rules {
		titles[r.ID] = r.Title
	}
	assert.Contains(t, titles["listPets/default-limit"], "at most 50 animals")
	assert.Contains(t, titles["listPets/limit-max"], "200")

	// The server itself: the new bound and value are accepted, one past the bound is not.
	get := func(query string) int {
		req, err := http.NewRequest(http.MethodGet, target.BaseURL+"/pets?"+query, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+testKey)
		resp, err := target.Client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, get("limit=200"))
	assert.Equal(t, http.StatusBadRequest, get("limit=201"))
	assert.Equal(t, http.StatusOK, get("status=reserved"))
}

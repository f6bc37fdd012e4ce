package conformance_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/spec"
)

func TestCatalogue(t *testing.T) {
	doc := spec.MustLoad()
	rules, err := conformance.All(doc)
	require.NoError(t, err)
	ops, err := spec.Operations(doc)
	require.NoError(t, err)
	prefixes := map[string]bool{}
	for _, s := range conformance.Sections {
		prefixes[s] = true
	}
	for _, op := range ops {
		prefixes[op.ID] = true
	}
	seen := map[string]bool{}
	perOp := map[string]int{}
	for _, r := range rules {
		assert.False(t, seen[r.ID], "duplicate ID %s", r.ID)
		seen[r.ID] = true
		prefix, slug, ok := strings.Cut(r.ID, "/")
		assert.True(t, ok && slug != "" && !strings.Contains(slug, "/"), "ID %s is not prefix/slug", r.ID)
		assert.True(t, prefixes[prefix], "ID %s: prefix is neither an operationId nor a section", r.ID)
		assert.NotEmpty(t, r.Section, r.ID)
		assert.NotEmpty(t, r.Title, r.ID)
		assert.NotNil(t, r.Run, "%s: a rule has a run", r.ID)
		if r.Op != "" {
			assert.True(t, prefixes[r.Op] && r.Op != "auth", "%s: Op %q is not an operation", r.ID, r.Op)
		}
		perOp[prefix]++
	}
	for _, op := range ops {
		assert.NotZero(t, perOp[op.ID], "operation %s has no rule of its own", op.ID)
		for _, slug := range []string{"missing", "wrong-key", "not-bearer", "empty-token"} {
			assert.True(t, seen["auth/"+op.ID+"-"+slug], "no auth rule %s for %s", slug, op.ID)
		}
	}
}

// The values rules use come from the spec: change the spec and the rules follow.
func TestCatalogueFollowsSpec(t *testing.T) {
	text := strings.NewReplacer("maximum: 100", "maximum: 50", "default: 20", "default: 10",
		"        - sold\n", "        - sold\n        - reserved\n").Replace(string(document.Spec)) // the document's spec
	doc, err := spec.Parse([]byte(text))
	require.NoError(t, err)
	rules, err := conformance.All(doc)
	require.NoError(t, err)
	titles := map[string]string{}
	for _, r := range rules {
		titles[r.ID] = r.Title
	}
	assert.Contains(t, titles["listPets/default-limit"], "at most 10 animals")
	assert.Contains(t, titles["listPets/limit-above-max"], "limit=51")
	assert.Contains(t, titles["listPets/limit-far-above-max"], "limit=500")
	assert.Contains(t, titles, "listPets/status-reserved")
}

func TestSelect(t *testing.T) {
	rules, err := conformance.All(spec.MustLoad())
	require.NoError(t, err)
	ids := func(only, skip []string) []string {
		sel, err := conformance.Select(rules, only, skip)
		require.NoError(t, err)
		var out []string
		for _, r := range sel {
			out = append(out, r.ID)
		}
		return out
	}
	assert.Len(t, ids(nil, nil), len(rules))
	errs := []string{"errors/unauthorized", "errors/bad-request", "errors/not-found", "errors/machine-readable-code", "errors/cases-routes"}
	assert.Equal(t, errs, ids([]string{"errors/*"}, nil))
	assert.Equal(t, errs, ids([]string{"errors"}, nil), "a prefix selects its rules")
	assert.Equal(t, []string{"errors/unauthorized", "errors/not-found"}, ids([]string{"errors"}, []string{"*/bad-*", "*-code", "cases-*"}))
	for _, id := range ids([]string{"*/limit-*"}, nil) {
		assert.True(t, strings.HasPrefix(id, "listPets/limit-"), id)
	}
	_, err = conformance.Select(rules, []string{"nothing/*"}, nil)
	assert.ErrorContains(t, err, "no rule matches")
	_, err = conformance.Select(rules, []string{"[bad"}, nil)
	assert.ErrorContains(t, err, "bad pattern")
}

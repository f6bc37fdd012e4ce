package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pairsDir = "../../testdata/specs/diff"

func loadPair(t *testing.T, dir string) (base, head string) {
	t.Helper()
	base, head = filepath.Join(dir, "base.yaml"), filepath.Join(dir, "head.yaml")
	for _, f := range []string{base, head} {
		_, err := os.Stat(f)
		require.NoError(t, err)
	}
	return base, head
}

func TestRemovedAfterSunsetListedFromTheDate(t *testing.T) {
	// From the removal date on, removing the operation is listed as non-breaking; before it,
	// oasdiff's api-removed-before-sunset reports it as breaking and sunsets adds nothing.
	baseFile, headFile := loadPair(t, filepath.Join(pairsDir, "deprecated-operation-removed-after-sunset"))
	base, head := mustLoad(t, baseFile), mustLoad(t, headFile)
	after := sunsets(base, head, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC))
	require.Len(t, after, 1)
	assert.Equal(t, OperationRemoved, after[0].Kind)
	assert.False(t, after[0].Breaking)
	assert.Empty(t, sunsets(base, head, time.Date(2000, 12, 31, 0, 0, 0, 0, time.UTC)))
}

func mustLoad(t *testing.T, file string) *openapi3.T {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	doc, err := Load(data)
	require.NoError(t, err)
	return doc
}

func TestIntegersWithoutFraction(t *testing.T) {
	assert.Equal(t, "the max was decreased from `100` to `50`", integers("the max was decreased from `100.00` to `50.00`"))
	assert.Equal(t, "from `-1` to `0.5`", integers("from `-1.00` to `0.5`"))
}

// Widening what a request may carry breaks deployments that refuse the new values; widening
// what a response may carry breaks none, since none sends the new values.
func TestProvidersOfWidening(t *testing.T) {
	req := Change{Kind: EnumWidened, Check: "request-property-enum-value-added"}
	resp := Change{Kind: EnumWidened, Check: "response-property-enum-value-added"}
	forProviders(&req)
	forProviders(&resp)
	assert.True(t, req.BreaksProviders)
	assert.False(t, resp.BreaksProviders)
	assert.Contains(t, resp.Providers, "never sends the new values")
	other := Change{Kind: "some-new-oasdiff-check"}
	forProviders(&other)
	assert.False(t, other.BreaksProviders)
	assert.Contains(t, other.Providers, "not classified")
}

// Two changes to one operation: its catalogue changes, which are those of both together, are
// written once, not under each change.
func TestRulesOfAnOperationWrittenOnce(t *testing.T) {
	changes := []Change{
		{Kind: BoundNarrowed, Method: "GET", Path: "/pets", OperationID: "listPets", Message: "max narrowed", Check: "a",
			Rules: []string{"~listPets/limit-max"}, Families: []string{"~listPets/cases-limit (1 case changed)"}},
		{Kind: EnumNarrowed, Method: "GET", Path: "/pets", OperationID: "listPets", Message: "enum narrowed", Check: "b",
			Rules: []string{"~listPets/limit-max"}, Families: []string{"~listPets/cases-limit (1 case changed)"}},
	}
	var b strings.Builder
	require.NoError(t, writeText(&b, changes))
	out := b.String()
	assert.Equal(t, 1, strings.Count(out, "~listPets/limit-max"), out)
	assert.Equal(t, 1, strings.Count(out, "~listPets/cases-limit"), out)
	assert.Contains(t, out, "as under the first change to listPets")
}

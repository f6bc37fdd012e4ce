package zoo

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKeyBlanksValues(t *testing.T) {
	assert.Equal(t, "createPet/cases-auth | no Authorization header | want … Unauthorized with an Error body, got … Bad Request",
		Key("createPet/cases-auth", "no Authorization header", "want 401 Unauthorized with an Error body, got 400 Bad Request"))
	assert.Equal(t, "getPet/unknown-id | want status … Not Found, got … OK", Key("getPet/unknown-id", "", "want status 404 Not Found, got 200 OK"))
}

// A recorded fault that is not reported is lost; a failure nobody judged, or a false
// positive that comes back, changes a verdict too.
func TestCompare(t *testing.T) {
	rec := &Implementation{Failures: map[string]Judgement{
		"a": {Verdict: Fault}, "b": {Verdict: Fault}, "c": {Verdict: FalsePositive}, "d": {Verdict: Should},
	}}
	lost, unjudged, fps := Compare(rec, Observed{Failures: []string{"a", "c", "e"}})
	assert.Equal(t, []string{"b", "d"}, lost)
	assert.Equal(t, []string{"e"}, unjudged)
	assert.Equal(t, []string{"c"}, fps)
	lost, unjudged, fps = Compare(rec, Observed{Failures: []string{"a", "b", "d"}})
	assert.Empty(t, lost)
	assert.Empty(t, unjudged)
	assert.Empty(t, fps)
}

// docs/zoo.md is what the record says: regenerate it with make zoo-docs.
func TestDocIsCurrent(t *testing.T) {
	rec, err := ReadRecord("verdicts.json")
	assert.NoError(t, err)
	var b strings.Builder
	assert.NoError(t, WriteMarkdown(&b, rec))
	want, err := os.ReadFile("../docs/zoo.md")
	assert.NoError(t, err)
	assert.Equal(t, string(want), b.String(), "docs/zoo.md is stale against zoo/verdicts.json: run make zoo-docs and commit it")
}

// An open miss or an unjudged failure shows in the table, so a stale record cannot look clean.
func TestMarkdownCountsMisses(t *testing.T) {
	rec := Record{"x": {Framework: "X", Failures: map[string]Judgement{"r | m": {Verdict: Fault, Section: "5.3"}},
		Misses: []Miss{{Finding: "x-1", What: "w"}, {Finding: "x-2", What: "v", CaughtBy: "r | m"}}}}
	var b strings.Builder
	assert.NoError(t, WriteMarkdown(&b, rec))
	assert.Contains(t, b.String(), "| x | X | 1 | 0 | 0 | 0 | 0 | 2 | 0 | 1 |")
	assert.Contains(t, b.String(), "| x-1 | w | **still missed** | missed |")
}

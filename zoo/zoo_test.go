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
	assert.Equal(t, "getPet/cases-path | petId = …_…, a listed animal's id | want … OK", Key("getPet/cases-path", "petId = 1_24, a listed animal's id", "want 200 OK"))
}

// A recorded fault that is not reported is lost; a failure nobody judged, or a false
// positive that comes back, changes a verdict too.
func TestCompare(t *testing.T) {
	rec := &Implementation{Failures: map[string]Judgement{
		"a": {Verdict: Fault}, "b": {Verdict: Fault}, "c": {Verdict: FalsePositive}, "d": {Verdict: Should},
		"i": {Verdict: Fault, Intermittent: true}, // shown in some runs only: not lost when absent
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
	assert.NotContains(t, b.String(), "Not judged here")
	rec["x"].Unavailable = &Unavailable{Since: "2026-11-30", Reason: "no npm"}
	b.Reset()
	assert.NoError(t, WriteMarkdown(&b, rec))
	assert.Contains(t, b.String(), "**Not judged here since 2026-11-30** (accepted as unavailable): no npm")
}

// An implementation that could not be installed, started or judged fails the zoo, naming it
// and why, unless the record accepts it as unavailable with a date and a reason; then the
// reason is what is printed.
func TestNotJudged(t *testing.T) {
	skipped := Observed{Skipped: "did not start: start.sh ended (exit status 1): boom"}
	accepted := &Unavailable{Since: "2026-11-30", Reason: "npm registry unreachable from CI"}
	for _, tc := range []struct {
		name          string
		rec           *Implementation
		obs           Observed
		failure, note string
	}{
		{"judged", &Implementation{}, Observed{Ran: true}, "", ""},
		{"judged, no record", nil, Observed{Ran: true}, "", ""},
		{"judged, stale entry", &Implementation{Unavailable: accepted}, Observed{Ran: true}, "",
			"x was judged, although the record says it is unavailable since 2026-11-30: remove that entry"},
		{"not judged, no record", nil, skipped,
			"x was not judged: did not start: start.sh ended (exit status 1): boom (no unavailable entry for it in the record)", ""},
		{"not judged, no entry", &Implementation{}, skipped,
			"x was not judged: did not start: start.sh ended (exit status 1): boom (no unavailable entry for it in the record)", ""},
		{"install failed, no entry", &Implementation{}, Observed{Skipped: "install failed: npm not found"},
			"x was not judged: install failed: npm not found (no unavailable entry for it in the record)", ""},
		{"explore could not run, no entry", &Implementation{}, Observed{Ran: true, Skipped: "not explored: explore gave no report"},
			"x was not judged: not explored: explore gave no report (no unavailable entry for it in the record)", ""},
		{"entry without reason", &Implementation{Unavailable: &Unavailable{Since: "2026-11-30", Reason: " "}}, skipped,
			"x was not judged: did not start: start.sh ended (exit status 1): boom (its unavailable entry gives no reason)", ""},
		{"entry without date", &Implementation{Unavailable: &Unavailable{Reason: "r"}}, skipped,
			"x was not judged: did not start: start.sh ended (exit status 1): boom (its unavailable entry has no date YYYY-MM-DD: \"\")", ""},
		{"entry with a bad date", &Implementation{Unavailable: &Unavailable{Since: "30/11/2026", Reason: "r"}}, skipped,
			"x was not judged: did not start: start.sh ended (exit status 1): boom (its unavailable entry has no date YYYY-MM-DD: \"30/11/2026\")", ""},
		{"accepted", &Implementation{Unavailable: accepted}, skipped, "",
			"x was not judged: did not start: start.sh ended (exit status 1): boom; accepted as unavailable since 2026-11-30: npm registry unreachable from CI"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failure, note := NotJudged("x", tc.rec, tc.obs)
			assert.Equal(t, tc.failure, failure)
			assert.Equal(t, tc.note, note)
		})
	}
}

// The unavailable entry is read from the record file.
func TestReadRecordUnavailable(t *testing.T) {
	path := t.TempDir() + "/verdicts.json"
	assert.NoError(t, os.WriteFile(path, []byte(`{"x": {"framework": "X", "failures": {}, "unavailable": {"since": "2026-11-30", "reason": "r"}}}`), 0o644))
	rec, err := ReadRecord(path)
	assert.NoError(t, err)
	assert.Equal(t, &Unavailable{Since: "2026-11-30", Reason: "r"}, rec["x"].Unavailable)
}

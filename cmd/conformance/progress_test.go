package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/spec"
)

// A line per section once its last rule is judged, in catalogue order, whatever order the
// sections interleave in.
func TestSectionLines(t *testing.T) {
	results := []conformance.Result{
		{ID: "auth/a", Status: conformance.Pass},
		{ID: "auth/b", Status: conformance.Fail},
		{ID: "listPets/a", Status: conformance.Pass},
		{ID: "createPet/a", Status: conformance.Error},
		{ID: "listPets/cases-query", Status: conformance.Skip},
		{ID: "getPet/a", Status: conformance.Waived},
	}
	var ids []string
	for _, r := range results {
		ids = append(ids, r.ID)
	}
	var buf bytes.Buffer
	finished := sectionLines(&buf, ids)
	for i, r := range results {
		finished(i+1, len(results), r)
		if i == 0 {
			assert.Empty(t, buf.String(), "auth has a rule to come")
		}
	}
	assert.Equal(t, "auth: 2 rules, 1 pass, 1 fail (2/6)\n"+
		"createPet: 1 rule, 1 error (4/6)\n"+
		"listPets: 2 rules, 1 pass, 1 skip (5/6)\n"+
		"getPet: 1 rule, 1 waived (6/6)\n", buf.String())

	// Rules beyond those expected (none expected here) get their lines at the end.
	buf.Reset()
	finished = sectionLines(&buf, nil)
	finished(1, 2, results[0])
	finished(2, 2, results[2])
	assert.Equal(t, "auth: 1 rule, 1 pass (2/2)\nlistPets: 1 rule, 1 pass (2/2)\n", buf.String())
}

// stdoutFile is a file to give a command as its stdout, as a CI job redirects it.
func stdoutFile(t *testing.T) *os.File {
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// With stdout redirected (a CI log), stderr gets a line per finished section and, after the
// report, the IDs of the rules that failed.
func TestProgressInCI(t *testing.T) {
	facts, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	selected, err := conformance.Select(rules.All(facts), []string{"auth", "errors"}, []string{"*/cases-*"})
	require.NoError(t, err)
	auth := 0
	for _, r := range selected {
		if section(r.ID) == "auth" {
			auth++
		}
	}
	var stderr bytes.Buffer
	out := stdoutFile(t)
	err = run(context.Background(), []string{"conformance", "run", "--base-url", openReference(t, true), "--api-key", key,
		"--only", "auth,errors", "--skip", "*/cases-*"}, func(string) string { return "" }, out, &stderr)
	require.Error(t, err)
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	require.Len(t, lines, 3, stderr.String())
	assert.Regexp(t, fmt.Sprintf(`^auth: %d rules, \d+ pass, \d+ fail(, \d+ warn)? \(%d/%d\)$`, auth, auth, len(selected)), lines[0])
	assert.Regexp(t, fmt.Sprintf(`^errors: %d rules, .*\(%d/%d\)$`, len(selected)-auth, len(selected), len(selected)), lines[1])
	assert.Regexp(t, `^failed: \d+ rules: auth/listPets-missing, `, lines[2])
	assert.Contains(t, lines[2], "errors/unauthorized")
	report, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	assert.Contains(t, string(report), "NOT CONFORMING", "the report is on stdout as before")

	// A conforming run closes with its sections only.
	stderr.Reset()
	require.NoError(t, run(context.Background(), []string{"conformance", "run", "--only", "versioning"},
		func(string) string { return "" }, stdoutFile(t), &stderr))
	assert.Equal(t, "versioning: 1 rule, 1 pass (1/1)\n", stderr.String())
}

// With stdout on a terminal, the run shows the rewritten progress line on a terminal stderr,
// and no section lines; off a terminal and with stdout not a file, nothing.
func TestProgressOnATerminal(t *testing.T) {
	var stderr bytes.Buffer
	tty := env{stdout: io.Discard, stderr: &stderr, isTerminal: func(io.Writer) bool { return true }}
	update, finished, done := progress(tty, []string{"auth/a"})
	require.NotNil(t, update)
	assert.Nil(t, finished)
	update(1, 1, "auth/a")
	done()
	assert.Equal(t, "\r\x1b[Krule 1/1 auth/a\r\x1b[K", stderr.String())

	stderrOnly := env{stdout: io.Discard, stderr: &stderr, isTerminal: func(w io.Writer) bool { return w == &stderr }}
	update, finished, _ = progress(stderrOnly, nil)
	assert.Nil(t, update, "stdout is not a terminal")
	assert.Nil(t, finished, "nor a file or a pipe")
}

// Colour needs a terminal, and NO_COLOR or TERM=dumb turn it off.
func TestColour(t *testing.T) {
	for _, tt := range []struct {
		name     string
		env      map[string]string
		terminal bool
		want     bool
	}{
		{"terminal", map[string]string{"TERM": "xterm-256color"}, true, true},
		{"no terminal", nil, false, false},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1", "TERM": "xterm"}, true, false},
		{"TERM=dumb", map[string]string{"TERM": "dumb"}, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := env{getenv: func(k string) string { return tt.env[k] }, stdout: io.Discard,
				isTerminal: func(io.Writer) bool { return tt.terminal }}
			assert.Equal(t, tt.want, e.colour())
		})
	}
}

// A rule in error may have had answers (its check panicked, its animals could not be
// prepared): the closing line does not say there was no answer to judge.
func TestUnjudgedLineDoesNotGuessWhy(t *testing.T) {
	var b strings.Builder
	writeUnjudged(&b, &conformance.Report{Results: []conformance.Result{
		{ID: "createPet/valid", Status: conformance.Error, Reason: "the check panicked: boom"},
		{ID: "listPets/limit-max", Status: conformance.Fail},
	}})
	assert.Equal(t, "failed: 1 rule: listPets/limit-max\nerror (not judged, each for the reason its report gives): 1 rule: createPet/valid\n", b.String())
}

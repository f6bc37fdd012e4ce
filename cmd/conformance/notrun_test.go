package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
)

// A run that cannot be made (exit 2) still writes every report asked for, with the reason,
// so that a CI job always has its artifacts.
func TestNotRunWritesReports(t *testing.T) {
	for _, tt := range []struct {
		name, reason string
		args         []string
	}{
		{"unreachable", "target unreachable", []string{"--base-url", "http://127.0.0.1:1/v1", "--api-key", "k"}},
		{"no version segment", "did you mean http://127.0.0.1:1/v1?", []string{"--base-url", "http://127.0.0.1:1", "--api-key", "k"}},
		{"key refused", "the target refused the API key", []string{"--base-url", openReference(t, false), "--api-key", "not-the-key"}},
		{"all skipped", "no rule could be judged", []string{"--only", "getPet/gone-after-sunset", "--now", "2026-01-02"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := func(name string) string { return filepath.Join(dir, "reports", name) }
			args := append([]string{"run", "--format", "json", "--output", file("out.json"),
				"--report", "junit=" + file("junit.xml"), "--report", "html=" + file("report.html"),
				"--report", "json=" + file("report.json"), "--report", "markdown=" + file("summary.md")}, tt.args...)
			code, out, errOut := runMain(t, nil, args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.reason)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			if tt.name != "all skipped" {
				assert.Empty(t, out)
			}
			read := func(name string) string {
				data, err := os.ReadFile(file(name))
				require.NoError(t, err)
				return string(data)
			}
			for _, name := range []string{"out.json", "report.json"} {
				var rep conformance.Report
				require.NoError(t, json.Unmarshal([]byte(read(name)), &rep))
				assert.Equal(t, conformance.NotRun, rep.Verdict)
				require.NotEmpty(t, rep.GateFailures)
				last := rep.GateFailures[len(rep.GateFailures)-1]
				assert.Equal(t, "run", last.Gate)
				assert.Contains(t, last.Message, tt.reason)
				assert.Equal(t, "Pet Store", rep.SpecTitle)
			}
			var suites struct {
				Failures int `xml:"failures,attr"`
				Suites   []struct {
					Cases []struct {
						Name    string `xml:"name,attr"`
						Failure *struct {
							Message string `xml:"message,attr"`
						} `xml:"failure"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			require.NoError(t, xml.Unmarshal([]byte(read("junit.xml")), &suites))
			assert.Positive(t, suites.Failures, "CI marks the job failed")
			found := false
			for _, s := range suites.Suites {
				for _, c := range s.Cases {
					found = found || (c.Name == "run" && c.Failure != nil && strings.Contains(c.Failure.Message, tt.reason))
				}
			}
			assert.True(t, found, "the reason is a failed testcase")
			assert.True(t, strings.HasPrefix(read("summary.md"), "## ❌ Pet Store 1.0.0: the run could not be made\n"), read("summary.md"))
			assert.Contains(t, read("summary.md"), tt.reason)
			assert.Contains(t, read("report.html"), `<div class="verdict">COULD NOT BE MADE</div>`)
			assert.Contains(t, read("report.html"), "The run could not be made: ")
		})
	}
}

// Without --output, a JSON report of a run that could not be made goes to stdout; the text
// report does not (the reason is the one line on stderr).
func TestNotRunStdout(t *testing.T) {
	code, out, _ := runMain(t, nil, "run", "--base-url", "http://127.0.0.1:1", "--format", "json")
	assert.Equal(t, 2, code)
	var rep conformance.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, conformance.NotRun, rep.Verdict)
	assert.Equal(t, "http://127.0.0.1:1", rep.Target)

	code, out, _ = runMain(t, nil, "run", "--base-url", "http://127.0.0.1:1")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// writeSpec writes the embedded spec, changed by edit, to a temporary file.
func writeSpec(t *testing.T, edit func(string) string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	require.NoError(t, os.WriteFile(path, []byte(edit(string(spec.Bytes()))), 0o600))
	return path
}

// Each command of another package is reachable from the table, with its exit codes.
func TestSpecToolCommands(t *testing.T) {
	same := writeSpec(t, func(s string) string { return s })
	tests := []struct {
		name string
		args []string
		code int
		out  string // a line the output (stdout or stderr) contains
	}{
		{"lint clean", []string{"lint", same}, 0, ""},
		{"lint unreadable", []string{"lint", "no-such.yaml"}, 2, "no-such.yaml"},
		{"diff no change", []string{"diff", same, same}, 0, "no changes"},
		{"check-har unreadable", []string{"check-har", "no-such.har"}, 2, "no-such.har"},
		{"proxy without upstream", []string{"proxy", "--listen", "127.0.0.1:0"}, 2, "upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, nil, tt.args...)
			assert.Equal(t, tt.code, code, "stdout: %s\nstderr: %s", stdout, stderr)
			assert.Contains(t, stdout+stderr, tt.out)
		})
	}
}

// A rule that relies on a response the spec no longer documents is reported by lint, not
// silently skipped (issue 8 item 3).
func TestLintCrossChecksTheRules(t *testing.T) {
	const notFound = "        '404':\n          description: The requested resource could not be found.\n"
	noNotFound := writeSpec(t, func(s string) string {
		i := strings.Index(s, notFound)
		require.GreaterOrEqual(t, i, 0)
		j := strings.Index(s[i:], "components:")
		return s[:i] + s[i+j:]
	})
	code, stdout, stderr := runMain(t, nil, "lint", noNotFound)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, "rule-response")
	assert.Contains(t, stdout, "getPet/unknown-id")
}

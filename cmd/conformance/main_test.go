package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/reference"
)

// runMain calls run with env as the environment and returns the exit code and output.
func runMain(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"conformance"}, args...), func(k string) string { return env[k] }, &out, &errOut)
	if err != nil && err.Error() != "" {
		errOut.WriteString(err.Error() + "\n")
	}
	return cli.Code(err), out.String(), errOut.String()
}

const key = "cmd-test-key-93b2"

// openReference serves the reference, broken so that requests without a key get in.
func openReference(t *testing.T, broken bool) string {
	h, err := reference.NewServer(reference.Config{APIKeys: []string{key}})
	require.NoError(t, err)
	if broken {
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+key)
			inner.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestRunInProcessReference(t *testing.T) {
	code, out, errOut := runMain(t, nil, "run")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n5 Authentication\n")
	assert.Regexp(t, `\n60 rules: 59 pass, 0 fail, 0 warn, 1 skip, 0 error; \d+ animals created, 0 found; [\d.]+ ms: CONFORMING\n$`, out)

	// With a clock past getPet's removal date, the in-process reference shares it.
	code, out, _ = runMain(t, nil, "run", "--now", "2031-01-01", "--only", "getPet")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "pass   MUST    getPet/gone-after-sunset")
}

func TestRunAgainstBaseURL(t *testing.T) {
	base := openReference(t, false)
	code, out, errOut := runMain(t, map[string]string{"PETSTORE_API_KEY": key}, "run", "--base-url", base, "--format", "json")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Target  string `json:"target"`
		Verdict string `json:"verdict"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, base, rep.Target)
	assert.Equal(t, "conforming", rep.Verdict)
}

// Against a server that breaks a rule, the run exits 1 and names the rule, its section
// and a curl line that reads the key from the environment.
func TestRunFaultyServer(t *testing.T) {
	base := openReference(t, true)
	code, out, _ := runMain(t, nil, "run", "--base-url", base, "--api-key", key)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "fail   MUST    auth/listPets-missing")
	assert.Contains(t, out, "section: 5.1; 5.3")
	assert.Contains(t, out, "reproduce: curl -sS -i '"+base+"/pets'")
	assert.Contains(t, out, `-H "Authorization: Token $PETSTORE_API_KEY"`)
	assert.NotContains(t, out, key)
	assert.Contains(t, out, ": NOT CONFORMING\n")

	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out, _ = runMain(t, nil, "run", "--base-url", base, "--api-key", key, "--format", "junit", "--output", junit)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "conformance: not conforming: 60 rules")
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	var suites struct {
		Failures int `xml:"failures,attr"`
	}
	require.NoError(t, xml.Unmarshal(data, &suites))
	assert.Positive(t, suites.Failures)
	assert.NotContains(t, string(data), key)
}

func TestRunCannotBeMade(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "conformance: want a command"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"bad flag", []string{"run", "--nope"}, "conformance run: flag provided but not defined: -nope"},
		{"bad format", []string{"run", "--format", "yaml"}, `unknown --format "yaml"`},
		{"bad date", []string{"run", "--now", "tomorrow"}, `--now "tomorrow"`},
		{"bad timeout", []string{"run", "--timeout", "-1s"}, "--timeout must be positive"},
		{"no rule selected", []string{"run", "--only", "nothing/*"}, "no rule matches"},
		{"unreadable spec", []string{"run", "--spec", "/nonexistent.yaml"}, "no such file"},
		{"unreachable", []string{"run", "--base-url", "http://127.0.0.1:1/v1", "--api-key", "k"}, "target unreachable"},
		{"bad base URL", []string{"run", "--base-url", "127.0.0.1:8080"}, "base URL"},
		{"stray argument", []string{"list", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runMain(t, nil, tt.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		})
	}
}

func TestList(t *testing.T) {
	code, out, _ := runMain(t, nil, "list")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^ID +SECTION +SEVERITY +TITLE$`, out)
	assert.Regexp(t, `(?m)^listPets/default-limit +4.1 rule 1; 8 +MUST +without limit, at most 20 animals`, out)

	_, out, _ = runMain(t, nil, "list", "--format", "markdown")
	assert.True(t, strings.HasPrefix(out, "| ID | Section | Severity | Title |\n|---|---|---|---|\n"))
	assert.Contains(t, out, "| `getPet/unknown-id` | 4.3; 7 | MUST | an unknown petId gets 404 with an Error body |\n")

	_, out, _ = runMain(t, nil, "list", "--format", "json")
	var rules []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rules))
	assert.Len(t, rules, 60)
	assert.Equal(t, "auth/listPets-missing", rules[0]["id"])

	code, out, _ = runMain(t, nil, "list", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "-format")
}

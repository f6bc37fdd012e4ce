package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
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
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestRunInProcessReference(t *testing.T) {
	code, out, errOut := runMain(t, nil, "run", "--seed", "1")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n5 Authentication\n")
	n := catalogueSize(t)
	summary := regexp.MustCompile(fmt.Sprintf(`\n(%d rules: %d pass, 0 fail, 0 warn, 2 skip, 0 error; \d+ cases, \d+ requests, \d+ animals created, 0 found); seed 1; [\d.]+ ms: CONFORMING\n$`, n, n-2)).FindStringSubmatch(out)
	require.NotNil(t, summary, out)
	// The quick start quotes this line: its counts are those of seed 1, measured here.
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	quoted := "`" + summary[1] + "; seed ...; ... CONFORMING`"
	assert.True(t, strings.Contains(strings.Join(strings.Fields(string(readme)), " "), quoted),
		"README.md's quick start must quote the summary of `conformance run --seed 1`: %s", quoted)

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
	assert.Contains(t, out, fmt.Sprintf("conformance: not conforming: %d rules", catalogueSize(t)))
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
		{"bad flag", []string{"run", "--nope"}, "conformance run: flag provided but not defined: --nope"},
		{"bad format", []string{"run", "--format", "yaml"}, `unknown --format "yaml" (html, json, junit, markdown, text)`},
		{"bad report format", []string{"run", "--report", "pdf=out.pdf"}, `unknown format "pdf"`},
		{"report without file", []string{"run", "--report", "html"}, "want FORMAT=FILE"},
		{"report into a file", []string{"run", "--report", "html=/dev/null/x/report.html"}, "--report html=/dev/null/x/report.html: mkdir /dev/null"},
		{"coverage above 100", []string{"run", "--min-coverage", "101"}, "--min-coverage 101: want a percentage from 0 to 100"},
		{"coverage not a number", []string{"run", "--min-coverage", "most"}, `invalid value "most" for flag --min-coverage`},
		{"no waivers file", []string{"run", "--waivers", "/nonexistent.yaml"}, "waivers: open /nonexistent.yaml"},
		{"bad date", []string{"run", "--now", "tomorrow"}, `--now "tomorrow"`},
		{"bad timeout", []string{"run", "--timeout", "-1s"}, "--timeout must be positive"},
		{"no rule selected", []string{"run", "--only", "nothing/*"}, "no rule matches"},
		{"unreadable spec", []string{"run", "--spec", "/nonexistent.yaml"}, "no such file"},
		{"unreachable", []string{"run", "--base-url", "http://127.0.0.1:1/v1", "--api-key", "k"}, "target unreachable"},
		{"bad base URL", []string{"run", "--base-url", "127.0.0.1:8080"}, "base URL"},
		{"no version segment", []string{"run", "--base-url", "http://127.0.0.1:1", "--api-key", "k"}, "did you mean http://127.0.0.1:1/v1?"},
		{"another version", []string{"run", "--base-url", "http://127.0.0.1:1/v2?code=x", "--api-key", "k"}, "did you mean http://127.0.0.1:1/v1?code=$PETSTORE_QUERY_1?"}, // the query value masked
		{"key refused", []string{"run", "--base-url", openReference(t, false), "--api-key", "not-the-key"}, "the target refused the API key"},
		{"no key", []string{"run", "--base-url", openReference(t, false)}, "no API key was given"},
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
	assert.Regexp(t, `(?m)^ID +SECTION +SEVERITY +COST +TITLE$`, out)
	assert.Regexp(t, `(?m)^listPets/default-limit +4.1 rule 1; 8 +MUST +- +without limit, at most 20 animals`, out)
	// A family of generated cases says what it sends, by default and deeper.
	assert.Regexp(t, `(?m)^listPets/cases-anatomy +[^ ].* +MUST +\d+ requests \(deep \d+\) +listPets: `, out)
	assert.Regexp(t, `(?m)^the generated cases send about \d+ requests by default, \d+ with --depth deep`, out)

	_, out, _ = runMain(t, nil, "list", "--format", "markdown")
	assert.True(t, strings.HasPrefix(out, "| ID | Section | Severity | Cost | Title |\n|---|---|---|---|---|\n"))
	assert.Contains(t, out, "| `getPet/unknown-id` | 4.3; 7 | MUST | - | an unknown petId gets 404 with an Error body |\n")

	_, out, _ = runMain(t, nil, "list", "--format", "json")
	var rules []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rules))
	assert.Len(t, rules, catalogueSize(t))
	assert.Equal(t, "auth/listPets-missing", rules[0]["id"])

	code, out, _ = runMain(t, nil, "list", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "-format")
}

// catalogueSize is the number of rules built from the embedded spec.
func catalogueSize(t *testing.T) int {
	t.Helper()
	rules, err := conformance.All(spec.MustLoad())
	require.NoError(t, err)
	return len(rules)
}

// One run writes every --report file (creating directories) and keeps the text on stdout.
func TestRunReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "nested")
	files := map[string]string{"junit": "junit.xml", "html": "report.html", "json": "report.json", "markdown": "summary.md"}
	args := []string{"run"}
	for format, name := range files {
		args = append(args, "--report", format+"="+filepath.Join(dir, name))
	}
	code, out, errOut := runMain(t, nil, args...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n5 Authentication\n", "the text report is still on stdout")
	assert.Empty(t, errOut, "no progress line when stderr is not a terminal")

	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return string(data)
	}
	var rep conformance.Report
	require.NoError(t, json.Unmarshal([]byte(read("report.json")), &rep))
	assert.Equal(t, catalogueSize(t), rep.Counts.Total)
	assert.Equal(t, rep.Coverage.Pairs, rep.Coverage.Exercised)
	var suites struct {
		Tests int `xml:"tests,attr"`
	}
	require.NoError(t, xml.Unmarshal([]byte(read("junit.xml")), &suites))
	assert.Equal(t, rep.Counts.Total, suites.Tests)
	assert.Contains(t, read("report.html"), "<!DOCTYPE html>")
	assert.True(t, strings.HasPrefix(read("summary.md"), "## ✅ Pet Store 1.0.0: conforming\n"))
}

func TestRunMarkdown(t *testing.T) {
	code, out, _ := runMain(t, nil, "run", "--base-url", openReference(t, true), "--api-key", key, "--format", "markdown")
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(out, "## ❌ Pet Store 1.0.0: NOT conforming\n"), out)
	assert.Contains(t, out, "\n### Failed rules (")
	assert.Contains(t, out, "| `auth/listPets-missing` | 5.1; 5.3 | MUST | want status 401 Unauthorized, got 200 OK |\n")
	assert.Contains(t, out, "**Coverage:** ")
	assert.NotContains(t, out, key)
}

func TestRunMinCoverage(t *testing.T) {
	code, _, errOut := runMain(t, nil, "run", "--only", "getPet/unknown-id", "--min-coverage", "50")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^conformance: coverage \d+% \(\d+ of \d+ documented operation × status pairs\) is below the minimum 50%; never exercised: .*createPet 201.*\n$`, errOut)

	code, _, errOut = runMain(t, nil, "run", "--min-coverage", "100")
	assert.Equal(t, 0, code, "the reference run exercises every pair: %s", errOut)
}

func TestRunWaivers(t *testing.T) {
	base := openReference(t, true)
	write := func(yaml string) string {
		path := filepath.Join(t.TempDir(), "waivers.yaml")
		require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
		return path
	}
	// The broken reference fails the rules about requests without a key to GET /pets.
	only := []string{"--only", "auth/listPets-missing,errors/unauthorized", "--base-url", base, "--api-key", key, "--now", "2026-01-02"}
	code, _, _ := runMain(t, nil, append([]string{"run"}, only...)...)
	require.Equal(t, 1, code)

	valid := write(`
- rule: auth/listPets-missing
  reason: gateway lets anonymous reads in, OPS-9
  expires: 2099-01-03
- rule: errors/unauthorized
  reason: same gateway, OPS-9
  expires: 2099-01-03
`)
	code, out, errOut := runMain(t, nil, append([]string{"run", "--waivers", valid}, only...)...)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "waived  MUST    auth/listPets-missing")
	assert.Contains(t, out, "waived until 2099-01-03: gateway lets anonymous reads in, OPS-9")
	assert.Contains(t, out, "2 rules: 0 pass, 0 fail, 0 warn, 0 skip, 0 error, 2 waived;")

	// On the expiry day the waiver no longer holds, and names itself; so does an expired
	// waiver of a rule that passes.
	code, _, errOut = runMain(t, nil, append([]string{"run", "--waivers", valid}, append(only, "--now", "2099-01-03")...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "conformance: the waiver for auth/listPets-missing expired on 2099-01-03 (reason: gateway lets anonymous reads in, OPS-9)")
	code, _, errOut = runMain(t, nil, "run", "--only", "auth/listPets-missing", "--waivers", valid, "--now", "2099-02-01")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "the waiver for auth/listPets-missing expired on 2099-01-03")

	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown rule", "- {rule: auth/listPets-missin, reason: typo, expires: 2030-01-01}", `waiver for unknown rule "auth/listPets-missin"`},
		{"bad date", "- {rule: auth/listPets-missing, reason: r, expires: soon}", `entry 1 (auth/listPets-missing): expires "soon": want a date YYYY-MM-DD`},
		{"not YAML", "- rule: [", "want a YAML list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runMain(t, nil, "run", "--waivers", write(tt.yaml))
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		})
	}
}

// The progress line rewrites itself in place and is erased at the end.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	update, done := progressLine(&buf)
	update(1, 2, "auth/a")
	update(2, 2, "auth/b")
	done()
	assert.Equal(t, "\r\x1b[Krule 1/2 auth/a\r\x1b[Krule 2/2 auth/b\r\x1b[K", buf.String())

	buf.Reset()
	_, done = progressLine(&buf)
	done()
	assert.Empty(t, buf.String(), "nothing to erase")

	update, finished, done := progress(env{stdout: &buf, stderr: &buf}, nil)
	assert.Nil(t, update, "a buffer is not a terminal")
	assert.Nil(t, finished, "nor a file or a pipe")
	done()
}

// A run where every selected rule was skipped judged nothing: exit 2, not "conforming".
func TestAllSkippedIsNoVerdict(t *testing.T) {
	code, _, errOut := runMain(t, nil, "run", "--only", "getPet/gone-after-sunset", "--now", "2026-01-02")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "no rule could be judged: the 1 selected rule was skipped")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one line")
}

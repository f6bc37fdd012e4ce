package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	yaml "github.com/oasdiff/yaml3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
)

// ciScript is a shell script that a CI example runs, with the variables it sets.
type ciScript struct {
	script string
	vars   map[string]string
}

// ciScripts reads the CI examples: docs/ci/github-actions.yml and docs/ci/gitlab-ci.yml,
// checked to be valid YAML of the shape each system reads, and the commands of the README's
// "Continuous integration" section.
func ciScripts(t *testing.T) map[string]ciScript {
	type step struct {
		Uses string         `yaml:"uses"`
		Run  string         `yaml:"run"`
		If   string         `yaml:"if"`
		With map[string]any `yaml:"with"`
	}
	var gh struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			RunsOn string            `yaml:"runs-on"`
			Env    map[string]string `yaml:"env"`
			Steps  []step            `yaml:"steps"`
		} `yaml:"jobs"`
	}
	var gl map[string]struct {
		Image     string            `yaml:"image"`
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
		Artifacts struct {
			When    string            `yaml:"when"`
			Paths   []string          `yaml:"paths"`
			Reports map[string]string `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	readYAML(t, "../../docs/ci/github-actions.yml", &gh)
	readYAML(t, "../../docs/ci/gitlab-ci.yml", &gl)

	require.Contains(t, gh.On, "pull_request")
	job := gh.Jobs["staging"]
	assert.Equal(t, "${{ secrets.PETSTORE_STAGING_API_KEY }}", job.Env["PETSTORE_API_KEY"])
	var ghCommand string
	var summary, upload bool
	for _, s := range job.Steps {
		assert.True(t, (s.Uses == "") != (s.Run == ""), "a step either uses an action or runs a script: %+v", s)
		switch {
		case strings.Contains(s.Run, "cmd/conformance@"):
			ghCommand = s.Run
		case strings.Contains(s.Run, `>> "$GITHUB_STEP_SUMMARY"`):
			summary = s.If == "always()" && strings.Contains(s.Run, "reports/summary.md")
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			upload = s.If == "always()" && s.With["path"] == "reports/"
		}
	}
	assert.True(t, summary, "the Markdown summary goes to the step summary, even when the run fails")
	assert.True(t, upload, "the reports are uploaded, even when the run fails")

	lab := gl["conformance"]
	assert.Equal(t, "always", lab.Artifacts.When)
	assert.Equal(t, "reports/junit.xml", lab.Artifacts.Reports["junit"])
	require.Len(t, lab.Script, 1)

	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n### Continuous integration\n")
	require.True(t, ok, "README has a Continuous integration section")
	section, _, _ = strings.Cut(section, "\n## ")
	block := regexp.MustCompile("(?s)\n```sh\n(.*?)```\n").FindStringSubmatch(section)
	require.NotNil(t, block, "the section shows the commands")

	return map[string]ciScript{
		"github": {ghCommand, job.Env},
		"gitlab": {lab.Script[0], lab.Variables},
		"readme": {block[1], nil},
	}
}

func readYAML(t *testing.T, path string, v any) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	require.NoError(t, dec.Decode(v), path)
}

// fakeGo stands for the go command in the CI scripts: `go install` of the harness puts the
// binary the test built where `go env GOPATH` says, as the real one would.
const fakeGo = `#!/bin/sh
case "$1 $2" in
"install github.com/petstore/petstore/cmd/conformance@"*) mkdir -p "$GOPATH/bin" && cp "$CONFORMANCE_BINARY" "$GOPATH/bin/conformance" ;;
"env GOPATH") echo "$GOPATH" ;;
*) echo "go $*: not what the CI scripts run" >&2; exit 97 ;;
esac
`

// The CI commands, run as written (bash -eo pipefail, as both systems run them) with the
// binary built from this tree, exit 0 against the reference, 1 against a server that breaks
// a MUST rule and 2 against an unreachable URL, and write every report they ask for each
// time.
func TestCIExamples(t *testing.T) {
	scripts := ciScripts(t)
	if testing.Short() {
		t.Skip("builds the command")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	tools := t.TempDir()
	binary := filepath.Join(tools, "conformance-built")
	build := exec.Command("go", "build", "-o", binary, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	fakeBin := filepath.Join(tools, "bin")
	require.NoError(t, os.Mkdir(fakeBin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fakeBin, "go"), []byte(fakeGo), 0o755))

	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	targets := []struct {
		name, baseURL string
		code          int
		verdict       string
		stderr        *regexp.Regexp
	}{
		{"reference", openReference(t, false), 0, conformance.Conforming, regexp.MustCompile(`(?m)^auth: \d+ rules, \d+ pass \(\d+/\d+\)\n`)},
		{"no key needed", openReference(t, true), 1, conformance.NotConforming, regexp.MustCompile(`(?m)^failed: \d+ rules: auth/listPets-missing, .*\n`)},
		{"unreachable", down.URL + "/v1", 2, conformance.NotRun, regexp.MustCompile(`\Aconformance: target unreachable: [^\n]+\n\z`)},
	}
	for name, s := range scripts {
		reports := regexp.MustCompile(`--report \w+=(\S+)`).FindAllStringSubmatch(s.script, -1)
		require.NotEmpty(t, reports, "%s asks for reports", name)
		for _, tg := range targets {
			t.Run(name+"/"+tg.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", s.script)
				cmd.Dir = dir
				cmd.Env = []string{"PATH=" + fakeBin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir,
					"GOPATH=" + filepath.Join(dir, "go"), "CONFORMANCE_BINARY=" + binary,
					"PETSTORE_BASE_URL=" + tg.baseURL, "PETSTORE_API_KEY=" + key}
				for k, v := range s.vars {
					if !strings.HasPrefix(k, "PETSTORE_") {
						cmd.Env = append(cmd.Env, k+"="+v)
					}
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if exit, ok := err.(*exec.ExitError); ok {
					code = exit.ExitCode()
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, tg.code, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
				assert.Regexp(t, tg.stderr, stderr.String())
				for _, r := range reports {
					assert.FileExists(t, filepath.Join(dir, r[1]))
				}
				data, err := os.ReadFile(filepath.Join(dir, "reports", "report.json"))
				require.NoError(t, err)
				var rep conformance.Report
				require.NoError(t, json.Unmarshal(data, &rep))
				assert.Equal(t, tg.verdict, rep.Verdict)
				assert.NotContains(t, stdout.String()+stderr.String()+string(data), key)
			})
		}
	}
}

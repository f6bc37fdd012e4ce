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

// ciScript is what a CI example runs: the shell script that builds the harness from its
// repository, the one that runs it, and the variables they are given.
type ciScript struct {
	install, run string
	vars         map[string]string
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
	var ghInstall, ghRun string
	var summary, upload bool
	for _, s := range job.Steps {
		assert.True(t, (s.Uses == "") != (s.Run == ""), "a step either uses an action or runs a script: %+v", s)
		switch {
		case strings.Contains(s.Run, "git clone"):
			ghInstall = s.Run
		case strings.Contains(s.Run, "bin/conformance run"):
			ghRun = s.Run
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
	require.Len(t, lab.Script, 2, "the GitLab job builds the harness, then runs it")

	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n### Continuous integration\n")
	require.True(t, ok, "README has a Continuous integration section")
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)\n```sh\n(.*?)```\n").FindAllStringSubmatch(section, 2)
	require.Len(t, blocks, 2, "the section shows the commands that build the harness, then those that run it")

	return map[string]ciScript{
		"github": {ghInstall, ghRun, job.Env},
		"gitlab": {lab.Script[0], lab.Script[1], lab.Variables},
		"readme": {blocks[0][1], blocks[1][1], nil},
	}
}

func readYAML(t *testing.T, path string, v any) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	require.NoError(t, dec.Decode(v), path)
}

// scriptCommands are a script's lines that are not comments or blank.
func scriptCommands(script string) []string {
	var lines []string
	for _, l := range strings.Split(script, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// gitOut runs git in dir and returns its trimmed output.
func gitOut(t *testing.T, dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	require.NoError(t, err, "git %s", strings.Join(args, " "))
	return strings.TrimSpace(string(out))
}

// The CI commands, run as written (bash -eo pipefail, as both systems run them) with the real
// toolchain: the build step clones this repository (CONFORMANCE_REPO, at its HEAD commit as
// CONFORMANCE_REF) into a bare directory and builds it with make, from the shared Go build
// and module caches, offline; the binary it built then exits 0 against the reference, 1
// against a server that breaks a MUST rule and 2 against an unreachable URL, and writes every
// report asked for each time. The three build scripts are the same commands, built once.
func TestCIExamples(t *testing.T) {
	scripts := ciScripts(t)
	if testing.Short() {
		t.Skip("clones the repository and builds the commands")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	for _, tool := range []string{"git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	repo, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout: the CI scripts clone the repository")
	}
	root := strings.TrimSpace(string(repo))
	head := gitOut(t, root, "rev-parse", "HEAD")
	goEnv := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", k).Output()
		require.NoError(t, err)
		goEnv[k] = strings.TrimSpace(string(out))
	}
	// env is the environment of a CI script: nothing of this machine's but PATH and the Go
	// caches (GOPROXY=off: the module cache has what go.mod needs), the template's own
	// variables, and the test's.
	env := func(dir string, vars map[string]string, extra ...string) []string {
		e := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GOCACHE=" + goEnv["GOCACHE"],
			"GOMODCACHE=" + goEnv["GOMODCACHE"], "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS="}
		for k, v := range vars {
			if !strings.HasPrefix(k, "PETSTORE_") && !strings.HasPrefix(k, "CONFORMANCE_") {
				e = append(e, k+"="+v)
			}
		}
		return append(e, extra...)
	}

	install := scripts["readme"].install
	for name, s := range scripts {
		assert.Equal(t, scriptCommands(install), scriptCommands(s.install), "%s builds the harness as the README does", name)
		if s.vars != nil {
			assert.Contains(t, s.vars, "CONFORMANCE_REPO", name)
			assert.Regexp(t, `^v\d+\.\d+\.\d+$|^[0-9a-f]{40}$`, s.vars["CONFORMANCE_REF"], "%s pins a release tag or a commit id", name)
		}
	}
	warmBuildCache(t)
	built := t.TempDir()
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", install)
	cmd.Dir = built
	cmd.Env = env(built, nil, "CONFORMANCE_REPO="+root, "CONFORMANCE_REF="+head)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the build script:\n%s", out)
	harness := filepath.Join(built, ".conformance")
	assert.Equal(t, head, gitOut(t, harness, "rev-parse", "HEAD"), "the clone is at the pinned ref")
	version, err := exec.Command(filepath.Join(harness, "bin", "conformance"), "--version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(version), " rev "+head, "the binary records the commit it was built from")

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
		reports := regexp.MustCompile(`--report \w+=(\S+)`).FindAllStringSubmatch(s.run, -1)
		require.NotEmpty(t, reports, "%s asks for reports", name)
		for _, tg := range targets {
			t.Run(name+"/"+tg.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				require.NoError(t, os.Symlink(harness, filepath.Join(dir, ".conformance")))
				cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", s.run)
				cmd.Dir = dir
				cmd.Env = env(dir, s.vars, "PETSTORE_BASE_URL="+tg.baseURL, "PETSTORE_API_KEY="+key)
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

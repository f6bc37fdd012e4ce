package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitIn runs git in dir and returns its output; a failure fails the test.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "advice.detachedHead=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// specCheckOrigin makes a repository like the project's origin: the committed tree with the
// working Makefile and scripts/spec-base.sh, on branch main with no tag, and a branch
// "feature" that drops the limit maximum from 100 to 50.
func specCheckOrigin(t *testing.T) string {
	for _, tool := range []string{"git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	origin := filepath.Join(t.TempDir(), "origin")
	gitIn(t, root, "clone", "-q", "--no-tags", root, origin)
	gitIn(t, origin, "checkout", "-q", "-B", "main")
	for _, tag := range strings.Fields(gitIn(t, origin, "tag", "-l")) {
		gitIn(t, origin, "tag", "-d", tag)
	}
	for _, f := range []string{"Makefile", "scripts/spec-base.sh"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(origin, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(origin, f), data, 0o755))
	}
	gitIn(t, origin, "add", "Makefile", "scripts/spec-base.sh")
	gitIn(t, origin, "commit", "-q", "--allow-empty", "-m", "the working spec-check")

	gitIn(t, origin, "checkout", "-q", "-b", "feature")
	specFile := filepath.Join(origin, "spec", "openapi.yaml")
	data, err := os.ReadFile(specFile)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(data), "maximum: 100"), "the spec's limit maximum moved")
	require.NoError(t, os.WriteFile(specFile, []byte(strings.Replace(string(data), "maximum: 100", "maximum: 50", 1)), 0o644))
	gitIn(t, origin, "commit", "-q", "-am", "limit maximum 50")
	gitIn(t, origin, "checkout", "-q", "main")
	return origin
}

// A CI checkout has no local main and no tag: spec-check must still find a base (origin's
// default branch, fetched) and fail on the breaking change instead of comparing the spec
// with itself.
func TestSpecCheckInCIClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module in a clone")
	}
	t.Parallel() // mostly waits for the build in its own clone
	warmBuildCache(t)
	origin := specCheckOrigin(t)
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, origin, "clone", "-q", "--no-tags", "--single-branch", "--branch", "feature", origin, clone)
	require.Empty(t, strings.TrimSpace(gitIn(t, clone, "tag", "-l")))
	require.Equal(t, "* feature", strings.TrimSpace(gitIn(t, clone, "branch", "--list")), "no local main")
	require.NotContains(t, gitIn(t, clone, "branch", "-r"), "origin/main", "origin's main not fetched yet")

	cmd := exec.Command("make", "--no-print-directory", "spec-check")
	cmd.Dir = clone
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "a breaking change passed: %s", out)
	assert.Contains(t, string(out), "spec-check: base origin/main (merge base ")
	assert.Regexp(t, "breaking bound-narrowed GET /pets .*`limit`.*100.*50", string(out))
	// The three run every time, each reported, and the failure comes at the end.
	assert.Regexp(t, `error document-departure .*maximum is 50 in the spec; the document says 100 \(section 4\.1; 8\)`, string(out))
	assert.Contains(t, string(out), "spec-check: the catalogue against the reference server")
	assert.Regexp(t, `\d+ rules: .*: CONFORMING`, string(out))
	assert.Contains(t, string(out), "spec-check: FAILED: lint diff (passed: catalogue)")

	// Given the feature branch itself as base, nothing changed: the base is explicit.
	cmd = exec.Command("make", "--no-print-directory", "spec-diff", "SPEC_BASE=feature")
	cmd.Dir = clone
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "from SPEC_BASE")
}

// With no tag, no main and no origin, there is no base: the script fails with one line
// that names SPEC_BASE, and never falls back to HEAD.
func TestSpecBaseNone(t *testing.T) {
	t.Parallel() // git in clones of its own
	origin := specCheckOrigin(t)
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, origin, "clone", "-q", "--no-tags", "--single-branch", "--branch", "feature", origin, clone)
	gitIn(t, clone, "remote", "remove", "origin")

	script := func(env ...string) (string, string, error) {
		cmd := exec.Command("sh", "scripts/spec-base.sh")
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	stdout, stderr, err := script("SPEC_BASE=")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Empty(t, stdout)
	assert.Equal(t, "spec-check: no tag, no main branch and no default branch of origin to compare the spec with; give a base: make spec-check SPEC_BASE=<tag|branch|commit>\n", stderr)

	_, stderr, err = script("SPEC_BASE=nope")
	require.Error(t, err)
	assert.Contains(t, stderr, "SPEC_BASE=nope is not a commit of this clone")

	stdout, _, err = script("SPEC_BASE=feature~1")
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(gitIn(t, clone, "rev-parse", "feature~1")), strings.TrimSpace(stdout))
}

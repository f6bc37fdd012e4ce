package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// makeN is what `make -n ARGS` would run in the module's root.
func makeN(t *testing.T, args ...string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmd := exec.Command("make", append([]string{"-n", "--no-print-directory"}, args...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make -n %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// The Makefile's targets take the variables they document: make run listens on ADDR, make
// lint lints SPEC, make spec-check says that it rebuilds bin/ from the working tree; and what
// the tools write is ignored by git.
func TestMakefile(t *testing.T) {
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	assert.Contains(t, makeN(t, "run"), "./cmd/petstore serve --addr 127.0.0.1:8080 ")
	assert.Contains(t, makeN(t, "run", "ADDR=127.0.0.1:9090"), "./cmd/petstore serve --addr 127.0.0.1:9090 ")

	lint := makeN(t, "lint", "SPEC=copy.yaml")
	assert.Contains(t, lint, "spectral lint --fail-severity=hint copy.yaml\n")
	assert.Contains(t, lint, "redocly lint copy.yaml ")
	assert.NotContains(t, lint, "openapi.yaml")
	assert.Contains(t, makeN(t, "lint"), "spectral lint --fail-severity=hint spec/openapi.yaml\n")

	check := makeN(t, "spec-check")
	say := strings.Index(check, `echo "spec-check: rebuilding bin/ from the working tree`)
	build := strings.Index(check, " build -trimpath ")
	require.GreaterOrEqual(t, say, 0, "spec-check says it rebuilds bin/:\n%s", check)
	assert.Less(t, say, build, "it says so before it builds:\n%s", check)

	dist := makeN(t, "dist", "DIST_VERSION=v1.2.3")
	assert.Contains(t, dist, "./internal/cmd/release dist -out dist -version v1.2.3")
	assert.Contains(t, makeN(t, "image"), "./internal/cmd/release image -out dist ")

	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	wholeRunsInOneHalf(t, root, makeN(t, "test-race"), makeN(t, "test-catalogues"))

	ignored := []string{"explore-replay.json", "explore-replay-2.json", "sub/explore-replay-3.json", "dist/petstore_v1_linux_amd64.tar.gz", "bin/conformance"}
	cmd := exec.Command("git", append([]string{"check-ignore", "--no-index", "--"}, ignored...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "git check-ignore: none of %v is ignored", ignored)
	assert.Equal(t, strings.Join(ignored, "\n")+"\n", string(out))
}

// wholeRunsInOneHalf: the tests make test-race skips are the tests make test-catalogues runs,
// each a test of ./conformance defined once, so that none is skipped by one half and left
// out by the other; and the packages test-race leaves out are those test-catalogues runs.
func wholeRunsInOneHalf(t *testing.T, root, race, norace string) {
	t.Helper()
	skip := regexp.MustCompile(`-skip '\^\(([^)]*)\)\$'`).FindStringSubmatch(race)
	run := regexp.MustCompile(`-run '\^\(([^)]*)\)\$' \./conformance\n`).FindStringSubmatch(norace)
	require.NotNil(t, skip, "make test-race skips the whole runs:\n%s", race)
	require.NotNil(t, run, "make test-catalogues runs them in ./conformance:\n%s", norace)
	for _, pkg := range []string{"/conformance/mutants", "/conformance/explore/seqmutants", "/internal/cmd/release", "/cmd/conformance", "/conformance/cases", "/bench/latency"} {
		assert.Contains(t, race, "-e "+pkg, "test-race leaves %s out", pkg)
		assert.Contains(t, norace, "."+pkg+"/...", "test-catalogues runs %s", pkg)
	}
	assert.Equal(t, skip[1], run[1])
	for _, name := range strings.Split(skip[1], "|") {
		var defined []string
		for _, dir := range []string{"conformance"} {
			files, err := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
			require.NoError(t, err)
			for _, f := range files {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				if strings.Contains(string(b), "\nfunc "+name+"(t *testing.T) {") {
					defined = append(defined, f)
				}
			}
		}
		assert.Len(t, defined, 1, "%s: one test of ./conformance", name)
	}
}

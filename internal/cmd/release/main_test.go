package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the module's root, from this package's directory.
const root = "../../.."

// make dist for this machine's platform only (the six platforms are .ci/run's make dist):
// the archive and SHA256SUMS are written, and both commands unpacked from it print the
// version stamped.
func TestDistHostPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both commands")
	}
	if !slices.Contains(platforms, hostPlatform()) {
		t.Skipf("no release for this machine's platform %s", hostPlatform())
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	out := t.TempDir()
	var log bytes.Buffer
	err := run(context.Background(), []string{"dist", "-root", root, "-out", out, "-platforms", hostPlatform(), "-version", "v0.0.0-disttest"}, &log)
	require.NoError(t, err, log.String())

	goos, goarch, _ := strings.Cut(hostPlatform(), "/")
	name := archiveName("v0.0.0-disttest", goos, goarch)
	assert.FileExists(t, filepath.Join(out, name))
	sums, err := os.ReadFile(filepath.Join(out, sumsFile))
	require.NoError(t, err)
	assert.Regexp(t, `\A[0-9a-f]{64}  `+name+`\n\z`, string(sums))
	for _, c := range commands {
		assert.Regexp(t, `(?m)^dist: checked `+name+`: `+c+` github.com/petstore/petstore v0\.0\.0-disttest rev [0-9a-f]{40}`, log.String())
	}
}

// The windows archive is a zip whose files unpack executable, at its root; a changed
// archive fails SHA256SUMS.
func TestZipAndSums(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"conformance.exe", "petstore.exe"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
	}
	out := t.TempDir()
	name := archiveName("v1.2.3", "windows", "arm64")
	assert.Equal(t, "petstore_v1.2.3_windows_arm64.zip", name)
	mtime := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)
	require.NoError(t, writeZip(filepath.Join(out, name), []string{filepath.Join(dir, "conformance.exe"), filepath.Join(dir, "petstore.exe")}, mtime))
	require.NoError(t, writeSums(out, []string{name}))
	require.NoError(t, checkSums(out))

	unpacked := t.TempDir()
	require.NoError(t, unzip(filepath.Join(out, name), unpacked))
	data, err := os.ReadFile(filepath.Join(unpacked, "petstore.exe"))
	require.NoError(t, err)
	assert.Equal(t, "petstore.exe", string(data))
	info, err := os.Stat(filepath.Join(unpacked, "conformance.exe"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())

	require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("changed"), 0o644))
	assert.ErrorContains(t, checkSums(out), name+" has SHA-256")
}

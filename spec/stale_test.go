package spec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkout writes a checkout of the project with the given spec/openapi.yaml and a
// subdirectory to run from.
func checkout(t *testing.T, data []byte) (root, sub string) {
	root = t.TempDir()
	sub = filepath.Join(root, "cmd", "petstore")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "spec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte(module+"\ngo 1.26\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "spec", "openapi.yaml"), data, 0o644))
	return root, sub
}

func TestStale(t *testing.T) {
	_, sub := checkout(t, embedded)
	assert.Empty(t, Stale(sub), "the checkout's spec is the built-in one")

	root, sub := checkout(t, append([]byte("# changed\n"), embedded...))
	got := Stale(sub)
	assert.Contains(t, got, "warning: the spec built into this binary (sha256 ")
	assert.Contains(t, got, filepath.Join(root, "spec", "openapi.yaml"))
	assert.NotContains(t, got, "\n")

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(other, "spec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "spec", "openapi.yaml"), []byte("openapi: 3.0.3\n"), 0o644))
	assert.Empty(t, Stale(other), "another project's spec is none of ours")
	assert.Empty(t, Stale(t.TempDir()), "outside a checkout")
}

// The project's own checkout holds the spec this package embeds.
func TestStaleInThisCheckout(t *testing.T) {
	assert.Empty(t, Stale("."))
}

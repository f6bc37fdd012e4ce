package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server whose start.sh ends before it answers is reported at once, with its last line,
// not after the two minutes ready waits for a slow first start.
func TestWithServerStartFails(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "start.sh"), []byte("echo 'cannot bind' >&2\nexit 1\n"), 0o755))
	used := false
	err := withServer(context.Background(), dir, func(string) { used = true })
	require.Error(t, err)
	assert.False(t, used)
	assert.Equal(t, "did not start: start.sh ended (exit status 1): cannot bind", err.Error())
}

package main

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tarOf(t *testing.T, files map[string]string) io.Reader {
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for name, body := range files {
		require.NoError(t, w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := w.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return &b
}

// The tree of the commit is written under the directory, and nowhere else.
func TestExtract(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, extract(tarOf(t, map[string]string{"cmd/conformance/main.go": "package main\n"}), dir))
	got, err := os.ReadFile(filepath.Join(dir, "cmd", "conformance", "main.go"))
	require.NoError(t, err)
	assert.Equal(t, "package main\n", string(got))
	assert.Error(t, extract(tarOf(t, map[string]string{"../escaped.go": "x"}), dir))
}

// Runs against the in-process reference only, whatever the environment says.
func TestWithoutTarget(t *testing.T) {
	assert.Equal(t, []string{"HOME=/root"}, withoutTarget([]string{"PETSTORE_BASE_URL=http://x/v1", "HOME=/root", "PETSTORE_API_KEY=k"}))
}

// Totals add up runs; a run that found something is said not to be comparable.
func TestMeasured(t *testing.T) {
	var m measured
	m.add(measured{requests: 1000, seconds: 1, cpu: 100 * time.Millisecond})
	m.add(measured{requests: 3000, seconds: 1, cpu: 300 * time.Millisecond, findings: 1})
	assert.InDelta(t, 2000, m.perSecond(), 0.01)
	assert.InDelta(t, 100, m.cpuPerRequest(), 0.01)
	assert.Contains(t, m.String(), "1 findings: not comparable")
}

func TestFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Error(t, run(context.Background(), []string{"-rounds", "0"}, &out, &errOut))
	assert.Error(t, run(context.Background(), []string{"extra"}, &out, &errOut))
	assert.Empty(t, out.String(), "nothing was built")
}

package load

import (
	"context"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With LOAD_TEST_BASELINE set, the test binary is a baseline server on that address: a
// server process for the tests of Interleave.
func TestMain(m *testing.M) {
	if addr := os.Getenv("LOAD_TEST_BASELINE"); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			_ = http.Serve(ln, Baseline(canned, Cases, "/v1"))
		}
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// Interleave gives each server its turns and a result in the servers' order; one that does
// not start has its error instead.
func TestInterleave(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	srv := func(name string) Server {
		return Server{Name: name, Argv: []string{"env", "LOAD_TEST_BASELINE=127.0.0.1:{port}", self}, ReadyPath: "/healthz", Base: "/v1"}
	}
	broken := Server{Name: "broken", Argv: []string{"sh", "-c", "echo no; exit 3"}, ReadyPath: "/healthz"}
	o := Options{Connections: 2, Duration: 300 * time.Millisecond, Slice: 100 * time.Millisecond, APIKey: "k", StartWithin: 10 * time.Second}
	results := Interleave(context.Background(), []Server{srv("a"), broken, srv("b")}, Cases[2], o)
	require.Len(t, results, 3)
	for i, name := range []string{"a", "broken", "b"} {
		assert.Equal(t, name, results[i].Server)
		assert.Equal(t, Cases[2].Name, results[i].Case)
	}
	for _, r := range []Result{results[0], results[2]} {
		require.NoError(t, r.Err)
		assert.Positive(t, r.Requests)
		assert.Zero(t, r.Errors)
		assert.Positive(t, r.RPS)
		assert.Positive(t, r.PeakRSS)
		assert.Positive(t, r.GeneratorCPU)
	}
	require.Error(t, results[1].Err)
	assert.Contains(t, results[1].Err.Error(), "exited before it was ready: no")
}

package explore

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

const testKey = "explore-test-key-5b1e"

// serve starts the reference, wrapped by wrap when given, on a loopback port.
func serve(t testing.TB, wrap func(http.Handler) http.Handler) exchange.Target {
	t.Helper()
	h, err := reference.NewServer(reference.Config{APIKeys: []string{testKey}})
	require.NoError(t, err)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base, err := spec.BasePath(spec.MustLoad())
	require.NoError(t, err)
	return exchange.Target{BaseURL: srv.URL + base, APIKey: testKey, Client: srv.Client()}
}

func config(t exchange.Target, seed uint64, workers, steps int) Config {
	return Config{Target: t, Doc: spec.MustLoad(), Seed: seed, Workers: workers, Steps: steps, MaxCreates: DefaultMaxCreates,
		Lag: DefaultLag, Replays: 3, ShrinkTime: 5 * time.Second, Timeout: 30 * time.Second}
}

// judgingAt is an answer to a listing by worker 0, sent and judged at t.
func judgingAt(t time.Time) *judging {
	return &judging{w: newWorker(0), st: Step{Op: opList}, sent: t, at: t}
}

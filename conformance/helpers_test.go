package conformance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

const testKey = "conformance-test-key-6f1c"

// shipped are the facts of the embedded spec (its limit, its statuses): tests read them
// rather than repeat them, so that a spec edit fails only the tests about what it changed.
var shipped = func() *spec.Facts {
	f, err := spec.ReadFacts(spec.MustLoad())
	if err != nil {
		panic(err)
	}
	return f
}()

// maxLimit is the spec's maximum of listPets' limit, as a query value.
var maxLimit = strconv.FormatInt(shipped.Limit.Max, 10)

// beforeSunset is a clock before getPet's removal date.
var beforeSunset = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newReference returns a reference server handler with the test key and clock now.
func newReference(t testing.TB, now time.Time, cfg reference.Config) http.Handler {
	t.Helper()
	cfg.APIKeys = []string{testKey}
	cfg.Now = func() time.Time { return now }
	h, err := reference.NewServer(cfg)
	require.NoError(t, err)
	return h
}

// serve starts h on a loopback port and returns the target with its base URL.
func serve(t testing.TB, h http.Handler) conformance.Target {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	t.Cleanup(srv.Close)
	return conformance.Target{BaseURL: srv.URL + "/v1", APIKey: testKey, Client: srv.Client()}
}

// run runs the catalogue against target with opts (the clock defaults to beforeSunset).
func run(t testing.TB, target conformance.Target, opts conformance.Options) *conformance.Report {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = beforeSunset
	}
	rep, err := conformance.Run(context.Background(), target, opts)
	require.NoError(t, err)
	return rep
}

package conformance

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
)

// A check that panics is an Error result with the panic's message, and the run goes on;
// the API key never shows in it.
func TestPanickingCheckIsAnError(t *testing.T) {
	const key = "internal-test-key"
	h, err := reference.NewServer(reference.Config{APIKeys: []string{key}})
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	defer srv.Close()
	r, err := newRunner(context.Background(), Target{BaseURL: srv.URL + "/v1", APIKey: key},
		Options{Only: []string{"versioning/base-url"}, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	res := r.run(Rule{ID: "versioning/panics", Section: "9", Run: func(c *Check) {
		c.Auth.GET("/pets").Expect().Status(200)
		panic("boom with " + key)
	}})
	assert.Equal(t, Error, res.Status)
	assert.Equal(t, "the check panicked: boom with "+KeyPlaceholder, res.Reason)
	assert.NotEmpty(t, res.Exchanges)

	res = r.run(Rule{ID: "versioning/skips", Section: "9", Run: func(c *Check) { c.Skipf("not today") }})
	assert.Equal(t, Skip, res.Status)
	assert.Equal(t, "not today", res.Reason)
}

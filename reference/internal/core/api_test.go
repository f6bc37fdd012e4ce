package core

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// The routes found once at start (exactRoutes) are the router's: for every method and a
// set of path spellings, findRoute and FindRoute name the same operation or fail alike.
func TestExactRoutesAreTheRouters(t *testing.T) {
	keys, err := NewKeySet([]string{"test-key"})
	require.NoError(t, err)
	logger := log.New(io.Discard, "", 0)
	facts, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	a, err := NewAPI(facts, nil, keys, &ErrorWriter{Log: logger}, logger, APIOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, a.Exact)
	shortcuts := 0
	for _, path := range []string{"/v1/pets", "/v1/pets/", "/v1/pets/1", "/v1//pets", "/V1/pets", "/v1/Pets",
		"/v1/pets?limit=1", "/v1/pet%73", "/v1/pets%2F1", "/v1", "/v1/", "/pets", "/v1/pets/1/x"} {
		for _, method := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "get"} {
			r := httptest.NewRequest(method, "http://example.com"+path, nil)
			route, params, err := a.FindRoute(r)
			want, wantParams, wantErr := a.Route(r)
			if _, ok := a.Exact[r.URL.Path][r.Method]; ok && r.URL.RawPath == "" {
				shortcuts++
			}
			if wantErr != nil {
				assert.Equal(t, wantErr, err, "%s %s", method, path)
				continue
			}
			require.NoError(t, err, "%s %s", method, path)
			assert.Equal(t, want.Operation.OperationID, route.Operation.OperationID, "%s %s", method, path)
			assert.Equal(t, want.Path, route.Path, "%s %s", method, path)
			assert.Equal(t, len(wantParams), len(params), "%s %s", method, path)
		}
	}
	assert.Equal(t, 4, shortcuts, "GET and POST, on /v1/pets and /v1/pets?limit=1")
	assert.Equal(t, http.MethodGet, a.Exact["/v1/pets"]["GET"].Method)
}

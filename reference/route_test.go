package reference

import (
	"github.com/petstore/petstore/reference/internal/core"

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
	keys, err := core.NewKeySet([]string{testKey})
	require.NoError(t, err)
	logger := log.New(io.Discard, "", 0)
	a, err := core.NewAPI(factsOf(t, spec.MustLoad()), nil, keys, &core.ErrorWriter{Log: logger}, logger, core.APIOptions{})
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

// A 404 says where to look when a person would want it: a documented path without the base
// path, and the admin endpoints of a server started without an admin key. Other misses stay
// plain.
func TestMissedRoutesHint(t *testing.T) {
	h := newTestServer(t, Config{APIKeys: []string{testKey}})
	for path, want := range map[string]string{
		"/pets":            "no such resource: the API is under /v1; did you mean /v1/pets?",
		"/pets/7":          "no such resource: the API is under /v1; did you mean /v1/pets/7?",
		"/_admin/requests": "no such resource: the endpoints under /_admin/ are on only with an admin key (petstore serve --admin-key, or PETSTORE_ADMIN_KEY)",
		"/v1/animals":      "no such resource",
		"/pets/7/photos":   "no such resource",
	} {
		w := call(t, h, "GET", path, "")
		assert.Equal(t, http.StatusNotFound, w.Code, path)
		assert.Equal(t, want, errorBody(t, w).Message, path)
	}
	withAdmin := newTestServer(t, Config{APIKeys: []string{testKey}, AdminKey: adminKey})
	assert.Equal(t, "no such resource", errorBody(t, admin(t, withAdmin, "GET", "/_admin/nothing", "")).Message)
}

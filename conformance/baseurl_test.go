package conformance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// A base URL without the spec's version segment stops the run before any request, with the
// URL that has it.
func TestBaseURLWithoutVersionSegment(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	t.Cleanup(srv.Close)
	for _, tt := range []struct{ base, want string }{
		{srv.URL, srv.URL + "/v1"},
		{srv.URL + "/", srv.URL + "/v1"},
		{srv.URL + "/v2", srv.URL + "/v1"},
		{srv.URL + "/api/v2/", srv.URL + "/api/v1"},
		{srv.URL + "/api", srv.URL + "/api/v1"},
		{srv.URL + "/api?code=x", srv.URL + "/api/v1?code=$PETSTORE_QUERY_1"}, // the query's value masked
	} {
		t.Run(tt.base, func(t *testing.T) {
			_, err := conformance.Run(context.Background(), conformance.Target{BaseURL: tt.base, APIKey: testKey}, conformance.Options{})
			require.ErrorIs(t, err, conformance.ErrBaseURL)
			assert.True(t, strings.HasSuffix(err.Error(), "; did you mean "+tt.want+"?"), err.Error())
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	assert.Zero(t, requests.Load(), "no rule ran")
}

// A base URL's query string (a gateway's code) goes on every request, in front of the
// rule's own parameters.
func TestBaseURLQueryKept(t *testing.T) {
	h := newReference(t, beforeSunset, reference.Config{})
	var mu sync.Mutex
	var bad []string
	n := 0
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		if r.URL.Query().Get("code") != "abc" || strings.Contains(r.URL.Path, "?") || !strings.HasPrefix(r.URL.RawQuery, "code=abc") {
			bad = append(bad, r.Method+" "+r.URL.RequestURI())
		}
		mu.Unlock()
		r.URL.RawQuery = strings.TrimPrefix(strings.TrimPrefix(r.URL.RawQuery, "code=abc"), "&")
		h.ServeHTTP(w, r)
	}))
	target.BaseURL += "?code=abc"
	rep := run(t, target, conformance.Options{Only: []string{"listPets", "createPet/valid", "getPet/created-returned"}})
	assert.Equal(t, conformance.Conforming, rep.Verdict, "%+v", rep.Counts)
	// The query's values are secrets (a gateway's code): the report names the variable.
	assert.Equal(t, strings.TrimSuffix(target.BaseURL, "abc")+"$PETSTORE_QUERY_1", rep.Target)
	mu.Lock()
	defer mu.Unlock()
	assert.Positive(t, n)
	assert.Empty(t, bad, "requests without the base URL's query")
}

package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
)

// list honours --only and --skip; a pattern that matches no rule is an error in list and run.
func TestSelectPatterns(t *testing.T) {
	code, out, errOut := runMain(t, nil, "list", "--only", "auth/listPets-*", "--skip", "*-basic")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "auth/listPets-missing")
	assert.NotContains(t, out, "auth/listPets-basic")
	assert.NotContains(t, out, "errors/")

	for _, args := range [][]string{{"list", "--skip", "auth/nope"}, {"run", "--only", "auth", "--skip", "*/www-*"}} {
		code, _, errOut = runMain(t, nil, args...)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errOut, "no rule matches --")
		assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	}
}

// -H/--header goes on every request; --fail-fast stops at the first MUST failure.
func TestHeaderAndFailFast(t *testing.T) {
	h, err := reference.NewServer(reference.Config{APIKeys: []string{key}})
	require.NoError(t, err)
	var mu sync.Mutex
	var missing []string
	base := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Gateway") != "g1" || r.Header.Get("X-Route") != "a: b" {
			mu.Lock()
			missing = append(missing, r.Method+" "+r.URL.Path)
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	code, _, errOut := runMain(t, nil, "run", "--base-url", base, "--api-key", key, "--only", "listPets,auth",
		"-H", "X-Gateway: g1", "--header", "X-Route: a: b")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, missing)

	code, _, errOut = runMain(t, nil, "run", "-H", "no colon Hv5")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "want 'Name: value'")
	assert.NotContains(t, errOut, "Hv5", "the value given may be a secret")

	code, out, _ := runMain(t, nil, "run", "--base-url", openReference(t, true), "--api-key", key, "--only", "auth", "--fail-fast")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `fail +MUST +auth/listPets-missing`, out)
	assert.Contains(t, out, "not run: --fail-fast stopped the run after auth/listPets-missing")
	assert.Equal(t, 1, strings.Count(out, "\n  fail "), out)
}

// serveHandler serves h on a loopback port and returns its base URL.
func serveHandler(t *testing.T, h http.Handler) string {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

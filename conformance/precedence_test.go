package conformance_test

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// A server that routes before it checks the key (Django's URL patterns: a petId that is not
// digits matches no route) answers its HTML 404 page to a request without a key as with one.
// Both are findings: with the key, a 404 without an Error record (getPet/cases-path); without
// it, a 404 where 401 is due (getPet/cases-auth), which names the key beside the petId and is
// not shrunk to the petId alone, the other finding.
func TestShrunkCombinationKeepsTheKey(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	routeFirst := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := strings.LastIndex(r.URL.Path, "/pets/")
		if i >= 0 && strings.Trim(r.URL.Path[i+len("/pets/"):], "0123456789") != "" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("<h1>Not Found</h1>"))
			return
		}
		ref.ServeHTTP(w, r)
	})
	rep := run(t, serve(t, routeFirst), conformance.Options{Only: []string{"getPet/cases-auth", "getPet/cases-path"}, Seed: 5})
	path, _ := rep.Result("getPet/cases-path")
	assert.Equal(t, conformance.Fail, path.Status, "a 404 without an Error record")
	res, _ := rep.Result("getPet/cases-auth")
	require.Equal(t, conformance.Fail, res.Status)
	for _, f := range res.Failures {
		ms := strings.SplitN(f.Case, " (shrunk from", 2)[0]
		assert.Contains(t, ms, "; ", "the shrunk case keeps the key beside the petId: %s", f.Case)
		assert.Contains(t, f.Message, "404", f.Case)
	}
}

// A server that refuses a rejected key before reading a large body, and closes, makes the
// kernel reset the connection while the client still sends: the 401 is lost on the way
// (gunicorn and Node do this with a 1 MiB body). That is no finding, and no verdict: the
// case is not judged, and says why. A large body with a valid key that meets the same reset
// is still a finding.
func TestEarlyCloseOfARejectedKeyIsNoFinding(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{MaxBodyBytes: 4 << 20})
	resetBig := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.ContentLength >= 64<<10 {
			conn, _, err := http.NewResponseController(w).Hijack()
			require.NoError(t, err)
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // a reset, not a close: whatever the client sends is lost
			}
			_ = conn.Close()
			return
		}
		ref.ServeHTTP(w, r)
	})
	rep := run(t, serve(t, resetBig), conformance.Options{Only: []string{"createPet/cases-auth", "createPet/cases-body"}, Seed: 5})
	auth, _ := rep.Result("createPet/cases-auth")
	assert.Equal(t, conformance.Pass, auth.Status, "%v", auth.Failures)
	assert.Positive(t, auth.CasesSkipped)
	assert.Contains(t, auth.Reason, "before reading it")
	body, _ := rep.Result("createPet/cases-body")
	require.Equal(t, conformance.Fail, body.Status, "a valid key's 1 MiB body dropped is still a finding")
	assert.Contains(t, body.Failures[0].Message, "closed the connection")
}

package conformance_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// A target that misbehaves at the encoding level fails the rule that met it, and so does one
// that cuts its answer short (issue 22 item 3: a finding, not an inconclusive error), with
// the reason in the report; the run goes on and finishes, not conforming (issue 5 item 6).
func TestHostileTargetBehaviours(t *testing.T) {
	const probe = "getPet/non-integer-id" // GET /pets/abc: a rule whose request nothing else sends
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		reason string // in the failure message or the exchange's error
		status conformance.Status
	}{
		{"closes mid-response", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"code":"inv`))
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}, "unexpected EOF", conformance.Fail},
		{"non-JSON under application/json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`<html>bad request</html>`))
		}, "failed to decode", conformance.Fail},
		{"invalid UTF-8", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("{\"code\":\"x\xff\xfe\",\"message\":\"m\",\"status\":400}"))
		}, "UTF-8", conformance.Fail},
		// The document describes no redirect: the harness follows none, and a 3xx is the
		// answer, judged like any other.
		{"redirects in a loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, "302 Found", conformance.Fail},
		{"a 5xx", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"code":"internal","message":"boom","status":500}`))
		}, "500", conformance.Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := newReference(t, beforeSunset, reference.Config{})
			target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/pets/abc") {
					tt.answer(w, r)
					return
				}
				ref.ServeHTTP(w, r)
			}))
			rep := run(t, target, conformance.Options{Only: []string{probe}})
			res, ok := rep.Result(probe)
			require.True(t, ok)
			assert.Equal(t, tt.status, res.Status, "a cut answer and a bad answer fail")
			assert.Equal(t, conformance.NotConforming, rep.Verdict)
			var said []string
			for _, f := range res.Failures {
				said = append(said, f.Message)
			}
			for _, ex := range res.Exchanges {
				said = append(said, ex.Error)
			}
			assert.Contains(t, strings.Join(said, "\n"), tt.reason)
		})
	}
}

// A key the target refuses is the run's configuration, not the target's fault: Run says so
// instead of failing every rule that sends it.
func TestKeyRefused(t *testing.T) {
	target := serve(t, newReference(t, beforeSunset, reference.Config{}))
	for _, key := range []string{"not-the-key", ""} {
		target.APIKey = key
		_, err := conformance.Run(context.Background(), target, conformance.Options{Now: beforeSunset})
		require.ErrorIs(t, err, conformance.ErrKeyRefused, "key %q", key)
		assert.Contains(t, err.Error(), "PETSTORE_API_KEY")
		if key != "" {
			assert.NotContains(t, err.Error(), key, "the key never appears")
		}
	}
}

package conformance_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// storeThenRefuse stores every create the reference takes and then answers 400 when the
// request carries the field named: a validation step that runs after the write.
func storeThenRefuse(field string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || len(r.Header.Values(field)) == 0 || !authorized(r) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			if rec.Code/100 != 2 {
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = io.Copy(w, rec.Body)
				return
			}
			errorReply(w, http.StatusBadRequest, "invalid_request", "unexpected "+field)
		})
	}
}

// A refused write leaves nothing behind: whatever header a service refuses a create for
// after storing it, the refused-write oracle finds the animal, where a case's verdict alone
// (an open answer: 400 is allowed) would pass.
func TestRefusedWriteOracle(t *testing.T) {
	for _, field := range []string{"Accept", "Expect", "Origin", "X-Http-Method-Override", "X-Forwarded-Proto"} {
		t.Run(field, func(t *testing.T) {
			t.Parallel()
			opts := conformance.Options{Seed: 1, Only: []string{"createPet/cases-*"}}
			rep := run(t, serve(t, storeThenRefuse(field)(newReference(t, beforeSunset, reference.Config{}))), opts)
			var found []string
			for _, res := range rep.Results {
				for _, f := range res.Failures {
					if strings.HasPrefix(f.Message, "a refused create left an animal behind") {
						found = append(found, res.ID+": "+f.Case)
						require.GreaterOrEqual(t, f.Exchange, 0)
						ex := res.Exchanges[f.Exchange]
						assert.Equal(t, http.MethodPost, ex.Request.Method, "the failure shows the refused create")
						assert.Contains(t, strings.ToLower(ex.Curl), strings.ToLower(field), "the create carried the field")
					}
				}
			}
			assert.NotEmpty(t, found, "a create refused for %s after it was stored is found", field)
			assert.Equal(t, conformance.NotConforming, rep.Verdict)
		})
	}
	// The same server without the fault: nothing is found.
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{Seed: 1, Only: []string{"createPet/cases-*"}})
	assert.Equal(t, conformance.Conforming, rep.Verdict)
}

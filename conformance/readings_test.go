package conformance_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// collapseAuthorization lets a request with two identical Authorization fields in as if it
// had one: what a proxy that joins repeated fields, or a framework that reads the first line,
// does. RFC 9110 5.3 forbids the sender to repeat the field and leaves the recipient free, so
// accepting it is a SHOULD (READINGS.md): a warning in a plain run, a failure when strict.
func collapseAuthorization(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Values("Authorization"); len(v) == 2 && v[0] == v[1] {
			r.Header["Authorization"] = v[:1]
		}
		h.ServeHTTP(w, r)
	})
}

func TestTwoAuthorizationFieldsAreShould(t *testing.T) {
	only := []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"}
	for _, strict := range []bool{false, true} {
		opts := conformance.Options{Strict: strict, Only: only, Seed: 1}
		rep := run(t, serve(t, collapseAuthorization(newReference(t, beforeSunset, reference.Config{}))), opts)
		for _, id := range only {
			res, ok := rep.Result(id)
			if !assert.True(t, ok, id) {
				continue
			}
			var twice []string
			for _, f := range res.Failures {
				if f.Case == "two Authorization fields, both Bearer <key>" {
					twice = append(twice, f.Case)
				}
			}
			assert.NotEmpty(t, twice, "%s: the accepted second field is reported", id)
			if strict {
				assert.Equal(t, conformance.Fail, res.Status, id)
			} else {
				assert.Equal(t, conformance.Warn, res.Status, id)
			}
		}
		want := conformance.Conforming
		if strict {
			want = conformance.NotConforming
		}
		assert.Equal(t, want, rep.Verdict, "strict=%v", strict)
	}
}

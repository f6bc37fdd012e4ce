package conformance_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
)

// Faults that another fault of the same server used to hide.

// Every 401 is a 500 (a framework that fails to serialise its own auth error), and limit is
// validated before the key: without a key, limit=500 gets 400. The missing key alone fails
// (500); the combination of no key and limit=500 gets another answer (400), which is its own
// finding, named with both parts; the combinations that get the 500 of the key alone fold into
// that finding.
func TestCombinationAnsweredOtherwiseThanItsKeyIsItsOwnFinding(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kit.IsList(r) {
			if v := r.URL.Query().Get("limit"); v != "" {
				if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < shipped.Limit.Min || n > shipped.Limit.Max {
					kit.Fail(w, http.StatusBadRequest, "invalid_request", "limit out of range")
					return
				}
			}
		}
		rp := kit.Capture(ref, r)
		if rp.Status == http.StatusUnauthorized {
			rp.SetJSON(http.StatusInternalServerError, map[string]any{"statusCode": 500, "message": "failed to serialise the error"})
		}
		rp.Send(w)
	})
	rep := run(t, serve(t, h), conformance.Options{Only: []string{"listPets/cases-auth"}, Seed: 1})
	res, _ := rep.Result("listPets/cases-auth")
	require.Equal(t, conformance.Fail, res.Status)
	var alone, combined []conformance.Failure
	for _, f := range res.Failures {
		if strings.Contains(f.Case, "; ") {
			combined = append(combined, f)
		} else {
			alone = append(alone, f)
		}
	}
	require.NotEmpty(t, alone, "the key alone gets 500")
	for _, f := range alone {
		assert.True(t, f.Actual == "500 Internal Server Error" || strings.Contains(f.Message, "status 500 is not documented"), "%s: %s", f.Case, f.Message)
	}
	var noKeyLimit bool
	for _, f := range combined {
		assert.Equal(t, "400 Bad Request", f.Actual, "a combination answered as its key alone folds into that finding: %s", f.Case)
		assert.Contains(t, f.Case, "(alone, the key got 500 Internal Server Error: this is another answer)")
		noKeyLimit = noKeyLimit || strings.HasPrefix(f.Case, "no Authorization header; limit=")
	}
	assert.True(t, noKeyLimit, "no key and a limit out of range got 400: %v", combined)
}

package conformance_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// With DELETE /pets/{petId} added to a copy of the spec, the reference serving that copy
// (without Go code for it: reference/generic.go) is conforming to it, and the run exercised
// the new operation (issue 24, item 1). So it is with PUT and PATCH by id, and with listPets
// parameters it filters by (name) or accepts and does not act on (sort).
func TestReferenceServingAGrownSpecConforms(t *testing.T) {
	for _, tc := range []struct {
		addition string
		method   string // a method the run must have sent
	}{
		{grownspec.Delete, http.MethodDelete},
		{grownspec.Change, http.MethodPatch},
		{grownspec.Change, http.MethodPut},
		{grownspec.NameFilter, http.MethodGet},
		{grownspec.Sort, http.MethodGet},
	} {
		t.Run(tc.addition+" "+tc.method, func(t *testing.T) {
			t.Parallel()
			text, err := grownspec.Text(tc.addition)
			require.NoError(t, err)
			doc, err := spec.Parse(text)
			require.NoError(t, err)
			var sent atomic.Int64
			ref := newReference(t, beforeSunset, reference.Config{Spec: doc})
			counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == tc.method {
					sent.Add(1)
				}
				ref.ServeHTTP(w, r)
			})
			rep := run(t, serve(t, counted), conformance.Options{Spec: doc, Seed: 7})
			for _, res := range rep.Results {
				assert.NotEqual(t, conformance.Fail, res.Status, "%s: %s", res.ID, res.Reason)
			}
			assert.Equal(t, conformance.Conforming, rep.Verdict)
			assert.Positive(t, sent.Load(), "the run sent %s", tc.method)
		})
	}
}

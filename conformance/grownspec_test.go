package conformance_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// With DELETE /pets/{petId} added to a copy of the spec, the reference serving that copy
// (without Go code for it: reference/internal/core/generic.go) is conforming to it, and the run exercised
// the new operation (issue 24, item 1). So it is, in the rules of the operations they change,
// with PUT and PATCH by id, and with listPets parameters it filters by (name) or accepts and
// does not act on (sort).
func TestReferenceServingAGrownSpecConforms(t *testing.T) {
	for _, tc := range []struct {
		addition string
		only     []string // the rules run; all when empty
		methods  []string // methods the run must have sent
	}{
		{grownspec.Delete, nil, []string{http.MethodDelete}},
		{grownspec.Change, []string{"replacePet/*", "updatePet/*"}, []string{http.MethodPut, http.MethodPatch}},
		{grownspec.NameFilter, []string{"listPets/*"}, []string{http.MethodGet}},
		{grownspec.Sort, []string{"listPets/*"}, []string{http.MethodGet}},
	} {
		t.Run(tc.addition, func(t *testing.T) {
			t.Parallel()
			text, err := grownspec.Text(tc.addition)
			require.NoError(t, err)
			doc, err := spec.Parse(text)
			require.NoError(t, err)
			var mu sync.Mutex
			sent := map[string]int{}
			ref := newReference(t, beforeSunset, reference.Config{Spec: doc})
			counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				sent[r.Method]++
				mu.Unlock()
				ref.ServeHTTP(w, r)
			})
			rep := run(t, serve(t, counted), conformance.Options{Spec: doc, Seed: 7, Only: tc.only})
			for _, res := range rep.Results {
				assert.NotEqual(t, conformance.Fail, res.Status, "%s: %s", res.ID, res.Reason)
			}
			assert.Equal(t, conformance.Conforming, rep.Verdict)
			mu.Lock()
			defer mu.Unlock()
			for _, m := range tc.methods {
				assert.Positive(t, sent[m], "the run sent %s", m)
			}
		})
	}
}

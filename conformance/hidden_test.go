package conformance_test

import (
	"net/http"
	"path"
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

// The listing always answers 500 (a record that breaks the serialisation of every page
// holding it), and a petId with an underscore between its digits is read as the number
// without it (Ruby's Integer()): /pets/0_1 is animal 1. Preparation cannot list; it creates
// the animal the getPet rules need, known by its 201 answer, and they run: the petId with an
// underscore fails getPet/cases-path. The listing's own rules still fail on its 500, and a
// rule that needs what the listing shows says why it could not be judged.
func TestBrokenListingDoesNotHideGetPet(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case kit.IsList(r) && authorized(r):
			kit.Fail(w, http.StatusInternalServerError, "internal", "cannot serialise a record")
			return
		case kit.IsGet(r):
			id := path.Base(r.URL.Path)
			if strings.Trim(id, "0123456789_") == "" && strings.Contains(id, "_") {
				r = kit.WithPath(r, path.Dir(r.URL.Path)+"/"+strings.TrimLeft(strings.ReplaceAll(id, "_", ""), "0"))
			}
			if whole, _, ok := strings.Cut(id, "."); ok && whole != "" && strings.Trim(whole, "0123456789") == "" {
				r = kit.WithPath(r, path.Dir(r.URL.Path)+"/"+whole) // ".5" read as a format suffix
			}
		}
		ref.ServeHTTP(w, r)
	})
	rep := run(t, serve(t, h), conformance.Options{Seed: 1,
		Only: []string{"getPet/cases-path", "getPet/listed-returned", "getPet/deprecation-headers", "listPets/default-limit", "listPets/limit-max", "listPets/bare-array"}})
	res, _ := rep.Result("getPet/cases-path")
	require.Equal(t, conformance.Fail, res.Status, res.Reason)
	var underscore, fraction bool
	for _, f := range res.Failures {
		underscore = underscore || strings.Contains(f.Case, "with an underscore between digits") && f.Actual == "200 OK"
		fraction = fraction || strings.HasPrefix(f.Case, "petId = 1.5") && f.Actual == "id 1"
	}
	assert.True(t, underscore, "the petId with an underscore got the animal: %v", res.Failures)
	assert.True(t, fraction, "the petId 1.5 got animal 1: %v", res.Failures)
	assert.NotContains(t, res.Reason, "preparation failed")
	dep, _ := rep.Result("getPet/deprecation-headers")
	assert.Equal(t, conformance.Pass, dep.Status, dep.Reason)
	for _, id := range []string{"listPets/default-limit", "listPets/limit-max", "listPets/bare-array"} {
		res, _ := rep.Result(id)
		assert.Equal(t, conformance.Fail, res.Status, "%s: the listing's own rule meets its 500: %s", id, res.Reason)
	}
	listed, _ := rep.Result("getPet/listed-returned")
	assert.Equal(t, conformance.Error, listed.Status, "an animal as listed cannot be had from a broken listing")
	assert.Contains(t, listed.Reason, "preparation's listing answered wrongly")
	assert.Contains(t, listed.Reason, "500")
	assert.Equal(t, 1, rep.AnimalsCreated, "one animal, for the rules that ask for one by id")

	// Read-only, nothing is created, and the getPet rules could not be judged, as before.
	rep = run(t, serve(t, h), conformance.Options{Seed: 1, ReadOnly: true, Only: []string{"getPet/cases-path"}})
	res, _ = rep.Result("getPet/cases-path")
	assert.Equal(t, conformance.Error, res.Status, res.Reason)
	assert.Zero(t, rep.AnimalsCreated)
}

// Only the listings filtered by a status answer 500 (grape-5 after more animals than a page:
// the page without a filter no longer holds the record that breaks serialisation, the one of
// its status does). The animals the unfiltered listing shows are the fixture of the rules that
// ask for one by id, which are judged as on a sound store; the rules of a status say why not.
func TestBrokenFilteredListingDoesNotHideGetPet(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kit.IsList(r) && authorized(r) && r.URL.Query().Has("status") {
			kit.Fail(w, http.StatusInternalServerError, "internal", "cannot serialise a record")
			return
		}
		ref.ServeHTTP(w, r)
	})
	status := "listPets/status-" + shipped.Statuses[0]
	rep := run(t, serve(t, h), conformance.Options{Seed: 1, Only: []string{"getPet/cases-path", "getPet/deprecation-headers", status}})
	for _, id := range []string{"getPet/cases-path", "getPet/deprecation-headers"} {
		res, _ := rep.Result(id)
		assert.Equal(t, conformance.Pass, res.Status, "%s: %s", id, res.Reason)
	}
	res, _ := rep.Result(status)
	assert.Equal(t, conformance.Fail, res.Status, "the filtered listing's own rule meets its 500: %s", res.Reason)
	assert.Contains(t, res.Reason, "preparation's listing answered wrongly")
}

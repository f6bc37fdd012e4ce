package conformance_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// stateless answers createPet 201 without storing anything (a mock, a cache in front of GET)
// and lists the same three animals whatever the limit and status asked for.
func stateless(ref http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authorized := r.Header.Get("Authorization") == "Bearer "+testKey
		switch {
		case authorized && r.Method == http.MethodPost && r.URL.Path == "/v1/pets":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":900,"name":"conformance-mock","categoryId":1,"status":"available"}`))
		case authorized && r.Method == http.MethodGet && r.URL.Path == "/v1/pets":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[{"id":1,"name":"a","categoryId":1,"status":"available"},` +
				`{"id":2,"name":"b","categoryId":1,"status":"pending"},{"id":3,"name":"c","categoryId":1,"status":"available"}]`))
		default:
			ref.ServeHTTP(w, r)
		}
	})
}

// When the animals a run creates never show (issue 17, item 7), the rules that needed them
// still judge what their requests show without them: limit=1 answered with three animals,
// status=sold answered with others, an animal listed that getPet does not know, fail; a rule whose requests show nothing wrong could
// not be judged, and says why.
func TestFailedPreparationStillJudges(t *testing.T) {
	opts := conformance.Options{Only: []string{"listPets/limit-min", "listPets/status-sold", "listPets/default-limit", "getPet/listed-returned"}}
	conformance.NoWait(&opts, nil)
	rep := run(t, serve(t, stateless(newReference(t, beforeSunset, reference.Config{}))), opts)

	for _, id := range []string{"listPets/limit-min", "listPets/status-sold"} {
		res, _ := rep.Result(id)
		assert.Equal(t, conformance.Fail, res.Status, id)
		assert.Contains(t, res.Reason, "judged without the animals it needed: preparation failed", id)
	}
	res, _ := rep.Result("listPets/limit-min")
	assert.Equal(t, "3 animals", res.Failures[0].Actual, res.Failures[0].Message)
	res, _ = rep.Result("listPets/default-limit")
	assert.Equal(t, conformance.Error, res.Status, "three animals are within the default limit: nothing to judge")
	assert.Contains(t, res.Reason, "preparation failed: created animals not visible")
	res, _ = rep.Result("getPet/listed-returned")
	assert.Equal(t, conformance.Fail, res.Status, "the listing shows animal 1, which getPet does not know: judged")
}

package fast_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/internal/fast"
)

// server is the reference for doc (nil: the embedded spec) with three animals.
func server(t *testing.T, doc *openapi3.T) http.Handler {
	h, err := reference.NewServer(reference.Config{APIKeys: []string{"test-key"}, Spec: doc, Seed: []reference.NewPet{
		{Name: "pet1", CategoryID: 1, Status: "available"}, {Name: "pet2", CategoryID: 2, Status: "pending"}, {Name: "pet3", CategoryID: 3, Status: "sold"}}})
	require.NoError(t, err)
	return h
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Every createPet request of the case generator gets the same answer, byte for byte, from a
// server whose body check is compiled and from one that validates with kin-openapi alone.
func TestCompiledBodyCheckAnswersAsKinOpenAPI(t *testing.T) {
	compiled := server(t, nil)
	kin := server(t, fast.UncompiledNewPet(t))
	for _, rq := range fast.GeneratedBodies(t) {
		var answers [2]*httptest.ResponseRecorder
		for i, h := range []http.Handler{compiled, kin} {
			r := httptest.NewRequest(rq.Method, "/v1"+rq.Path, bytes.NewReader(rq.Body.Bytes()))
			for _, f := range rq.Header {
				r.Header.Add(f.Name, f.Value)
			}
			r.Header.Set("Authorization", "Bearer test-key")
			answers[i] = serve(h, r)
		}
		a, b := answers[0], answers[1]
		if !assert.Equal(t, b.Code, a.Code, "%.200q", rq.Body.Bytes()) {
			continue
		}
		assert.Equal(t, b.Header(), a.Header(), "%.200q", rq.Body.Bytes())
		assert.Equal(t, b.Body.String(), a.Body.String(), "%.200q", rq.Body.Bytes())
	}
}

package cases

import (
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/spec"
)

// The case-insensitive variant of a media type keeps its words and capitalises them.
func TestUpperMediaType(t *testing.T) {
	for mt, want := range map[string]string{
		"application/json":             "Application/JSON",
		"application/merge-patch+json": "Application/Merge-Patch+JSON",
		"application/vnd.pet+json":     "Application/Vnd.pet+JSON",
		"json":                         "JSON",
	} {
		assert.Equal(t, want, upperMediaType(mt))
	}
}

// A request body is sent as application/json when the spec lists it, else as the first other
// JSON media type it lists (a PATCH's merge patch); a body of no JSON type is not generated.
func TestRequestBodyPicksAJSONMediaType(t *testing.T) {
	obj := openapi3.NewObjectSchema()
	op := func(types ...string) spec.Operation {
		content := openapi3.Content{}
		for _, mt := range types {
			content[mt] = openapi3.NewMediaType().WithSchema(obj)
		}
		return spec.Operation{Op: &openapi3.Operation{RequestBody: &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithContent(content)}}}
	}
	for _, tc := range []struct {
		types []string
		want  string
	}{
		{[]string{"application/merge-patch+json", "application/json"}, "application/json"},
		{[]string{"application/merge-patch+json"}, "application/merge-patch+json"},
		{[]string{"text/plain", "application/problem+json", "application/merge-patch+json"}, "application/merge-patch+json"},
		{[]string{"text/plain"}, ""},
	} {
		mt, s := requestBody(op(tc.types...))
		assert.Equal(t, tc.want, mt, "%v", tc.types)
		assert.Equal(t, tc.want != "", s != nil, "%v", tc.types)
	}
	mt, s := requestBody(spec.Operation{Op: &openapi3.Operation{}})
	assert.Empty(t, mt)
	assert.Nil(t, s)
}

// No case of any depth sends the key in a TRACE (RFC 9110 9.3.8), combinations included.
func TestNoKeyInATrace(t *testing.T) {
	g := New(Base{Reference: "1", KnownID: "1", Name: func() string { return "conformance-x" }}).Deep(DepthDeep)
	ops, err := spec.Operations(spec.MustLoad())
	if err != nil {
		t.Fatal(err)
	}
	traces := 0
	for _, op := range ops {
		for _, k := range g.anatomyCases(op) {
			if strings.EqualFold(k.Request.Method, "TRACE") {
				traces++
				if k.Request.Auth != AuthNone || slices.ContainsFunc(k.Request.Header, func(h Header) bool { return strings.EqualFold(h.Name, "Authorization") }) {
					t.Errorf("%s %s sends the key in a TRACE", op.ID, k.Name)
				}
			}
		}
	}
	if traces == 0 {
		t.Fatal("no TRACE case: the test tests nothing")
	}
}

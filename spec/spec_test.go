package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadIsValidAndShared(t *testing.T) {
	a, err := Load()
	require.NoError(t, err)
	b, err := Load()
	require.NoError(t, err)
	assert.Same(t, a, b, "Load parses once")
	assert.Equal(t, "1.0.0", a.Info.Version, "interface section 9.1")
}

// documentSpec is internal/document/spec.yaml (document.Spec, which this package's tests
// cannot import), the spec as the interface document fixes it: the readers' tests below read
// known values from it, whatever spec/openapi.yaml says (internal/document's tests compare
// that one with the document).
func documentSpec(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := LoadFile("../internal/document/spec.yaml")
	require.NoError(t, err)
	return doc
}

func TestOperationsFollowTheInterfaceDocument(t *testing.T) {
	ops, err := Operations(documentSpec(t))
	require.NoError(t, err)
	type want struct {
		method, path string
		statuses     []int
		deprecated   bool
	}
	// The 400s of listPets and getPet are the reference server's answers where the document is
	// silent (the spec says so in their descriptions); the document itself lists 200/401 and
	// 200/401/404. The harness accepts any 4xx with an Error body for those probes.
	wants := map[string]want{
		"listPets":  {"GET", "/pets", []int{200, 400, 401}, false},
		"createPet": {"POST", "/pets", []int{201, 400, 401}, false},
		"getPet":    {"GET", "/pets/{petId}", []int{200, 400, 401, 404}, true},
	}
	require.Len(t, ops, len(wants))
	for _, o := range ops {
		w, ok := wants[o.ID]
		require.True(t, ok, "unexpected operation %s", o.ID)
		assert.Equal(t, w.method, o.Method, o.ID)
		assert.Equal(t, w.path, o.Path, o.ID)
		assert.Equal(t, w.statuses, o.Statuses, o.ID)
		assert.Equal(t, w.deprecated, o.Deprecated, o.ID)
		assert.True(t, o.Secured, "%s: section 5.1, every operation requires authentication", o.ID)
		assert.Equal(t, []string{"animals"}, o.Op.Tags, o.ID)
		assert.Empty(t, o.Stability, "%s: no operation is marked (9.4)", o.ID)
	}
	get, err := FindOperation(documentSpec(t), "getPet")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2030, 12, 5, 0, 0, 0, 0, time.UTC), get.Sunset, "section 4.3 / 9.3")
	assert.Equal(t, "listPets", get.ReplacedBy)
	assert.False(t, get.Gone(get.Sunset.Add(-time.Second)))
	assert.True(t, get.Gone(get.Sunset))
	_, err = FindOperation(documentSpec(t), "deletePet")
	assert.Error(t, err)
}

func TestValuesReadFromTheDocument(t *testing.T) {
	doc := documentSpec(t)
	b, err := QueryInt(doc, "listPets", "limit")
	require.NoError(t, err)
	assert.Equal(t, IntBounds{Min: 1, Max: 100, Default: 20, HasMin: true, HasMax: true, HasDefault: true}, b, "section 8")
	_, err = QueryInt(doc, "listPets", "status")
	assert.Error(t, err, "status is not an integer")
	_, err = QueryInt(doc, "listPets", "nope")
	assert.Error(t, err)

	st, err := StatusValues(doc)
	require.NoError(t, err)
	assert.Equal(t, []string{"available", "pending", "sold"}, st, "section 2 PetStatus")

	base, err := BasePath(doc)
	require.NoError(t, err)
	assert.Equal(t, "/v1", base, "section 9.2")
	seg, err := VersionSegment(doc)
	require.NoError(t, err)
	assert.Equal(t, "v1", seg)
	assert.Len(t, doc.Servers, 2, "production and staging")
}

func TestSchemasFollowTheInterfaceDocument(t *testing.T) {
	doc := documentSpec(t)
	required := map[string][]string{
		"NewPet": {"name", "categoryId"},
		"Pet":    {"id", "name", "categoryId"},
		"Error":  {"code", "message", "status"},
	}
	for name, req := range required {
		s := doc.Components.Schemas[name].Value
		assert.ElementsMatch(t, req, s.Required, name)
	}
	pet := doc.Components.Schemas["Pet"].Value
	assert.Equal(t, "int64", pet.Properties["id"].Value.Format)
	assert.Equal(t, "int64", pet.Properties["categoryId"].Value.Format)
	assert.True(t, doc.Components.Schemas["Pets"].Value.Type.Is("array"), "4.1 rule 3: a plain array")
}

func TestParseRejectsInvalidDocuments(t *testing.T) {
	_, err := Parse([]byte("openapi: 3.0.3\ninfo: {}\n"))
	assert.Error(t, err)
	_, err = Parse([]byte("{{{"))
	assert.Error(t, err)
	// An example that breaks its schema is an error, not a warning.
	bad := strings.Replace(string(Bytes()), "example: 20\n", "example: 500\n", 1)
	_, err = Parse([]byte(bad))
	assert.Error(t, err)
	_, err = LoadFile("does-not-exist.yaml")
	assert.Error(t, err)
}

func TestBadExtensionsAreReported(t *testing.T) {
	bad := strings.Replace(string(Bytes()), "x-sunset: '2030-12-05'", "x-sunset: 'soon'", 1)
	doc, err := Parse([]byte(bad))
	require.NoError(t, err)
	_, err = Operations(doc)
	assert.ErrorContains(t, err, "x-sunset")
}

func TestServerPath(t *testing.T) {
	doc := MustLoad()
	for _, s := range doc.Servers {
		p, err := ServerPath(s)
		require.NoError(t, err)
		assert.Equal(t, "/v1", p, s.URL)
	}
	_, err := ServerPath(&openapi3.Server{URL: "http://[::1"})
	assert.Error(t, err)
}

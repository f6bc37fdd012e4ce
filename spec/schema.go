package spec

import (
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// PropertyNames returns the schema's property names, sorted, so that whatever is generated
// from them keeps its order from run to run.
func PropertyNames(s *openapi3.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsRequired reports whether the object schema s requires the property name.
func IsRequired(s *openapi3.Schema, name string) bool { return slices.Contains(s.Required, name) }

// IsJSON reports whether h says its body is JSON (application/json or +json).
func IsJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && IsJSONMediaType(mt)
}

// IsJSONMediaType reports whether the media type mt (lower case, without parameters) is
// JSON: application/json, or a +json one such as application/merge-patch+json.
func IsJSONMediaType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

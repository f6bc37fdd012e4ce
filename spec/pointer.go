package spec

import (
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// JSON pointers into the description, and the one-line texts of violations.

// schemaPointer follows the value path of se from root (found at rootPtr) through $refs,
// array items and object properties, and returns the JSON pointer of the schema keyword that
// failed (for example #/components/schemas/Pet/required), with the value's location.
func schemaPointer(rootPtr string, root *openapi3.SchemaRef, se *openapi3.SchemaError) (ptr, loc string) {
	path := se.JSONPointer()
	loc = "body"
	if len(path) > 0 {
		loc += "/" + strings.Join(path, "/")
	}
	walk := path
	if se.SchemaField == "required" && len(walk) > 0 {
		walk = walk[:len(walk)-1] // the missing property's name: the keyword sits on its parent
	}
	ptr, ref := rootPtr, root
	for _, step := range walk {
		if ref == nil || ref.Value == nil {
			break
		}
		if ref.Ref != "" {
			ptr = ref.Ref
		}
		s := ref.Value
		switch {
		case s.Items != nil && s.Type.Is(openapi3.TypeArray):
			ptr, ref = ptr+"/items", s.Items
		case s.Properties[step] != nil:
			ptr, ref = ptr+"/properties/"+escape(step), s.Properties[step]
		default:
			ref = nil
		}
	}
	if ref != nil && ref.Ref != "" {
		ptr = ref.Ref
	}
	if se.SchemaField != "" {
		ptr += "/" + se.SchemaField
	}
	return ptr, loc
}

// OperationPointer is the JSON pointer of route's operation in the description, e.g.
// #/paths/~1pets/get: where a finding about an answer as a whole points.
func OperationPointer(route *routers.Route) string { return operationPointer(route) }

func operationPointer(route *routers.Route) string {
	return "#/paths/" + escape(route.Path) + "/" + strings.ToLower(route.Method)
}

func parameterPointer(route *routers.Route, opPtr string, p *openapi3.Parameter) string {
	for i, ref := range route.Operation.Parameters {
		if ref.Value == p {
			if ref.Ref != "" {
				return ref.Ref
			}
			return opPtr + "/parameters/" + strconv.Itoa(i)
		}
	}
	for i, ref := range route.PathItem.Parameters {
		if ref.Value == p {
			return "#/paths/" + escape(route.Path) + "/parameters/" + strconv.Itoa(i)
		}
	}
	return opPtr + "/parameters"
}

func documented(op *openapi3.Operation) string {
	codes := make([]string, 0, op.Responses.Len())
	for code := range op.Responses.Map() {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	return strings.Join(codes, ", ")
}

func mediaTypes(c openapi3.Content) []string {
	out := make([]string, 0, len(c))
	for mt := range c {
		out = append(out, mt)
	}
	sort.Strings(out)
	return out
}

// mediaType returns the key of c that Content.Get matched for ct.
func mediaType(c openapi3.Content, ct string) string {
	want := c.Get(ct)
	for mt, m := range c {
		if m == want {
			return mt
		}
	}
	return ct
}

// escape encodes one JSON pointer token (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func oneLine(s string) string {
	if i := strings.Index(s, "\nSchema:"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// Pointer joins JSON pointer tokens under "#", escaping "~" and "/" (RFC 6901):
// Pointer("paths", "/pets", "get") is #/paths/~1pets/get.
func Pointer(tokens ...string) string {
	var b strings.Builder
	b.WriteString("#")
	for _, t := range tokens {
		b.WriteString("/")
		b.WriteString(escape(t))
	}
	return b.String()
}

package exchange

import (
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/jsonscan"
	"github.com/petstore/petstore/spec"
)

// The fast check of an answer against the description. kin-openapi's response validation
// decodes every body into maps and interfaces and walks the schema over them: on a run of
// small answers it was the largest part of the harness's CPU. The schemas of the documented
// responses are compiled once, per operation and status, into checks that read the body's
// JSON text directly. A compiled check only ever says that kin-openapi certainly accepts the
// answer; for anything else (a body it cannot decide, a schema keyword it does not know) the
// answer goes to kin-openapi as before, whose verdict and words are the ones reported. So
// the fast check can make a run faster, never more lenient: fastcheck_test.go holds it to
// kin-openapi's verdict over valid, malformed and mutated answers, and fuzzes it.
//
// What compiles (OpenAPI 3.0 only): object schemas (properties, required, additionalProperties
// absent or true), arrays (items only), strings (with or without an enumeration of strings),
// integers (format none, int32 or int64) and booleans, none nullable, readOnly or writeOnly;
// documentation keywords (title, description, example, default, deprecated, extensions) play
// no part in a response's validation and are ignored. A response compiles when it defines no
// header but Content-Type and its media types have no encoding.
//
// What passes: exactly one JSON value (white space around it), valid UTF-8, no object key
// written with an escape nor given twice among the properties, every property's value
// passing, every required property present, unknown properties of any well-formed value;
// integers written without a fraction or exponent and within int64 (and the format's range);
// enumerated strings written without escapes. Everything else is undecided.

// maxDepth bounds the nesting a compiled check follows; deeper bodies are kin-openapi's (an
// unknown property's value is read to jsonscan.Depth levels more at most).
const maxDepth = 64

// maxCompiledProperties bounds the properties of a compiled object (one bit each).
const maxCompiledProperties = 64

type kind uint8

const (
	kindObject kind = iota + 1
	kindArray
	kindString
	kindInteger
	kindBoolean
)

// schemaCheck is a compiled schema.
type schemaCheck struct {
	kind kind
	// object: its properties by name, their checks, and the bits of the required ones.
	props    map[string]int
	checks   []*schemaCheck
	required uint64
	// array: the check of its items.
	items *schemaCheck
	// string: the values it may take (nil: any); integer: its range.
	enum   map[string]bool
	lo, hi int64
}

// responseChecks are the compiled checks of a description's documented responses.
type responseChecks map[*openapi3.Operation]map[int]*responseCheck

// responseCheck is one documented response: no content to check, or a check per media type.
type responseCheck struct {
	noContent bool
	media     map[*openapi3.MediaType]*schemaCheck // nil value: the media type has no schema
}

// compileResponses compiles what it can of f's documented responses.
func compileResponses(f *spec.Facts) responseChecks {
	out := responseChecks{}
	if f.Doc.IsOpenAPI31OrLater() {
		return out
	}
	memo := map[*openapi3.Schema]*schemaCheck{}
	for _, o := range f.Ops {
		if o.Op.Responses == nil {
			continue
		}
		for code, ref := range o.Op.Responses.Map() {
			status, err := strconv.Atoi(code)
			if err != nil || ref == nil || ref.Value == nil {
				continue
			}
			if rc := compileResponse(ref.Value, memo); rc != nil {
				if out[o.Op] == nil {
					out[o.Op] = map[int]*responseCheck{}
				}
				out[o.Op][status] = rc
			}
		}
	}
	return out
}

func compileResponse(r *openapi3.Response, memo map[*openapi3.Schema]*schemaCheck) *responseCheck {
	for name := range r.Headers {
		if name != "Content-Type" {
			return nil // kin-openapi validates the header
		}
	}
	if len(r.Content) == 0 {
		return &responseCheck{noContent: true}
	}
	rc := &responseCheck{media: map[*openapi3.MediaType]*schemaCheck{}}
	for _, mt := range r.Content {
		if mt == nil || len(mt.Encoding) > 0 {
			continue
		}
		if mt.Schema == nil {
			rc.media[mt] = nil
			continue
		}
		if c := compileSchema(mt.Schema, memo, 0); c != nil {
			rc.media[mt] = c
		}
	}
	return rc
}

// compileSchema compiles ref's schema, or returns nil when it uses a keyword the fast check
// does not know.
func compileSchema(ref *openapi3.SchemaRef, memo map[*openapi3.Schema]*schemaCheck, depth int) *schemaCheck {
	if ref == nil || ref.Value == nil || depth > maxDepth {
		return nil
	}
	s := ref.Value
	if c, ok := memo[s]; ok {
		return c // nil while a recursive schema is being compiled: kin-openapi's
	}
	memo[s] = nil
	c := compileValue(s, memo, depth)
	memo[s] = c
	return c
}

func compileValue(s *openapi3.Schema, memo map[*openapi3.Schema]*schemaCheck, depth int) *schemaCheck {
	t := *s
	// What plays no part in validating a response.
	t.Extensions, t.Origin, t.Title, t.Description, t.Example, t.ExternalDocs, t.Deprecated, t.Default = nil, nil, "", "", nil, nil, false, nil
	if t.Type == nil || len(*t.Type) != 1 {
		return nil
	}
	typ := (*t.Type)[0]
	t.Type = nil
	c := &schemaCheck{}
	switch typ {
	case openapi3.TypeObject:
		if len(t.Properties) > maxCompiledProperties {
			return nil
		}
		if has := t.AdditionalProperties.Has; t.AdditionalProperties.Schema != nil || has != nil && !*has {
			return nil
		}
		c.kind, c.props = kindObject, map[string]int{}
		for name, p := range t.Properties {
			pc := compileSchema(p, memo, depth+1)
			if pc == nil {
				return nil
			}
			c.props[name] = len(c.checks)
			c.checks = append(c.checks, pc)
		}
		for _, name := range t.Required {
			i, ok := c.props[name]
			if !ok {
				return nil // a required property without a schema: kin-openapi's
			}
			c.required |= 1 << i
		}
		t.Properties, t.Required, t.AdditionalProperties = nil, nil, openapi3.AdditionalProperties{}
	case openapi3.TypeArray:
		if c.items = compileSchema(t.Items, memo, depth+1); c.items == nil {
			return nil
		}
		c.kind, t.Items = kindArray, nil
	case openapi3.TypeString:
		c.kind = kindString
		if len(t.Enum) > 0 {
			c.enum = map[string]bool{}
			for _, v := range t.Enum {
				str, ok := v.(string)
				if !ok {
					return nil
				}
				c.enum[str] = true
			}
		}
		t.Enum = nil
	case openapi3.TypeInteger:
		c.kind, c.lo, c.hi = kindInteger, math.MinInt64, math.MaxInt64
		switch t.Format {
		case "", "int64":
		case "int32":
			c.lo, c.hi = math.MinInt32, math.MaxInt32
		default:
			return nil
		}
		t.Format = ""
	case openapi3.TypeBoolean:
		c.kind = kindBoolean
	default:
		return nil
	}
	if !reflect.ValueOf(t).IsZero() {
		return nil // another keyword
	}
	return c
}

// passes reports whether kin-openapi certainly accepts the answer (status, header, body) to
// a request routed to op; false leaves the verdict to kin-openapi.
func (rc responseChecks) passes(op *openapi3.Operation, method string, status int, header http.Header, body []byte) bool {
	if method == http.MethodHead {
		return false
	}
	r := rc[op][status]
	switch {
	case r == nil:
		return false
	case r.noContent:
		return true
	}
	ct := header.Get("Content-Type")
	mt := op.Responses.Status(status).Value.Content.Get(ct)
	c, ok := r.media[mt]
	if mt == nil || !ok {
		return false
	}
	if c == nil {
		return true // the media type has no schema
	}
	// The media type kin-openapi picks its decoder by.
	if mediaType, _, _ := strings.Cut(ct, ";"); strings.ToLower(strings.TrimSpace(mediaType)) != "application/json" {
		return false
	}
	return checkJSON(c, body)
}

// checkJSON reports whether body is one JSON value that c certainly accepts.
func checkJSON(c *schemaCheck, body []byte) bool {
	if !utf8.Valid(body) {
		return false // encoding/json would decode other text than is written
	}
	sc := jsonscan.New(body, jsonscan.Depth)
	return c.value(sc, 0) && sc.Done()
}

// value reads one value that c certainly accepts.
func (c *schemaCheck) value(sc *jsonscan.Scanner, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch c.kind {
	case kindObject:
		return c.object(sc, depth)
	case kindArray:
		more, ok := sc.Open('[')
		for ok && more {
			if !c.items.value(sc, depth+1) {
				return false
			}
			more, ok = sc.Next(']')
		}
		return ok
	case kindString:
		raw, escaped, ok := sc.String()
		return ok && (c.enum == nil || !escaped && c.enum[string(raw)])
	case kindInteger:
		text, integer, ok := sc.Number()
		if !ok || !integer {
			return false
		}
		n, err := strconv.ParseInt(string(text), 10, 64)
		return err == nil && n >= c.lo && n <= c.hi
	case kindBoolean:
		return sc.Literal("true") || sc.Literal("false")
	}
	return false
}

func (c *schemaCheck) object(sc *jsonscan.Scanner, depth int) bool {
	var seen uint64
	more, ok := sc.Open('{')
	for ok && more {
		key, escaped, read := sc.Key()
		if !read || escaped {
			return false
		}
		i, known := c.props[string(key)]
		switch {
		case !known:
			if !sc.Skip() {
				return false
			}
		case seen&(1<<i) != 0:
			return false // given twice: which one counts is the decoder's
		default:
			seen |= 1 << i
			if !c.checks[i].value(sc, depth+1) {
				return false
			}
		}
		more, ok = sc.Next('}')
	}
	return ok && seen&c.required == c.required
}

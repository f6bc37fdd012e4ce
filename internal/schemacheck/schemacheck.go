// Package schemacheck is the one compiled schema checker of the module, below both the
// reference and the harness: an OpenAPI 3.0 schema compiled once into a check that reads a
// document's JSON text in place (internal/jsonscan) and says one of three things of it:
// Valid (kin-openapi certainly accepts it), Invalid (kin-openapi certainly refuses it), or
// Ask (kin-openapi decides). kin-openapi decodes every body into maps and interfaces and walks
// the schema over them; on the reference's every request and stored animal, and on a run's
// every answer, that was the largest part of the CPU. A caller runs kin-openapi on anything
// that is not Valid, so its verdict and words are the ones that count: the check can make a
// server or a run faster, never more lenient. schemacheck_test.go holds it to kin-openapi
// (VisitJSON on what encoding/json with UseNumber decodes, as openapi3filter decodes a body)
// over valid, malformed and mutated documents, and FuzzSchemaCheck fuzzes it.
//
// What compiles: object schemas (properties, required, additionalProperties absent or true),
// arrays (items only), strings (with or without an enumeration of strings, no format),
// integers (format none, int32 or int64; minimum and maximum) and booleans, none nullable,
// readOnly or writeOnly; documentation keywords (title, description, $comment, example(s),
// default, deprecated, externalDocs, extensions) play no part and are ignored (a default is
// never applied: callers validate with defaults off). Any other keyword leaves the whole
// schema to kin-openapi (Compile returns nil). OpenAPI 3.1 documents validate with another
// validator: callers do not compile their schemas.
//
// What is decided: a document of exactly one JSON value (white space around it); every
// property's value decided, every required property present, unknown properties of any
// well-formed value. Invalid where a nested value is of another JSON type than its schema
// (null included), an integer is out of its bounds, a string is outside its enumeration or a
// required property is missing. Ask for malformed JSON, nesting beyond maxDepth, a top-level
// value of another type than the schema's, a key written with an escape, a known property
// given twice (which one counts is the decoder's), integers written with a fraction or an
// exponent or beyond int64, enumerated strings written with escapes or invalid UTF-8.
package schemacheck

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/jsonscan"
)

// Verdict is what a compiled check says of a document.
type Verdict uint8

// The three verdicts.
const (
	Ask     Verdict = iota // kin-openapi decides
	Valid                  // kin-openapi certainly accepts the document
	Invalid                // kin-openapi certainly refuses it
)

func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "ask kin-openapi"
}

// maxDepth bounds the nesting a compiled check follows, in the schema and in the document;
// an unknown property's value is read to jsonscan.Depth levels more at most.
const maxDepth = 64

// maxProperties bounds the properties of a compiled object (one bit each).
const maxProperties = 64

// Kind is the JSON type of a compiled schema.
type Kind uint8

// The kinds that compile.
const (
	Object Kind = iota + 1
	Array
	String
	Integer
	Boolean
)

// Check is a compiled schema. Its zero value is not a check: use Compile.
type Check struct {
	kind Kind
	// object: its properties, their checks in the same order, the bits of the required ones.
	names    []string
	props    []*Check
	required uint64
	// array: the check of its items.
	items *Check
	// string: the values it may take (nil: any).
	enum map[string]bool
	// integer: its bounds, format included, as kin-openapi compares a JSON number: as a
	// float64.
	lo, hi float64
}

// Compile compiles s, or returns nil when s (or a schema it refers to) uses a keyword the
// check does not know, or refers to itself.
func Compile(s *openapi3.Schema) *Check {
	if s == nil {
		return nil
	}
	return compile(s, map[*openapi3.Schema]*Check{}, 0)
}

func compile(s *openapi3.Schema, memo map[*openapi3.Schema]*Check, depth int) *Check {
	if depth > maxDepth {
		return nil
	}
	if c, ok := memo[s]; ok {
		return c // nil while a recursive schema is being compiled: kin-openapi's
	}
	memo[s] = nil
	c := compileValue(s, memo, depth)
	memo[s] = c
	return c
}

func compileRef(ref *openapi3.SchemaRef, memo map[*openapi3.Schema]*Check, depth int) *Check {
	if ref == nil || ref.Value == nil {
		return nil
	}
	return compile(ref.Value, memo, depth)
}

func compileValue(s *openapi3.Schema, memo map[*openapi3.Schema]*Check, depth int) *Check {
	t := WithoutDocs(*s)
	if t.Type == nil || len(*t.Type) != 1 {
		return nil
	}
	typ := (*t.Type)[0]
	t.Type = nil
	c := &Check{}
	switch typ {
	case openapi3.TypeObject:
		if len(t.Properties) > maxProperties {
			return nil
		}
		if has := t.AdditionalProperties.Has; t.AdditionalProperties.Schema != nil || has != nil && !*has {
			return nil
		}
		c.kind = Object
		for name, p := range t.Properties {
			// A key with invalid UTF-8 decodes to one with U+FFFD: it cannot match such a name.
			if !utf8.ValidString(name) || strings.ContainsRune(name, utf8.RuneError) {
				return nil
			}
			pc := compileRef(p, memo, depth+1)
			if pc == nil {
				return nil
			}
			c.names, c.props = append(c.names, name), append(c.props, pc)
		}
		for _, name := range t.Required {
			i := c.index(name)
			if i < 0 {
				return nil // required but not described: kin-openapi's
			}
			c.required |= 1 << i
		}
		t.Properties, t.Required, t.AdditionalProperties = nil, nil, openapi3.AdditionalProperties{}
	case openapi3.TypeArray:
		if c.items = compileRef(t.Items, memo, depth+1); c.items == nil {
			return nil
		}
		c.kind, t.Items = Array, nil
	case openapi3.TypeString:
		c.kind = String
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
		c.kind, c.lo, c.hi = Integer, math.Inf(-1), math.Inf(1)
		switch t.Format {
		case "":
		case "int32":
			c.lo, c.hi = math.MinInt32, math.MaxInt32
		case "int64":
			c.lo, c.hi = math.MinInt64, 1<<63 // kin-openapi takes 2^63 as MaxInt64 (its float64)
		default:
			return nil
		}
		if t.Min != nil {
			c.lo = max(c.lo, *t.Min)
		}
		if t.Max != nil {
			c.hi = min(c.hi, *t.Max)
		}
		t.Format, t.Min, t.Max = "", nil, nil
	case openapi3.TypeBoolean:
		c.kind = Boolean
	default:
		return nil
	}
	if !reflect.ValueOf(t).IsZero() {
		return nil // another keyword
	}
	return c
}

// WithoutDocs clears the fields of a schema that take no part in validating a value (a
// default is never applied: callers validate with defaults off).
func WithoutDocs(s openapi3.Schema) openapi3.Schema {
	s.Extensions, s.Origin, s.Title, s.Description, s.Comment = nil, nil, "", "", ""
	s.Example, s.Examples, s.ExternalDocs, s.Deprecated, s.Default = nil, nil, nil, false, nil
	return s
}

// Kind is the JSON type the schema compiled to.
func (c *Check) Kind() Kind { return c.kind }

// Enum is a string schema's enumeration (nil: any string).
func (c *Check) Enum() map[string]bool { return c.enum }

// Bounds are an integer schema's bounds, its format's and its minimum and maximum, as
// kin-openapi compares a JSON number: as a float64 (infinite when there is none).
func (c *Check) Bounds() (lo, hi float64) { return c.lo, c.hi }

// InBounds reports whether n is within an integer schema's bounds as kin-openapi compares
// it: float64(n) rounds to nearest, as its ParseFloat of the number's text does.
func (c *Check) InBounds(n int64) bool { return float64(n) >= c.lo && float64(n) <= c.hi }

// index returns the position of a property, or -1.
func (c *Check) index(name string) int {
	for i, n := range c.names {
		if n == name {
			return i
		}
	}
	return -1
}

// Decide says what kin-openapi would say of data, a whole document (a request body, a
// response body, a stored record): Valid, Invalid, or Ask.
func (c *Check) Decide(data []byte) Verdict {
	s := jsonscan.New(data, jsonscan.Depth)
	if !c.accepts(s.Peek()) {
		return Ask // a top-level value of another type: kin-openapi says (a null body is its own case)
	}
	v, read := c.value(s, 0)
	if !read || !s.Done() {
		return Ask // encoding/json's Decoder stops after the first value; let it
	}
	return v
}

// accepts reports whether a value starting with b is of c's JSON type.
func (c *Check) accepts(b byte) bool {
	switch c.kind {
	case Object:
		return b == '{'
	case Array:
		return b == '['
	case String:
		return b == '"'
	case Integer:
		return b == '-' || b >= '0' && b <= '9'
	case Boolean:
		return b == 't' || b == 'f'
	}
	return false
}

// value reads one value at s and decides it; read is false when the value is not
// well-formed JSON (or nests too deep), and the verdict then is Ask.
func (c *Check) value(s *jsonscan.Scanner, depth int) (v Verdict, read bool) {
	if depth > maxDepth {
		return Ask, false
	}
	if !c.accepts(s.Peek()) {
		// Another JSON type than the schema's (null too: nothing compiled is nullable).
		return Invalid, s.Skip()
	}
	switch c.kind {
	case Object:
		return c.object(s, depth)
	case Array:
		out := Valid
		more, ok := s.Open('[')
		for ok && more {
			iv, read := c.items.value(s, depth+1)
			if !read {
				return Ask, false
			}
			out = and(out, iv)
			more, ok = s.Next(']')
		}
		return out, ok
	case String:
		raw, escaped, ok := s.String()
		switch {
		case !ok:
			return Ask, false
		case c.enum == nil:
			return Valid, true
		case escaped || !utf8.Valid(raw):
			return Ask, true // its decoded value is not raw
		case c.enum[string(raw)]:
			return Valid, true
		}
		return Invalid, true
	case Integer:
		text, integer, ok := s.Number()
		if !ok {
			return Ask, false
		}
		if !integer {
			return Ask, true // a fraction or an exponent: 1.0 is an integer to kin-openapi
		}
		n, err := strconv.ParseInt(string(text), 10, 64)
		switch {
		case err != nil:
			return Ask, true
		case c.InBounds(n):
			return Valid, true
		}
		return Invalid, true
	case Boolean:
		if s.Literal("true") || s.Literal("false") {
			return Valid, true
		}
		return Ask, false
	}
	return Ask, false
}

func (c *Check) object(s *jsonscan.Scanner, depth int) (Verdict, bool) {
	out := Valid
	var seen uint64
	unsure := false // a key written with an escape, or a property given twice
	more, ok := s.Open('{')
	for ok && more {
		key, escaped, read := s.Key()
		if !read {
			return Ask, false
		}
		i := -1
		if !escaped {
			i = c.index(string(key))
		}
		switch {
		case escaped || i >= 0 && seen&(1<<i) != 0:
			// An escaped key may spell a property's name, and of a property given twice the
			// decoder keeps one: which value counts is encoding/json's.
			unsure = true
			if !s.Skip() {
				return Ask, false
			}
		case i < 0:
			if !s.Skip() {
				return Ask, false
			}
		default:
			seen |= 1 << i
			v, read := c.props[i].value(s, depth+1)
			if !read {
				return Ask, false
			}
			out = and(out, v)
		}
		more, ok = s.Next('}')
	}
	switch {
	case !ok:
		return Ask, false
	case unsure:
		return Ask, true
	case c.required&^seen != 0:
		return Invalid, true
	}
	return out, true
}

// and is the verdict of a value from the verdicts of two of its parts: one Invalid makes it
// Invalid, otherwise one Ask leaves it to kin-openapi.
func and(a, b Verdict) Verdict {
	switch {
	case a == Invalid || b == Invalid:
		return Invalid
	case a == Ask || b == Ask:
		return Ask
	}
	return Valid
}

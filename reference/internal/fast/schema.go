package fast

import (
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/jsonscan"
	"github.com/petstore/petstore/reference/internal/core"
)

// Schemas compiled at start into checks that read JSON text directly, for the two places
// where a JSON object is validated on every request: createPet's request body (NewPet) and
// each animal's encoding when it is stored (Pet). A compiled check decides only where its
// answer is certainly kin-openapi's (VisitJSON on what encoding/json with UseNumber decodes);
// it says undecided for everything else, and the caller then runs kin-openapi, whose answer
// (and message) is the one that counts. The equivalence is tested on every body of the case
// generator and fuzzed (schemacheck_test.go).
//
// What compiles: an object schema with properties and required, without additionalProperties
// or any other keyword, whose properties are scalars (compileScalar). What is decided:
//   - passes: one object, nothing after it but white space, no key written with an escape,
//     each known property's value decided to pass, every required property present;
//   - fails: the same object with a known property of another JSON type (null included),
//     an integer out of its bounds, a string outside its enumeration, or a required
//     property missing.
//
// Undecided: malformed JSON, nesting beyond maxDepth, integers written with a fraction, an
// exponent or more than 16 digits, enumerated strings written with escapes or invalid UTF-8.

// verdict is what a compiled check says of a value.
type verdict uint8

const (
	undecided verdict = iota // kin-openapi decides
	passes                   // kin-openapi certainly accepts the value
	fails                    // kin-openapi certainly refuses it
)

// maxDepth bounds the nesting of an unknown property's value that a check walks through
// (encoding/json's own limit is 10,000).
const maxDepth = 256

// maxProperties bounds the properties of a compiled object (one bit each).
const maxProperties = 64

// scalarKind is the JSON type of a compiled scalar schema.
type scalarKind uint8

const (
	kindInteger scalarKind = iota + 1
	kindString
)

// scalar is a compiled schema of one integer or string.
type scalar struct {
	kind   scalarKind
	lo, hi float64         // an integer's bounds, format included (kindInteger)
	enum   map[string]bool // the values a string may take; nil: any (kindString)
}

// compileScalar compiles an integer schema (format int32, int64 or none; minimum and
// maximum) or a string schema (with or without a string enumeration, nothing else); ok is
// false for any other schema. Options.SkipSettingDefaults is set, so a default plays no part.
func compileScalar(s *openapi3.Schema) (scalar, bool) {
	t := withoutDocs(*s)
	var c scalar
	switch {
	case t.Type == nil || len(*t.Type) != 1:
		return c, false
	case t.Type.Is(openapi3.TypeInteger) && (t.Format == "" || t.Format == "int32" || t.Format == "int64"):
		c.kind = kindInteger
		c.lo, c.hi = math.Inf(-1), math.Inf(1)
		switch t.Format {
		case "int32":
			c.lo, c.hi = math.MinInt32, math.MaxInt32
		case "int64":
			c.lo, c.hi = math.MinInt64, 1<<63 // kin-openapi takes 2^63 as MaxInt64 (its float64)
		}
		if t.Min != nil {
			c.lo = max(c.lo, *t.Min)
		}
		if t.Max != nil {
			c.hi = min(c.hi, *t.Max)
		}
		t.Format, t.Min, t.Max = "", nil, nil
	case t.Type.Is(openapi3.TypeString) && t.Format == "":
		c.kind = kindString
		if len(t.Enum) > 0 {
			c.enum = map[string]bool{}
			for _, e := range t.Enum {
				v, ok := e.(string)
				if !ok {
					return c, false
				}
				c.enum[v] = true
			}
		}
		t.Enum = nil
	default:
		return c, false
	}
	t.Type = nil
	return c, reflect.ValueOf(t).IsZero()
}

// inBounds reports whether an integer is within an integer schema's bounds, as kin-openapi
// compares a JSON number: as a float64. float64(n) rounds to nearest, as its ParseFloat of
// the number's text does.
func (sc scalar) inBounds(n int64) bool { return float64(n) >= sc.lo && float64(n) <= sc.hi }

// objectCheck is a compiled object schema.
type objectCheck struct {
	names    []string // the properties
	props    []scalar // their schemas, in the order of names
	required uint64   // a bit per property in names
}

// compileObject compiles an object schema (see the top of this file), or returns nil.
func compileObject(s *openapi3.Schema) *objectCheck {
	if s == nil {
		return nil
	}
	t := withoutDocs(*s)
	if t.Type == nil || len(*t.Type) != 1 || !t.Type.Is(openapi3.TypeObject) || len(t.Properties) > maxProperties ||
		t.AdditionalProperties.Schema != nil || (t.AdditionalProperties.Has != nil && !*t.AdditionalProperties.Has) {
		return nil
	}
	c := &objectCheck{}
	for name, ref := range t.Properties {
		// A key with invalid UTF-8 decodes to one with U+FFFD: it cannot match such a name.
		if ref == nil || ref.Value == nil || !utf8.ValidString(name) || strings.ContainsRune(name, utf8.RuneError) {
			return nil
		}
		sc, ok := compileScalar(ref.Value)
		if !ok {
			return nil
		}
		c.names, c.props = append(c.names, name), append(c.props, sc)
	}
	for _, name := range t.Required {
		i := c.index(name)
		if i < 0 {
			return nil // required but not described: left to kin-openapi
		}
		c.required |= 1 << i
	}
	t.Type, t.Properties, t.Required, t.AdditionalProperties = nil, nil, nil, openapi3.AdditionalProperties{}
	if !reflect.ValueOf(t).IsZero() {
		return nil
	}
	return c
}

// index returns the position of a property, or -1.
func (c *objectCheck) index(name string) int {
	for i, n := range c.names {
		if n == name {
			return i
		}
	}
	return -1
}

// check decides data, a whole request body or stored encoding.
func (c *objectCheck) check(data []byte) verdict {
	s := jsonscan.New(data, maxDepth)
	more, ok := s.Open('{')
	if !ok {
		return undecided // a top-level value of another type is rare: kin-openapi says
	}
	var last [maxProperties]verdict // of each property's last occurrence, as a map keeps it
	var present uint64
	for ok && more {
		key, escaped, read := s.Key()
		if !read || escaped {
			return undecided // an escaped key may spell a property's name
		}
		if i := c.index(string(key)); i < 0 {
			if !s.Skip() {
				return undecided
			}
		} else {
			v, read := c.props[i].value(s)
			if !read {
				return undecided
			}
			last[i], present = v, present|1<<i
		}
		more, ok = s.Next('}')
	}
	if !ok || !s.Done() {
		return undecided // encoding/json's Decoder stops after the first value; let it
	}
	return c.decide(&last, present)
}

// decide is the object's verdict from the verdicts of the properties present (a bit each
// in present): a required one missing or a property failing fails it; otherwise any
// property undecided leaves it undecided.
func (c *objectCheck) decide(last *[maxProperties]verdict, present uint64) verdict {
	if c.required&^present != 0 {
		return fails
	}
	out := passes
	for i := range c.props {
		if present&(1<<i) == 0 {
			continue
		}
		switch last[i] {
		case fails:
			return fails
		case undecided:
			out = undecided
		}
	}
	return out
}

// value reads one value at s and decides it against the scalar schema; ok is false when the
// value is not well-formed JSON (or nests too deep).
func (sc scalar) value(s *jsonscan.Scanner) (verdict, bool) {
	switch b := s.Peek(); {
	case b == '"' && sc.kind == kindString:
		raw, escaped, ok := s.String()
		switch {
		case !ok:
			return undecided, false
		case sc.enum == nil:
			return passes, true
		case escaped || !utf8.Valid(raw):
			return undecided, true // its decoded value is not raw
		case sc.enum[string(raw)]:
			return passes, true
		}
		return fails, true
	case (b == '-' || b >= '0' && b <= '9') && sc.kind == kindInteger:
		raw, _, ok := s.Number()
		if !ok {
			return undecided, false
		}
		n, ok := core.CanonicalInt(raw)
		switch {
		case !ok:
			return undecided, true // a fraction, an exponent, -0 or many digits
		case sc.inBounds(n):
			return passes, true
		}
		return fails, true
	}
	// Another JSON type than the schema's (null too: nothing compiled is nullable).
	return fails, s.Skip()
}

// withoutDocs clears the fields that do not take part in validating a response or a
// parameter value (a default is never applied: Options.SkipSettingDefaults).
func withoutDocs(s openapi3.Schema) openapi3.Schema {
	s.Extensions, s.Origin, s.Title, s.Description, s.Comment = nil, nil, "", "", ""
	s.Example, s.Examples, s.ExternalDocs, s.Deprecated, s.Default = nil, nil, nil, false, nil
	return s
}

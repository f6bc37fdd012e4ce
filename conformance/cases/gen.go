package cases

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/anatomy"
	"github.com/petstore/petstore/spec"
)

// Families of cases; a rule of the catalogue runs one family of one operation.
const (
	FamilyFields  = "fields"  // each property of the JSON body
	FamilyBody    = "body"    // the body as a whole
	FamilyHeaders = "headers" // Content-Type and Accept
	FamilyAuth    = "auth"    // the key, alone and with a bad request
	FamilyQuery   = "query"   // each query parameter, alone and combined
	FamilyPath    = "path"    // each path parameter
	// FamilyAnatomy (gen_anatomy.go): every other part of the request a stack interprets.
)

// Families lists them in report order.
var Families = []string{FamilyFields, FamilyBody, FamilyHeaders, FamilyQuery, FamilyPath, FamilyAuth}

// Base is what the valid requests need from the target.
type Base struct {
	// Reference is the JSON value sent for an integer property that refers to a record the
	// document does not show (categoryId): one the service is known to accept.
	Reference string
	// KnownID is the id of an animal the service holds, for path parameters ("" if none).
	KnownID string
	// Unknown are ids the service was not seen to hold.
	Unknown []string
	// Name returns a fresh name for a created animal (with the harness's prefix).
	Name func() string
	// Taken is the name of an animal the store holds ("" if none).
	Taken string
}

// Generator derives the mutations of every operation from the spec.
type Generator struct {
	base Base
	// seed and strength draw the combinations of a rejected key with the other variants
	// (authCombinations).
	seed     uint64
	strength int
	depth    Depth
}

// Depth is how much of the request space a run sends beyond every variant alone.
type Depth int

// Depths.
const (
	// DepthDefault sends every variant alone, every default value of the request's anatomy
	// with the key and without it, and the combinations of every other variant with the two
	// ways a request lacks a valid key that reach different code (no Authorization field; a
	// field holding a wrong key).
	DepthDefault Depth = iota
	// DepthDeep adds the anatomy's deep values and combines every rejected way of presenting
	// the key (the scheme alone, another scheme, junk after the key, quotes, two fields, the
	// key elsewhere...) with every other variant.
	DepthDeep
)

// Deep sets the generator's depth.
func (g *Generator) Deep(d Depth) *Generator {
	g.depth = d
	return g
}

// DefaultStrength is the strength of the combinations of a rejected key with the other
// variants in a default run: every pair. --fuzz raises it to FuzzStrength.
const (
	DefaultStrength = 2
	FuzzStrength    = 3
)

// New returns a generator for base.
func New(base Base) *Generator { return &Generator{base: base, strength: DefaultStrength} }

// Combinations sets the seed and the strength of the combinations the auth family sends.
func (g *Generator) Combinations(seed uint64, strength int) *Generator {
	g.seed, g.strength = seed, max(strength, 1)
	return g
}

// Valid is op's valid request: path parameters from Base, no query, the key, and a JSON
// body with every property of the schema set (a fresh name, the reference, the last value
// of an enumeration).
func (g *Generator) Valid(op spec.Operation) Request {
	r := Request{Method: op.Method, Path: op.Path, Auth: AuthKey}
	if !op.Secured {
		r.Auth = AuthNone
	}
	for _, p := range params(op, openapi3.ParameterInPath) {
		r.Path = strings.ReplaceAll(r.Path, "{"+p.Name+"}", g.knownID(op))
	}
	if mt, s := requestBody(op); s != nil {
		r.Header = append(r.Header, Header{Name: "Content-Type", Value: mt})
		r.Body = &Body{}
		for _, name := range properties(s) {
			if v, ok := g.validValue(name, s.Properties[name].Value); ok {
				r.Body.Fields = append(r.Body.Fields, Field{Name: name, JSON: v, Want: []string{v}})
			}
		}
	}
	return r
}

func (g *Generator) validValue(name string, s *openapi3.Schema) (string, bool) {
	switch {
	case len(s.Enum) > 0:
		return jsonOf(s.Enum[len(s.Enum)-1]), true
	case s.Type.Is(openapi3.TypeString):
		return jsonOf(g.base.Name()), true
	case s.Type.Is(openapi3.TypeInteger) && isReference(name) && g.base.Reference != "":
		return g.base.Reference, true
	case s.Type.Is(openapi3.TypeInteger):
		if s.Example != nil {
			return jsonOf(s.Example), true
		}
		return "1", true
	}
	return "", false
}

// isReference says whether an integer property names another record (categoryId): the
// document shows no such records, so a service may refuse an id it does not know.
func isReference(name string) bool {
	return strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID")
}

// Mutations returns op's mutations of one family.
func (g *Generator) Mutations(op spec.Operation, family string) []Mutation {
	switch family {
	case FamilyFields:
		if s := bodySchema(op); s != nil {
			return g.fieldMutations(s)
		}
	case FamilyBody:
		if s := bodySchema(op); s != nil {
			return g.bodyMutations(s)
		}
	case FamilyHeaders:
		return headerMutations(op)
	case FamilyAnatomy:
		var out []Mutation
		for _, p := range anatomy.Parts() {
			out = append(out, g.anatomyMutations(op, p)...)
		}
		return out
	case FamilyAuth:
		if op.Secured {
			return authMutations(g.depth >= DepthDeep || g.strength >= FuzzStrength)
		}
	case FamilyQuery:
		var out []Mutation
		for _, p := range params(op, openapi3.ParameterInQuery) {
			out = append(out, queryMutations(p)...)
		}
		if len(out) > 0 {
			out = append(out, mut("query.unknown", "unknown-param", "an unknown query parameter conformance=1", Open, 0,
				"4.1 (the parameters); the document does not say whether others are refused",
				func(r *Request) { r.Query = append(r.Query, Param{Name: "conformance", Value: "1"}) }))
		}
		return out
	case FamilyPath:
		var out []Mutation
		for _, p := range params(op, openapi3.ParameterInPath) {
			out = append(out, g.pathMutations(op, p)...)
		}
		return out
	}
	return nil
}

// Cases returns the enumerated cases of one family of op: every mutation alone, and for the
// auth family every rejected key with a request that is bad in another way too.
func (g *Generator) Cases(op spec.Operation, family string) []Case {
	var out []Case
	ms := g.Mutations(op, family)
	for _, m := range ms {
		out = append(out, Combine(op.ID, g.Valid(op), m))
	}
	if family == FamilyAuth {
		out = append(out, g.authCombinations(op, ms)...)
	}
	if family == FamilyAnatomy {
		return g.anatomyCases(op)
	}
	if family == FamilyQuery {
		// Each valid filter value with a limit the document leaves open, and with limit 1:
		// the filter must hold whatever the limit.
		var filters, limits []Mutation
		for _, m := range ms {
			switch {
			case strings.HasPrefix(m.Name, "status-") && m.Verdict == Accept && m.Name != "status-absent":
				filters = append(filters, m)
			case m.Name == "limit-below-min" || m.Name == "limit-min":
				limits = append(limits, m)
			}
		}
		for _, f := range filters {
			for _, l := range limits {
				out = append(out, Combine(op.ID, g.Valid(op), f, l))
			}
		}
	}
	return out
}

func mut(part, name, words string, v Verdict, status int, section string, apply func(*Request)) Mutation {
	return Mutation{Part: part, Name: name, Words: words, Verdict: v, Status: status, Section: section, apply: apply}
}

// setField replaces name's value (adding it when absent) with raw JSON and what a service
// may store for it.
func setField(name, raw string, want []string) func(*Request) {
	return func(r *Request) {
		for i, f := range r.Body.Fields {
			if f.Name == name {
				r.Body.Fields[i].JSON, r.Body.Fields[i].Want = raw, want
				return
			}
		}
		r.Body.Fields = append(r.Body.Fields, Field{Name: name, JSON: raw, Want: want})
	}
}

func dropField(name string) func(*Request) {
	return func(r *Request) {
		r.Body.Fields = deleteFunc(r.Body.Fields, func(f Field) bool { return f.Name == name })
	}
}

func deleteFunc(fs []Field, del func(Field) bool) []Field {
	out := fs[:0:0]
	for _, f := range fs {
		if !del(f) {
			out = append(out, f)
		}
	}
	return out
}

// Sections of the interface document the body verdicts come from.
const (
	secRequired = "4.2 (request body: %s is required); 7"
	secType     = "2 (NewPet: %s is %s); 4.2; 7"
	secOpenName = "2 (length or character limits on %s: not shown)"
	secOpenRef  = "2 (%s is an int64; Category records: not shown, so an unknown one may be refused)"
	secUnknown  = "2 (NewPet's fields); whether other fields are refused: not shown"
	secBody     = "1 (JSON bodies); 4.2 (request body required); 7"
	secMedia    = "1 (media type application/json); the answer to another: not shown"
	secAuth     = "5.2; 5.3"
	secAuthOpen = "5.2; how a server reads an Authorization field written otherwise: not shown"
)

// Wrong JSON types, by the type they are not.
var otherTypes = []struct{ typ, raw, words string }{
	{openapi3.TypeString, `"x"`, "a string"},
	{openapi3.TypeInteger, `42`, "a number"},
	{openapi3.TypeBoolean, `true`, "a boolean"},
	{openapi3.TypeArray, `[]`, "an array"},
	{openapi3.TypeObject, `{}`, "an object"},
}

// pctEncode percent-encodes every byte of s.
func pctEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

func params(op spec.Operation, in string) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	for _, p := range op.Op.Parameters {
		if p.Value != nil && p.Value.In == in && p.Value.Schema != nil && p.Value.Schema.Value != nil {
			out = append(out, p.Value)
		}
	}
	return out
}

// bodySchema is the schema of op's JSON request body, nil when op takes none.
func bodySchema(op spec.Operation) *openapi3.Schema {
	_, s := requestBody(op)
	return s
}

// requestBody is op's JSON request body: its media type, application/json or else the first
// other JSON one the spec lists (application/merge-patch+json for a PATCH), and its schema;
// "" and nil when op takes none.
func requestBody(op spec.Operation) (string, *openapi3.Schema) {
	rb := op.Op.RequestBody
	if rb == nil || rb.Value == nil {
		return "", nil
	}
	types := []string{"application/json"}
	for _, mt := range slices.Sorted(maps.Keys(rb.Value.Content)) {
		if mt != types[0] && spec.IsJSONMediaType(strings.ToLower(mt)) {
			types = append(types, mt)
		}
	}
	for _, mt := range types {
		if m := rb.Value.Content[mt]; m != nil && m.Schema != nil && m.Schema.Value != nil {
			return mt, m.Schema.Value
		}
	}
	return "", nil
}

// properties and required read the NewPet schema (spec.PropertyNames, spec.IsRequired).
var properties, required = spec.PropertyNames, spec.IsRequired

// describe says what a schema allows, in words: "a string", "an integer (int64)", "one of
// available, pending, sold".
func describe(s *openapi3.Schema) string {
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = fmt.Sprint(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	t := "a value"
	if s.Type != nil && len(s.Type.Slice()) > 0 {
		t = s.Type.Slice()[0]
		if strings.ContainsAny(t[:1], "aeiou") {
			t = "an " + t
		} else {
			t = "a " + t
		}
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	return t
}

// otherCase is name with its first letter's case flipped (name → Name).
func otherCase(name string) string {
	if name == "" {
		return name
	}
	f := name[:1]
	if u := strings.ToUpper(f); u != f {
		return u + name[1:]
	}
	return strings.ToLower(f) + name[1:]
}

// otherValue is a valid value of s unlike the one Valid sends.
func otherValue(s *openapi3.Schema) string {
	switch {
	case len(s.Enum) > 0:
		return jsonOf(s.Enum[0])
	case s.Type.Is(openapi3.TypeString):
		return `"conformance-other"`
	}
	return "2"
}

func padTo(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat("x", n-len(s))
}

func jsonOf(v any) string {
	switch n := v.(type) {
	case float64:
		if n == float64(int64(n)) {
			return strconv.FormatInt(int64(n), 10)
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

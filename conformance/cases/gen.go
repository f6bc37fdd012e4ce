package cases

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/report"
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
}

// Generator derives the mutations of every operation from the spec.
type Generator struct {
	base Base
}

// New returns a generator for base.
func New(base Base) *Generator { return &Generator{base: base} }

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
	if s := bodySchema(op); s != nil {
		r.Header = append(r.Header, Header{"Content-Type", "application/json"})
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
	case FamilyAuth:
		if op.Secured {
			return authMutations()
		}
	case FamilyQuery:
		var out []Mutation
		for _, p := range params(op, openapi3.ParameterInQuery) {
			out = append(out, queryMutations(p)...)
		}
		if len(out) > 0 {
			out = append(out, mut("query.unknown", "unknown-param", "an unknown query parameter conformance=1", Open, 0,
				"4.1 (the parameters); the document does not say whether others are refused",
				func(r *Request) { r.Query = append(r.Query, Param{"conformance", "1"}) }))
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
		var bad []Mutation
		for _, f := range []string{FamilyFields, FamilyBody, FamilyHeaders, FamilyQuery, FamilyPath} {
			for _, m := range g.Mutations(op, f) {
				if m.Verdict == Reject || m.Part == "header.Content-Type" || strings.HasPrefix(m.Part, "query.") {
					bad = append(bad, m)
					break // the first of each family: enough to show the order
				}
			}
		}
		for _, a := range ms {
			if a.Verdict != Reject || (a.Name != "no-key" && a.Name != "other-scheme") {
				continue
			}
			for _, b := range bad {
				out = append(out, Combine(op.ID, g.Valid(op), a, b))
			}
		}
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

func (g *Generator) fieldMutations(s *openapi3.Schema) []Mutation {
	var out []Mutation
	for _, name := range properties(s) {
		p := s.Properties[name].Value
		part := "body." + name
		typeWords := describe(p)
		if required(s, name) {
			out = append(out, mut(part, name+"-absent", "a body without the required "+name, Reject, 400,
				fmt.Sprintf(secRequired, name), dropField(name)))
			if other := otherCase(name); other != name {
				// A case-insensitive field matcher takes the other spelling for the field.
				out = append(out, mut(part, name+"-other-case", fmt.Sprintf("%q instead of the required %s", other, name), Reject, 400,
					fmt.Sprintf(secRequired, name), func(r *Request) {
						for i, f := range r.Body.Fields {
							if f.Name == name {
								r.Body.Fields[i].Name, r.Body.Fields[i].Want = other, nil
							}
						}
					}))
				out = append(out, mut(part, name+"-and-other-case", fmt.Sprintf("%s and %q with another value", name, other), Open, 0,
					secUnknown, func(r *Request) {
						r.Body.Fields = append(r.Body.Fields, Field{Name: other, JSON: otherValue(p)})
					}))
			}
		} else {
			out = append(out, mut(part, name+"-absent", "a body without the optional "+name, Accept, 0,
				"2 (NewPet: "+name+" is optional; the default is not shown)", dropField(name)))
		}
		nullVerdict, nullSection := Reject, fmt.Sprintf(secType, name, typeWords+", not nullable")
		if p.Nullable {
			nullVerdict, nullSection = Open, "2"
		}
		out = append(out, mut(part, name+"-null", name+" = null", nullVerdict, 400, nullSection, setField(name, "null", nil)))
		for _, t := range otherTypes {
			if p.Type.Is(t.typ) || (t.typ == openapi3.TypeInteger && p.Type.Is(openapi3.TypeNumber)) {
				continue
			}
			out = append(out, mut(part, name+"-"+t.typ, fmt.Sprintf("%s = %s, %s", name, t.raw, t.words), Reject, 400,
				fmt.Sprintf(secType, name, typeWords), setField(name, t.raw, nil)))
		}
		switch {
		case len(p.Enum) > 0:
			out = append(out, g.enumMutations(part, name, p)...)
		case p.Type.Is(openapi3.TypeString):
			out = append(out, g.stringMutations(part, name, p)...)
		case p.Type.Is(openapi3.TypeInteger):
			out = append(out, integerMutations(part, name, p)...)
		}
	}
	return append(out, mut("body.conformanceExtra", "unknown-property", "an unknown property conformanceExtra = 1", Open, 0, secUnknown,
		func(r *Request) { r.Body.Fields = append(r.Body.Fields, Field{Name: "conformanceExtra", JSON: "1"}) }))
}

func (g *Generator) enumMutations(part, name string, p *openapi3.Schema) []Mutation {
	var out []Mutation
	section := fmt.Sprintf(secType, name, describe(p))
	for _, v := range p.Enum {
		raw := jsonOf(v)
		out = append(out, mut(part, name+"-"+fmt.Sprint(v), fmt.Sprintf("%s = %s", name, raw), Accept, 0, section, setField(name, raw, []string{raw})))
		if s, ok := v.(string); ok && strings.ToUpper(s) != s {
			up := jsonOf(strings.ToUpper(s))
			out = append(out, mut(part, name+"-"+s+"-upper", fmt.Sprintf("%s = %s, an enumeration value in other letter case", name, up), Reject, 400, section,
				setField(name, up, nil)))
		}
	}
	first := fmt.Sprint(p.Enum[0])
	for _, bad := range []struct{ slug, raw, words string }{
		{"empty", `""`, "the empty string"},
		{"unknown", `"conformance-unknown"`, "a value outside the enumeration"},
		{"padded", jsonOf(" " + first), "an enumeration value with a leading space"},
	} {
		out = append(out, mut(part, name+"-"+bad.slug, fmt.Sprintf("%s = %s, %s", name, bad.raw, bad.words), Reject, 400, section, setField(name, bad.raw, nil)))
	}
	return out
}

func (g *Generator) stringMutations(part, name string, p *openapi3.Schema) []Mutation {
	open := func(slug, words string, value func() string) Mutation {
		m := mut(part, name+"-"+slug, name+" "+words, Open, 0, fmt.Sprintf(secOpenName, name), nil)
		m.apply = func(r *Request) {
			raw := jsonOf(value())
			setField(name, raw, []string{raw})(r)
		}
		return m
	}
	prefixed := func(s string) func() string { return func() string { return g.base.Name() + s } }
	out := []Mutation{
		open("empty", "empty", func() string { return "" }),
		open("blank", "of three spaces", func() string { return "   " }),
		open("long-1k", "of 1,000 characters", func() string { return padTo(g.base.Name(), 1000) }),
		open("long-10k", "of 10,000 characters", func() string { return padTo(g.base.Name(), 10_000) }),
		open("combining", "with a combining mark (e + U+0301)", prefixed("-e\u0301")),
		open("astral", "with characters beyond the BMP (U+1F415)", prefixed("-\U0001F415")),
		open("rtl", "in a right-to-left script (Hebrew)", prefixed("-\u05e9\u05dc\u05d5\u05dd")),
		open("control", "with control characters (NUL, BEL, ESC, tab, newline)", prefixed("-\x00\x07\x1b\t\n")),
		open("quotes", `with a quote, a backslash and a slash`, prefixed(`-"\/`)),
	}
	// The same text written with \u escapes: a service must store what the escapes mean.
	escaped := mut(part, name+"-escaped", name+` written with \u escapes (\u00e9)`, Open, 0, fmt.Sprintf(secOpenName, name), nil)
	escaped.apply = func(r *Request) {
		n := g.base.Name()
		setField(name, `"`+n+`-\u00e9"`, []string{jsonOf(n + "-é")})(r)
	}
	if p.MinLength > 0 {
		out[0].Verdict, out[0].Status, out[0].Section = Reject, 400, fmt.Sprintf(secType, name, describe(p))
	}
	return append(out, escaped)
}

// Integer values by what they are, as decimal text.
func integerMutations(part, name string, p *openapi3.Schema) []Mutation {
	lo, hi := formatRange(p.Format)
	valid := Accept
	section := fmt.Sprintf(secType, name, describe(p))
	if isReference(name) {
		valid, section = Open, fmt.Sprintf(secOpenRef, name)
	}
	var out []Mutation
	add := func(slug, raw, words string, v Verdict, sec string, want []string) {
		out = append(out, mut(part, name+"-"+slug, fmt.Sprintf("%s = %s, %s", name, raw, words), v, 400, sec, setField(name, raw, want)))
	}
	pow := func(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }
	add1 := func(x *big.Int, d int64) *big.Int { return new(big.Int).Add(x, big.NewInt(d)) }
	neg := func(x *big.Int) *big.Int { return new(big.Int).Neg(x) }
	for _, v := range []struct {
		slug  string
		n     *big.Int
		words string
	}{
		{"zero", big.NewInt(0), "zero"},
		{"minus-one", big.NewInt(-1), "negative"},
		{"2^31-1", add1(pow(31), -1), "the largest int32"},
		{"2^31", pow(31), "just beyond int32"},
		{"-2^31-1", add1(neg(pow(31)), -1), "just below int32"},
		{"2^53-1", add1(pow(53), -1), "the largest integer a float64 holds exactly"},
		{"2^53+1", add1(pow(53), 1), "a valid int64 beyond 2^53 (a float64 rounds it)"},
		{"-2^53-1", add1(neg(pow(53)), -1), "a valid int64 below -2^53"},
		{"2^63-1", add1(pow(63), -1), "the largest int64"},
		{"-2^63", neg(pow(63)), "the smallest int64"},
		{"2^63", pow(63), "just beyond int64"},
		{"-2^63-1", add1(neg(pow(63)), -1), "just below int64"},
		{"2^64", pow(64), "beyond uint64"},
	} {
		raw := v.n.String()
		if (lo != nil && v.n.Cmp(lo) < 0) || (hi != nil && v.n.Cmp(hi) > 0) || outside(p, v.n) {
			add(v.slug, raw, v.words+", outside "+describe(p), Reject, section, nil)
			continue
		}
		add(v.slug, raw, v.words, valid, section, []string{raw})
		if valid == Open {
			out[len(out)-1].rangeProbe = true
		}
	}
	openNum := fmt.Sprintf("%s; whether an integer written as %%s is taken: not shown (JSON Schema draft 4, which OpenAPI 3.0 uses, leaves it open)", section)
	add("1.0", "1.0", "an integer written with a fraction part", Open, fmt.Sprintf(openNum, "1.0"), []string{"1"})
	add("1e3", "1e3", "an integer written with an exponent", Open, fmt.Sprintf(openNum, "1e3"), []string{"1000"})
	add("1e300", "1e300", "an integer written with an exponent, far beyond int64", Reject, fmt.Sprintf(secType, name, describe(p)), nil)
	add("1.5", "1.5", "a fraction", Reject, section, nil)
	add("numeric-string", `"1"`, "a string holding a number", Reject, section, nil)
	return out
}

// formatRange is the range of an integer format, nil when it has none.
func formatRange(format string) (lo, hi *big.Int) {
	bits := map[string]uint{"int32": 31, "int64": 63}[format]
	if bits == 0 {
		return nil, nil
	}
	hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1))
	lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), bits))
	return lo, hi
}

func outside(p *openapi3.Schema, n *big.Int) bool {
	f, _ := new(big.Float).SetInt(n).Float64()
	return (p.Min != nil && f < *p.Min) || (p.Max != nil && f > *p.Max)
}

func (g *Generator) bodyMutations(s *openapi3.Schema) []Mutation {
	if len(properties(s)) == 0 {
		// A free-form object or an array (a grown spec's PATCH, say): the variants below
		// edit an object's properties, which such a body has none of.
		return nil
	}
	valid := func(r *Request) []byte { return r.Body.Bytes() }
	raw := func(slug, words string, v Verdict, section string, build func(r *Request) []byte, keepWants bool) Mutation {
		return mut("body", "body-"+slug, words, v, 400, section, func(r *Request) {
			b := build(r)
			if !keepWants {
				r.Body.Fields = nil
			}
			r.Body.Raw = b
		})
	}
	rej := func(slug, words string, build func(r *Request) []byte) Mutation {
		return raw(slug, words, Reject, secBody, build, false)
	}
	lit := func(s string) func(*Request) []byte { return func(*Request) []byte { return []byte(s) } }
	first := properties(s)[0]
	text := first // a string property, for the variants that work inside a string
	for _, n := range properties(s) {
		if p := s.Properties[n].Value; p.Type.Is(openapi3.TypeString) && len(p.Enum) == 0 {
			text = n
			break
		}
	}
	out := []Mutation{
		mut("body", "body-none", "no body (Content-Length: 0)", Reject, 400, secBody, func(r *Request) { r.Body = &Body{Raw: []byte{}} }),
		rej("null", "the body null", lit("null")),
		rej("array", "an array holding a valid object", func(r *Request) []byte { return append(append([]byte("["), valid(r)...), ']') }),
		rej("number", "the body 42", lit("42")),
		rej("string", `the body "x"`, lit(`"x"`)),
		rej("empty-object", "an empty object", lit("{}")),
		rej("malformed", "malformed JSON (cut after the first name)", lit(`{"`+text+`": `)),
		rej("single-quotes", "single-quoted names (not JSON)", func(r *Request) []byte { return []byte(strings.ReplaceAll(string(valid(r)), `"`, `'`)) }),
		rej("trailing-comma", "a trailing comma in the object", func(r *Request) []byte { b := valid(r); return append(b[:len(b)-1], ",}"...) }),
		rej("trailing-data", "a valid object followed by other data (x)", func(r *Request) []byte { return append(valid(r), " x"...) }),
		rej("two-values", "two valid objects one after the other", func(r *Request) []byte { return append(valid(r), valid(r)...) }),
		invalidUTF8(text, valid),
		raw("trailing-newline", "a valid object followed by a newline (JSON allows whitespace)", Accept, "1 (JSON bodies); RFC 8259 2",
			func(r *Request) []byte { return append(valid(r), "\r\n"...) }, true),
		raw("bom", "a valid object after a UTF-8 byte order mark", Open, "1; RFC 8259 8.1 (a parser MAY ignore a BOM)",
			func(r *Request) []byte { return append([]byte("\xef\xbb\xbf"), valid(r)...) }, true),
		raw("lone-surrogate", text+` holding a lone surrogate escape \ud800`, Open, "1; RFC 8259 8.2 (the behaviour of such a string is unpredictable)",
			func(r *Request) []byte {
				return []byte(strings.Replace(string(valid(r)), `"`+text+`":"`, `"`+text+`":"\ud800`, 1))
			}, false),
		raw("deep-nesting", "an unknown property nested 20,000 arrays deep", Open, "1; RFC 8259 9 (a parser may limit nesting); "+secUnknown,
			func(r *Request) []byte {
				b := valid(r)
				return append(append(b[:len(b)-1], `,"conformanceDeep":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)...), '}')
			}, true),
		raw("oversized", "a valid object padded by an unknown property to 1 MiB", Open, "9 (request size limits: not shown); "+secUnknown,
			func(r *Request) []byte {
				b := valid(r)
				return append(append(b[:len(b)-1], `,"conformancePad":"`+strings.Repeat("x", 1<<20)+`"`...), '}')
			}, true),
	}
	// A field sent twice: a service may keep either value (RFC 8259 4: names SHOULD be
	// unique), never something else.
	dup := mut("body", "body-duplicate-"+text, "the property "+text+" twice, with two values", Open, 0,
		"1; RFC 8259 4 (the behaviour with duplicate names is unpredictable)", func(r *Request) {
			for _, f := range r.Body.Fields {
				if f.Name == text && f.Want != nil {
					other := jsonOf(g.base.Name())
					r.Body.Fields = append(r.Body.Fields, Field{Name: text, JSON: other, Want: []string{other}})
					return
				}
			}
		})
	return append(out, dup)
}

// invalidUTF8 is a string property holding a byte that is not UTF-8. READINGS.md puts it
// at SHOULD: RFC 8259 8.1 puts the UTF-8 MUST on the sender and 9 lets a parser accept
// forms that are not JSON, and the document says nothing of encodings; so a service that
// takes it (storing U+FFFD, say) earns a warning, and a failure only when strict.
func invalidUTF8(text string, valid func(*Request) []byte) Mutation {
	m := mut("body", "body-invalid-utf8", text+" holding a byte that is not UTF-8 (RFC 8259 8.1)", Reject, 400,
		"1 (JSON bodies); RFC 8259 8.1 (the sender MUST use UTF-8), 9 (a parser MAY accept other forms): SHOULD refuse",
		func(r *Request) {
			r.Body.Raw = []byte(strings.Replace(string(valid(r)), `"`+text+`":"`, `"`+text+`":"`+"\xff", 1))
			r.Body.Fields = nil
		})
	m.Level = report.Should
	return m
}

func headerMutations(op spec.Operation) []Mutation {
	var out []Mutation
	setHeader := func(name, value string) func(*Request) {
		return func(r *Request) {
			for i, h := range r.Header {
				if h.Name == name {
					r.Header[i].Value = value
					return
				}
			}
			r.Header = append(r.Header, Header{name, value})
		}
	}
	if bodySchema(op) != nil {
		ct := "header.Content-Type"
		out = append(out, mut(ct, "content-type-absent", "no Content-Type header", Open, 0, secMedia, func(r *Request) {
			r.Header = deleteHeader(r.Header, "Content-Type")
		}))
		out = append(out, mut(ct, "content-type-upper", "Content-Type: Application/JSON", Accept, 0,
			"1 (media type application/json); RFC 9110 8.3.1 (type and subtype are case-insensitive)", setHeader("Content-Type", "Application/JSON")))
		for _, v := range []struct{ slug, value string }{
			{"charset", "application/json; charset=utf-8"},
			{"param", "application/json; conformance=1"},
			{"text-plain", "text/plain"},
			{"form", "application/x-www-form-urlencoded"},
			{"xml", "application/xml"},
		} {
			out = append(out, mut(ct, "content-type-"+v.slug, "Content-Type: "+v.value, Open, 0, secMedia, setHeader("Content-Type", v.value)))
		}
	}
	for _, v := range []struct {
		slug, value string
		verdict     Verdict
	}{
		{"json", "application/json", Accept},
		{"any", "*/*", Accept},
		{"json-wildcard", "application/*", Accept},
		{"html", "text/html", Open},
	} {
		section := "1 (JSON bodies); RFC 9110 12.5.1"
		if v.verdict == Open {
			section = "1; the answer to a client that does not accept JSON: not shown (RFC 9110 allows 406 or ignoring Accept)"
		}
		out = append(out, mut("header.Accept", "accept-"+v.slug, "Accept: "+v.value, v.verdict, 0, section, setHeader("Accept", v.value)))
	}
	return out
}

func deleteHeader(hs []Header, name string) []Header {
	out := hs[:0:0]
	for _, h := range hs {
		if !strings.EqualFold(h.Name, name) {
			out = append(out, h)
		}
	}
	return out
}

func authMutations() []Mutation {
	set := func(a Auth) func(*Request) { return func(r *Request) { r.Auth = a } }
	return []Mutation{
		mut("auth", "no-key", "no Authorization header", Reject, 401, "5.1; 5.3", set(AuthNone)),
		mut("auth", "empty", "an empty Authorization header", Reject, 401, secAuth, set(AuthEmpty)),
		mut("auth", "scheme-only", "Authorization: Bearer, without a token", Reject, 401, secAuth, set(AuthSchemeOnly)),
		mut("auth", "other-scheme", "the key under the scheme Token", Reject, 401, secAuth, set(AuthOtherScheme)),
		mut("auth", "junk-after", "Bearer <key> followed by a space and more text", Reject, 401, secAuth+"; RFC 6750 2.1 (one token)", set(AuthJunkAfter)),
		mut("auth", "query", "no header, the key as ?access_token= in the query", Reject, 401, "5.2 (the key is passed in the Authorization header); 5.3", set(AuthQuery)),
		mut("auth", "odd-token", "Bearer conformance-wrong!key, a wrong key with a character outside the token syntax", Reject, 401, secAuth+" (an invalid key, whatever its characters)", set(AuthOddToken)),
		mut("auth", "quoted-key", "Bearer \"<key>\", the key in quotes", Reject, 401, secAuth+" (the quotes are part of the token, which is then not the key)", set(AuthQuotedKey)),
		mut("auth", "key-alone", "the key alone, without the Bearer scheme", Reject, 401, secAuth+" (the form is Bearer <API_KEY>)", set(AuthKeyAlone)),
		// Authorization is a singleton field (RFC 9110 11.6.2, 5.3): two of them are not the
		// form 5.2 fixes, whichever of them holds the key.
		mut("auth", "twice", "two Authorization fields, both Bearer <key>", Reject, 401, secAuth+" (one field of the form Bearer <API_KEY>); RFC 9110 5.3", set(AuthTwice)),
		mut("auth", "wrong-then-key", "two Authorization fields, a wrong key and then the key", Reject, 401, secAuth+" (one field of the form Bearer <API_KEY>); RFC 9110 5.3", set(AuthWrongThenKey)),
		// Refusing bearer in lower case is SHOULD (RFC 9110 11.1): auth/<op>-scheme-case
		// weighs it; among the cases it is open, so as not to count it twice.
		mut("auth", "lower-scheme", "bearer <key>, the scheme in lower case", Open, 0, secAuthOpen+" (RFC 9110 11.1: schemes are case-insensitive; auth/*-scheme-case weighs a refusal at SHOULD)", set(AuthLowerScheme)),
		// RFC 6750 2.1 and RFC 9110 11.4 allow one or more spaces after the scheme.
		mut("auth", "double-space", "Bearer and the key separated by two spaces", Open, 0, secAuthOpen+" (RFC 9110 11.4: 1*SP after the scheme)", set(AuthDoubleSpace)),
	}
}

func queryMutations(p *openapi3.Parameter) []Mutation {
	s := p.Schema.Value
	part := "query." + p.Name
	set := func(values ...string) func(*Request) {
		return func(r *Request) {
			for _, v := range values {
				r.Query = append(r.Query, Param{url.QueryEscape(p.Name), v})
			}
		}
	}
	var out []Mutation
	add := func(slug, words string, v Verdict, section string, values ...string) {
		out = append(out, mut(part, p.Name+"-"+slug, words, v, 0, section, set(values...)))
	}
	add("absent", "no "+p.Name, Accept, "4.1", []string{}...)
	switch {
	case s.Type.Is(openapi3.TypeInteger):
		var lo, hi, def int64 = 1, 100, 20
		if s.Min != nil {
			lo = int64(*s.Min)
		}
		if s.Max != nil {
			hi = int64(*s.Max)
		}
		if d, ok := s.Default.(float64); ok {
			def = int64(d)
		}
		bounds := fmt.Sprintf("4.1 (%s: minimum %d, maximum %d, default %d); 8", p.Name, lo, hi, def)
		open := fmt.Sprintf("7 (the response to an out-of-range %s: not shown); 8", p.Name)
		typeOpen := fmt.Sprintf("4.1 (%s is an integer); the response to one that is not: not shown (7)", p.Name)
		for _, v := range []struct {
			slug  string
			n     int64
			words string
		}{{"min", lo, "the minimum"}, {"min+1", lo + 1, "just above the minimum"}, {"default", def, "the default"}, {"max", hi, "the maximum"}} {
			add(v.slug, fmt.Sprintf("%s=%d, %s", p.Name, v.n, v.words), Accept, bounds, strconv.FormatInt(v.n, 10))
		}
		add("encoded", fmt.Sprintf("%s=%s, the maximum percent-encoded", p.Name, pctEncode(strconv.FormatInt(hi, 10))), Accept,
			bounds+"; RFC 3986 2.1", pctEncode(strconv.FormatInt(hi, 10)))
		for _, v := range []struct{ slug, value, words string }{
			{"below-min", strconv.FormatInt(lo-1, 10), "just below the minimum"},
			{"above-max", strconv.FormatInt(hi+1, 10), "just above the maximum"},
			{"negative", "-1", "negative"},
			{"2^31", "2147483648", "beyond int32"},
			{"2^63", "9223372036854775808", "beyond int64"},
			{"huge", "1" + strings.Repeat("0", 40), "a 41-digit number"},
		} {
			add(v.slug, fmt.Sprintf("%s=%s, %s", p.Name, v.value, v.words), Open, open, v.value)
		}
		for _, v := range []struct{ slug, value, words string }{
			{"word", "abc", "not a number"},
			{"fraction", "1.5", "a fraction"},
			{"exponent", "1e1", "an exponent"},
			{"empty", "", "empty"},
			{"space", "%205", "with a leading space"},
			{"plus", "%2B5", "with a plus sign"},
			{"leading-zero", "05", "with a leading zero"},
			{"hex", "0x10", "in hexadecimal"},
			{"suffix", "5abc", "a number followed by letters"},
		} {
			add(v.slug, fmt.Sprintf("%s=%s, %s", p.Name, v.value, v.words), Open, typeOpen, v.value)
		}
		add("repeated", fmt.Sprintf("%s twice (%d, then %d)", p.Name, lo, hi+1), Open, "4.1; the answer to a repeated parameter: not shown",
			strconv.FormatInt(lo, 10), strconv.FormatInt(hi+1, 10))
		// Parameter names are exact (RFC 3986 has no case folding): LIMIT is an unknown
		// parameter, so the default limit still holds.
		upper := strings.ToUpper(p.Name)
		out = append(out, mut(part, p.Name+"-name-upper", fmt.Sprintf("%s=%d, the parameter name in upper case (so no %s)", upper, hi, p.Name), Open, 0,
			fmt.Sprintf("4.1 rule 1 (without %s, at most %d); whether an unknown parameter is refused: not shown", p.Name, def),
			func(r *Request) { r.Query = append(r.Query, Param{upper, strconv.FormatInt(hi, 10)}) }))
	case len(s.Enum) > 0:
		filter := "4.1 rule 2 (only animals with that status)"
		open := fmt.Sprintf("7 (the response to an invalid %s filter value: not shown)", p.Name)
		for _, e := range s.Enum {
			v := fmt.Sprint(e)
			add(v, fmt.Sprintf("%s=%s", p.Name, v), Accept, filter, url.QueryEscape(v))
			if strings.ToUpper(v) != v {
				add(v+"-upper", fmt.Sprintf("%s=%s, in upper case", p.Name, strings.ToUpper(v)), Open, open, strings.ToUpper(v))
			}
		}
		last := fmt.Sprint(s.Enum[len(s.Enum)-1])
		add("encoded", fmt.Sprintf("%s=%s, percent-encoded", p.Name, pctEncode(last)), Accept, filter+"; RFC 3986 2.1", pctEncode(last))
		add("empty", p.Name+"= (empty)", Open, open, "")
		add("unknown", p.Name+"=conformance-unknown", Open, open, "conformance-unknown")
		add("repeated", fmt.Sprintf("%s twice (%s, then %s)", p.Name, s.Enum[0], last), Open,
			"4.1; the answer to a repeated parameter: not shown", url.QueryEscape(fmt.Sprint(s.Enum[0])), url.QueryEscape(last))
	}
	return out
}

func (g *Generator) pathMutations(op spec.Operation, p *openapi3.Parameter) []Mutation {
	part := "path." + p.Name
	set := func(v string) func(*Request) {
		return func(r *Request) { r.Path = strings.ReplaceAll(op.Path, "{"+p.Name+"}", v) }
	}
	var out []Mutation
	notFound := fmt.Sprintf("4.3 (404: the requested resource could not be found; %s is an int64)", p.Name)
	for i, id := range g.unknownIDs(op) {
		m := mut(part, fmt.Sprintf("%s-unknown-%d", p.Name, i+1), fmt.Sprintf("%s = %s, an int64 no listed animal has", p.Name, id), Reject, http.StatusNotFound, notFound, set(id))
		m.lookup = true
		out = append(out, m)
	}
	open := fmt.Sprintf("4.3 (%s is an int64); the answer to a path that holds no int64: not shown", p.Name)
	for _, v := range []struct{ slug, value, words string }{
		{"beyond-int64", "9223372036854775808", "beyond int64"},
		{"word", "abc", "not a number"},
		{"fraction", "1.5", "a fraction"},
		{"space", "%20", "a space"},
		{"minus", "-", "a lone minus sign"},
	} {
		out = append(out, mut(part, p.Name+"-"+v.slug, fmt.Sprintf("%s = %s, %s", p.Name, v.value, v.words), Open, 0, open, set(v.value)))
	}
	if id := g.knownID(op); id != "" {
		out = append(out,
			mut(part, p.Name+"-known", fmt.Sprintf("%s = %s, a listed animal", p.Name, id), Accept, 0, "4.3 (200: the requested animal)", set(id)),
			mut(part, p.Name+"-leading-zero", fmt.Sprintf("%s = 0%s, a listed animal's id with a leading zero", p.Name, id), Open, 0, open, set("0"+id)),
			mut(part, p.Name+"-encoded", fmt.Sprintf("%s = %s, a listed animal's id percent-encoded", p.Name, pctEncode(id)), Open, 0,
				open+"; RFC 3986 6.2.2.2 makes it the same path", set(pctEncode(id))),
		)
	}
	return out
}

// FillPath is path with every parameter ("{petId}") replaced by id.
func FillPath(path, id string) string {
	for strings.Contains(path, "{") {
		i, j := strings.Index(path, "{"), strings.Index(path, "}")
		path = path[:i] + id + path[j+1:]
	}
	return path
}

// knownID is the id of an animal that op's requests name: one the service holds for an
// operation that only reads, one the run creates for the case (OwnAnimal) for one that may
// change what it names.
func (g *Generator) knownID(op spec.Operation) string {
	if Unsafe(op.Method) {
		return OwnAnimal
	}
	return g.base.KnownID
}

// unknownIDs are the ids no listed animal has, for an operation that only reads. An
// operation that may change what it names gets none: that no animal has an id the run did
// not see is a guess, and a wrong guess would change data the run did not create.
func (g *Generator) unknownIDs(op spec.Operation) []string {
	if Unsafe(op.Method) {
		return nil
	}
	return g.base.Unknown
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

func bodySchema(op spec.Operation) *openapi3.Schema {
	rb := op.Op.RequestBody
	if rb == nil || rb.Value == nil {
		return nil
	}
	mt := rb.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	return mt.Schema.Value
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

// Routes are requests to what the spec does not define: a path under the base that is no
// operation's, a path with a trailing slash, and each method the spec gives a path none
// of. The document shows no such endpoints ("Other endpoints: not shown", 4), so any answer
// passes but a 5xx or a 4xx without an Error record (section 7: all error responses use
// it). Ids in them are ones the run never saw, so nothing real is touched.
func (g *Generator) Routes(ops []spec.Operation) []Case {
	section := "7 (all error responses use the Error record); 4 (other endpoints: not shown)"
	id := "0"
	if len(g.base.Unknown) > 0 {
		id = g.base.Unknown[0]
	}
	concrete := func(path, method string) string {
		id := id
		if Unsafe(method) {
			id = ImpossibleID
		}
		return FillPath(path, id)
	}
	route := func(name, words, method, path string, auth Auth) Case {
		c := Combine("", Request{Method: method, Path: path, Auth: auth})
		c.Name, c.Words, c.Verdict, c.Section = name, words, Open, section
		return c
	}
	out := []Case{
		route("unknown-path", "GET /conformance-unknown, a path no operation has", http.MethodGet, "/conformance-unknown", AuthKey),
		route("unknown-path-no-key", "GET /conformance-unknown without a key", http.MethodGet, "/conformance-unknown", AuthNone),
	}
	methods := map[string][]string{}
	var paths []string
	for _, op := range ops {
		if _, ok := methods[op.Path]; !ok {
			paths = append(paths, op.Path)
		}
		methods[op.Path] = append(methods[op.Path], op.Method)
	}
	for _, p := range paths {
		path := concrete(p, http.MethodGet)
		out = append(out, route("trailing-slash "+p, "GET "+path+"/, a trailing slash", http.MethodGet, path+"/", AuthKey))
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if !slices.Contains(methods[p], m) {
				path := concrete(p, m)
				out = append(out, route(m+" "+p, m+" "+path+", a method the spec does not give this path", m, path, AuthKey))
			}
		}
	}
	return out
}

package cases

import (
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/report"
)

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
		// Values a normaliser changes: each must come back byte for byte (READINGS.md: a
		// name stored trimmed, case-changed or normalised is a MUST failure).
		open("upper", "in upper case", func() string { return strings.ToUpper(g.base.Name()) }),
		open("mixed-case", "in mixed case", prefixed("-MiXeD")),
		open("padded", "with a space before and after", func() string { return " " + g.base.Name() + " " }),
		open("inner-spaces", "with two spaces and a tab inside", prefixed("-a  b\tc")),
		open("nfc", "with a precomposed letter (U+00E9, NFC)", prefixed("-\u00e9")),
		open("nfd", "with the same letter decomposed (e + U+0301, NFD)", prefixed("-e\u0301")),
	}
	// The same text written with \u escapes: a service must store what the escapes mean.
	escaped := mut(part, name+"-escaped", name+` written with \u escapes (\u00e9)`, Open, 0, fmt.Sprintf(secOpenName, name), nil)
	escaped.apply = func(r *Request) {
		n := g.base.Name()
		setField(name, `"`+n+`-\u00e9"`, []string{jsonOf(n + "-é")})(r)
	}
	// Ordinary characters written as escapes: a service stores what they mean, not the
	// escapes, and not what a second decoding makes of them.
	ascii := mut(part, name+"-escaped-ascii", name+` with ordinary letters written as \u escapes (\u0041\u0062)`, Open, 0, fmt.Sprintf(secOpenName, name), nil)
	ascii.apply = func(r *Request) {
		n := g.base.Name()
		setField(name, `"`+n+`-\u0041\u0062"`, []string{jsonOf(n + "-Ab")})(r)
	}
	// A name another animal has: names are not keys (section 4.2: each POST adds an animal).
	if g.base.Taken != "" {
		out = append(out, open("taken", "equal to a listed animal's", func() string { return g.base.Taken }))
	}
	out = append(out, ascii)
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
		mut("body", "body-oversized", "a valid object padded by an unknown property to 1 MiB", Open, 400,
			"9 (request size limits: not shown); "+secUnknown, func(r *Request) { r.Body.Pad = oversizePad() }),
		// No body at all and no Content-Type (Go writes Content-Length: 0): the body is
		// missing (400), and a server may refuse the missing media type its own way (415).
		mut("body", "body-absent", "no body and no Content-Type header", Reject, 0, secBody+"; "+secMedia,
			func(r *Request) { r.Body, r.Header = nil, deleteHeader(r.Header, "Content-Type") }),
		// The body's fields in the query string (Grape, Rails and Laravel merge the query into
		// the parameters a handler reads): the body still misses them, so the request is
		// refused (400; an unknown parameter may be refused its own way, docs/readings.md).
		mut("body", "body-fields-in-query", "an empty object, with the valid body's fields in the query string", Reject, 0,
			secBody+"; 4.2 names no query parameter", fieldsToQuery(true)),
		mut("body", "body-"+text+"-in-query", "a body without "+text+", with "+text+" in the query string", Reject, 0,
			fmt.Sprintf(secRequired, text)+"; 4.2 names no query parameter", fieldsToQuery(false, text)),
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
	return should(mut("body", "body-invalid-utf8", text+" holding a byte that is not UTF-8 (RFC 8259 8.1)", Reject, 400,
		"1 (JSON bodies); RFC 8259 8.1 (the sender MUST use UTF-8), 9 (a parser MAY accept other forms): SHOULD refuse",
		func(r *Request) {
			r.Body.Raw = []byte(strings.Replace(string(valid(r)), `"`+text+`":"`, `"`+text+`":"`+"\xff", 1))
			r.Body.Fields = nil
		}))
}

// fieldsToQuery moves the named fields of the body (all of them when all) to the query
// string, their JSON text without the quotes of a string.
func fieldsToQuery(all bool, names ...string) func(*Request) {
	return func(r *Request) {
		kept := r.Body.Fields[:0:0]
		for _, f := range r.Body.Fields {
			if !all && !slices.Contains(names, f.Name) {
				kept = append(kept, f)
				continue
			}
			r.Query = append(r.Query, Param{Name: url.QueryEscape(f.Name), Value: url.QueryEscape(strings.Trim(f.JSON, `"`))})
		}
		r.Body.Fields = kept
	}
}

// oversizePad is the member that pads the oversized body to 1 MiB, made once: a run sends
// that body with every auth variant.
var oversizePad = sync.OnceValue(func() string { return `,"conformancePad":"` + strings.Repeat("x", 1<<20) + `"` })

// should is m weighed at SHOULD (READINGS.md): an answer against its verdict is a warning,
// and a failure only in a strict run.
func should(m Mutation) Mutation {
	m.Level = report.Should
	return m
}

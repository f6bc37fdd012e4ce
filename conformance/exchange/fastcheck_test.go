package exchange

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// answerCase is an answer to one of the description's operations.
type answerCase struct {
	op     string
	status int
	ct     string
	body   string
}

// kinAccepts is the verdict the fast check stands in for: kin-openapi's validation of the
// answer, as Session.validate asks for it.
func kinAccepts(t testing.TB, f *spec.Facts, a answerCase) bool {
	t.Helper()
	o := f.ByID[a.op]
	path := strings.ReplaceAll(f.BasePath+o.Path, "{petId}", "7")
	req, err := http.NewRequest(o.Method, "http://target.invalid"+path, nil)
	require.NoError(t, err)
	rt := f.Validator.RouteOf(req)
	require.NoError(t, rt.Err)
	return len(f.Validator.ValidateRoutedResponse(req, rt, a.status, header(a.ct), []byte(a.body))) == 0
}

func header(ct string) http.Header {
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return h
}

func fastPasses(f *spec.Facts, checks responseChecks, a answerCase) bool {
	o := f.ByID[a.op]
	return checks.passes(o.Op, o.Method, a.status, header(a.ct), []byte(a.body))
}

func facts(t testing.TB) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	return f
}

// randomPet is an animal as a service might write it: fields in any order, with unknown
// ones, odd numbers and strings, white space.
func randomPet(rng *rand.Rand) string {
	ints := []string{"1", "0", "-0", "42", "9007199254740993", "9223372036854775807", "-9223372036854775808", "2147483648"}
	strs := []string{`"Rex"`, `""`, `"Caf\u00e9"`, `"quote \" and \\ backslash"`, `"🐈"`, `"line\nbreak"`, `"a\/b"`}
	fields := []string{
		`"id":` + ints[rng.IntN(len(ints))],
		`"name":` + strs[rng.IntN(len(strs))],
		`"categoryId":` + ints[rng.IntN(len(ints))],
	}
	if rng.IntN(3) > 0 {
		fields = append(fields, `"status":`+[]string{`"available"`, `"pending"`, `"sold"`}[rng.IntN(3)])
	}
	if rng.IntN(4) == 0 {
		fields = append(fields, []string{`"tags":[1,"x",{"a":null},[true,false]]`, `"x":{}`, `"y":-1.5e-3`, `"z":null`, `"name2":"x"`}[rng.IntN(5)])
	}
	rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	sep := []string{",", " , ", ",\n\t"}[rng.IntN(3)]
	return "{" + strings.Join(fields, sep) + "}"
}

func randomList(rng *rand.Rand) string {
	pets := make([]string, rng.IntN(5))
	for i := range pets {
		pets[i] = randomPet(rng)
	}
	return "[" + strings.Join(pets, ",") + "]"
}

func randomError(rng *rand.Rand, status int) string {
	fields := []string{`"code":"not_found"`, `"message":"pet 42 not found"`, `"status":` + strconv.Itoa(status)}
	rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
}

// validAnswers are answers kin-openapi accepts: the fast check must pass them too, or it
// would not be the fast path it is there for.
func validAnswers(rng *rand.Rand, n int) []answerCase {
	var out []answerCase
	cts := []string{"application/json", "application/json; charset=utf-8", "Application/JSON"}
	for range n {
		ct := cts[rng.IntN(len(cts))]
		out = append(out,
			answerCase{spec.OpList, 200, ct, randomList(rng)},
			answerCase{spec.OpCreate, 201, ct, randomPet(rng)},
			answerCase{spec.OpGet, 200, ct, " " + randomPet(rng) + "\n"},
			answerCase{spec.OpGet, 404, ct, randomError(rng, 404)},
			answerCase{spec.OpList, 400, ct, randomError(rng, 400)},
			answerCase{spec.OpCreate, 401, ct, randomError(rng, 401)},
		)
	}
	return out
}

// mutate changes body the ways a faulty service or a broken connection would: bytes lost,
// added or changed where JSON is most sensitive, keys given twice, values of other types.
func mutate(rng *rand.Rand, body string) string {
	if body == "" {
		return "x"
	}
	i := rng.IntN(len(body))
	bytesOf := []string{"{", "}", "[", "]", ",", ":", `"`, `\`, "0", "1", "-", ".", "e", "n", "t", " ", "\x00", "\xff", "é", "\ufeff"}
	b := bytesOf[rng.IntN(len(bytesOf))]
	switch rng.IntN(9) {
	case 0:
		return body[:i] + body[i+1:]
	case 1:
		return body[:i] + b + body[i:]
	case 2:
		return body[:i] + b + body[i+1:]
	case 3:
		return body[:i]
	case 4:
		return body + []string{" x", "[]", ",", "\x00", " "}[rng.IntN(5)]
	case 5: // a key twice
		for _, k := range []string{`"id":`, `"name":`, `"status":`, `"categoryId":`, `"code":`} {
			if strings.Contains(body, k) {
				return strings.Replace(body, k, k+`"dup",`+k, 1)
			}
		}
		return body
	case 6: // a value of another type or out of range
		vals := []string{"null", `"1"`, "1.0", "1e2", "1E0", "-1.5", "true", "[]", "{}", "9223372036854775808", "-9223372036854775809",
			"99999999999999999999", `"availabl"`, `"AVAILABLE"`, `"\u0073old"`, "0.0", "-0.0", "00", "+1", "0x1"}
		for _, k := range []string{`"id":`, `"name":`, `"status":`, `"categoryId":`, `"code":`, `"message":`} {
			if j := strings.Index(body, k); j >= 0 && rng.IntN(2) == 0 {
				end := j + len(k)
				rest := body[end:]
				stop := strings.IndexAny(rest, ",}")
				if stop < 0 {
					return body
				}
				return body[:end] + vals[rng.IntN(len(vals))] + rest[stop:]
			}
		}
		return body
	case 7: // a key written another way
		for _, k := range []string{`"id"`, `"name"`, `"status"`, `"categoryId"`, `"code"`} {
			if strings.Contains(body, k) {
				alt := []string{`"\u0069d"`, `"ID"`, `"id "`, `"i\u0064"`, `"nam\u0065"`}[rng.IntN(5)]
				return strings.Replace(body, k, alt, 1)
			}
		}
		return body
	default: // a required field gone
		for _, k := range []string{`"id":`, `"name":`, `"categoryId":`, `"code":`, `"status":`} {
			if j := strings.Index(body, k); j >= 0 {
				rest := body[j:]
				stop := strings.IndexAny(rest, ",}")
				if stop < 0 {
					return body
				}
				return body[:j] + `"gone":0` + rest[stop:]
			}
		}
		return body
	}
}

// The fast check passes only what kin-openapi accepts, over valid answers, their mutations
// and answers chosen at the edges; and it passes every valid answer (it is the fast path).
func TestFastCheckAgreesWithKinOpenAPI(t *testing.T) {
	f := facts(t)
	checks := compileResponses(f)
	for _, o := range []string{spec.OpList, spec.OpCreate, spec.OpGet} {
		require.NotEmpty(t, checks[f.ByID[o].Op], "%s: no response compiled", o)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	valid := validAnswers(rng, 300)
	for _, a := range valid {
		require.True(t, kinAccepts(t, f, a), "the test's valid answer is not: %+v", a)
		assert.True(t, fastPasses(f, checks, a), "valid, yet not passed: %+v", a)
	}
	edges := []answerCase{
		{spec.OpList, 200, "application/json", ""},
		{spec.OpList, 200, "application/json", "null"},
		{spec.OpList, 200, "application/json", "[null]"},
		{spec.OpList, 200, "application/json", "[] []"},
		{spec.OpList, 200, "application/json", "\ufeff[]"},
		{spec.OpList, 200, "text/plain", "[]"},
		{spec.OpList, 200, "", "[]"},
		{spec.OpList, 200, "application/jſon", "[]"},
		{spec.OpList, 200, "application/json-patch+json", "[]"},
		{spec.OpList, 200, "*/*", "[]"},
		{spec.OpList, 201, "application/json", "[]"},
		{spec.OpList, 500, "application/json", "[]"},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1,"status":"sold\u0000"}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a\xff","categoryId":1}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1,"status":"sold","status":"x"}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1,"x":1,"x":2}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1e400}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1,"x":1e400}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1,"x":"\ud800"}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1,"x":[1,]}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"a","categoryId":1,}`},
		{spec.OpGet, 200, "application/json", `{"id":1,"name":"\ud800","categoryId":1}`},
		{spec.OpGet, 404, "application/json", `{"code":"x","message":"y","status":404.0}`},
		{spec.OpGet, 404, "application/json", `{"code":"x","message":"y"}`},
		{spec.OpGet, 404, "application/json", `{"code":null,"message":"y","status":404}`},
	}
	for _, a := range edges {
		if fastPasses(f, checks, a) {
			assert.True(t, kinAccepts(t, f, a), "passed, yet kin-openapi refuses it: %+v", a)
		}
	}
	passed, refused := 0, 0
	for range 40 {
		for _, a := range valid {
			m := a
			for range 1 + rng.IntN(3) {
				m.body = mutate(rng, m.body)
			}
			kin := kinAccepts(t, f, m)
			if fastPasses(f, checks, m) {
				passed++
				if !assert.True(t, kin, "passed, yet kin-openapi refuses it: %q", m.body) {
					return
				}
			} else if !kin {
				refused++
			}
		}
	}
	assert.Greater(t, passed, 1000, "the mutations pass often enough to be a test of passing")
	assert.Greater(t, refused, 1000, "the mutations break often enough to be a test of refusing")
}

// FuzzFastCheck: whatever the body and media type, the fast check passes only what kin-openapi
// accepts.
func FuzzFastCheck(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, a := range validAnswers(rng, 3) {
		f.Add(a.body, a.ct, a.status)
	}
	f.Add(`[{"id":1,"name":"x","categoryId":2,"status":"sold","status":"x"}]`, "application/json", 200)
	sf := facts(f)
	checks := compileResponses(sf)
	f.Fuzz(func(t *testing.T, body, ct string, status int) {
		for _, op := range []string{spec.OpList, spec.OpCreate, spec.OpGet} {
			a := answerCase{op, status, ct, body}
			if fastPasses(sf, checks, a) && !kinAccepts(t, sf, a) {
				t.Fatalf("passed, yet kin-openapi refuses it: %+v", a)
			}
		}
	})
}

// A schema with a keyword the fast check does not know is left to kin-openapi whole.
func TestFastCheckLeavesUnknownKeywords(t *testing.T) {
	pet := facts(t).ByID[spec.OpGet].Op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	name := pet.Properties["name"].Value
	require.NotNil(t, compileSchema(openapi3.NewSchemaRef("", pet), map[*openapi3.Schema]*schemaCheck{}, 0), "the Pet schema compiles")
	one, ten := uint64(1), 10.0
	for what, change := range map[string]func(p, n *openapi3.Schema){
		"minLength":            func(_, n *openapi3.Schema) { n.MinLength = 1 },
		"maxLength":            func(_, n *openapi3.Schema) { n.MaxLength = &one },
		"pattern":              func(_, n *openapi3.Schema) { n.Pattern = "^a" },
		"format":               func(_, n *openapi3.Schema) { n.Format = "date" },
		"nullable":             func(_, n *openapi3.Schema) { n.Nullable = true },
		"writeOnly":            func(_, n *openapi3.Schema) { n.WriteOnly = true },
		"no type":              func(_, n *openapi3.Schema) { n.Type = nil },
		"maximum":              func(p, _ *openapi3.Schema) { p.Properties["id"].Value.Max = &ten },
		"additionalProperties": func(p, _ *openapi3.Schema) { no := false; p.AdditionalProperties.Has = &no },
		"maxProperties":        func(p, _ *openapi3.Schema) { p.MaxProps = &one },
		"allOf": func(p, _ *openapi3.Schema) {
			p.AllOf = openapi3.SchemaRefs{openapi3.NewSchemaRef("", openapi3.NewObjectSchema())}
		},
		"required unknown": func(p, _ *openapi3.Schema) { p.Required = append(p.Required, "owner") },
	} {
		p, n := *pet, *name
		p.Properties = openapi3.Schemas{}
		for k, v := range pet.Properties {
			c := *v.Value
			p.Properties[k] = openapi3.NewSchemaRef("", &c)
		}
		p.Properties["name"] = openapi3.NewSchemaRef("", &n)
		change(&p, &n)
		assert.Nil(t, compileSchema(openapi3.NewSchemaRef("", &p), map[*openapi3.Schema]*schemaCheck{}, 0), what)
	}
}

package schemacheck

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// The compiled checks against kin-openapi, which they stand in for: wherever a check decides
// (Valid or Invalid), kin-openapi's VisitJSON on what openapi3filter's JSON decoder reads
// (encoding/json with UseNumber, the first value) says the same. The documents are the
// spec's answers and createPet bodies as services and clients write them, their mutations
// and documents chosen at the edges (TestChecksAgreeWithKinOpenAPI), and random ones
// (FuzzSchemaCheck; make fuzz).

// target is one schema on both sides.
type target struct {
	name    string
	schema  *openapi3.Schema
	check   *Check
	request bool // validated as a request body (else as a response)
}

// kinAccepts is kin-openapi's verdict on data against t's schema.
func (t target) kinAccepts(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // as openapi3filter decodes a body
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	opts := []openapi3.SchemaValidationOption{openapi3.VisitAsResponse(), openapi3.MultiErrors()}
	if t.request {
		opts[0] = openapi3.VisitAsRequest()
	}
	return t.schema.VisitJSON(v, opts...) == nil
}

// disagreement says where the check decided otherwise than kin-openapi, or "".
func (t target) disagreement(data []byte) string {
	v := t.check.Decide(data)
	if v == Ask {
		return ""
	}
	if kin := t.kinAccepts(data); kin != (v == Valid) {
		return t.name + ": compiled " + v.String() + ", kin-openapi accepts: " + strconv.FormatBool(kin)
	}
	return ""
}

// extraSchema is a schema with what the spec's schemas lack: int32, minimum and maximum,
// booleans, nested objects and arrays of enumerated strings.
func extraSchema() *openapi3.Schema {
	lo, hi := -5.0, 1000.0
	n := openapi3.NewInt32Schema()
	n.Min, n.Max = &lo, &hi
	tag := openapi3.NewStringSchema()
	tag.Enum = []any{"a", "b", "é"}
	inner := openapi3.NewObjectSchema().WithProperty("x", openapi3.NewIntegerSchema()).WithProperty("y", openapi3.NewStringSchema())
	inner.Required = []string{"x"}
	s := openapi3.NewObjectSchema().
		WithProperty("n", n).
		WithProperty("b", openapi3.NewBoolSchema()).
		WithProperty("tags", openapi3.NewArraySchema().WithItems(tag)).
		WithProperty("inner", inner)
	s.Required = []string{"n", "b"}
	s.Title, s.Description = "documentation", "plays no part"
	return s
}

func targets(t testing.TB) []target {
	t.Helper()
	doc, err := spec.Load()
	require.NoError(t, err)
	var out []target
	for _, name := range []string{"Pet", "NewPet", "Pets", "Error"} {
		ref := doc.Components.Schemas[name]
		require.NotNil(t, ref, name)
		out = append(out, target{name: name, schema: ref.Value, request: name == "NewPet"})
	}
	out = append(out, target{name: "extra", schema: extraSchema()})
	for i := range out {
		out[i].check = Compile(out[i].schema)
		require.NotNil(t, out[i].check, "%s does not compile", out[i].name)
	}
	return out
}

// randomPet is an animal as a service might write it: fields in any order, with unknown
// ones, odd numbers and strings, white space; without an id, a createPet body.
func randomPet(rng *rand.Rand, withID bool) string {
	ints := []string{"1", "0", "-0", "42", "9007199254740993", "9223372036854775807", "-9223372036854775808", "2147483648"}
	strs := []string{`"Rex"`, `""`, `"Caf\u00e9"`, `"quote \" and \\ backslash"`, `"🐈"`, `"line\nbreak"`, `"a\/b"`}
	fields := []string{
		`"name":` + strs[rng.IntN(len(strs))],
		`"categoryId":` + ints[rng.IntN(len(ints))],
	}
	if withID {
		fields = append(fields, `"id":`+ints[rng.IntN(len(ints))])
	}
	if rng.IntN(3) > 0 {
		fields = append(fields, `"status":`+[]string{`"available"`, `"pending"`, `"sold"`}[rng.IntN(3)])
	}
	if rng.IntN(4) == 0 {
		fields = append(fields, []string{`"tags":[1,"x",{"a":null},[true,false]]`, `"x":{}`, `"y":-1.5e-3`, `"z":null`, `"name2":"x"`}[rng.IntN(5)])
	}
	return object(rng, fields)
}

func object(rng *rand.Rand, fields []string) string {
	rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	sep := []string{",", " , ", ",\n\t"}[rng.IntN(3)]
	return "{" + strings.Join(fields, sep) + "}"
}

func randomList(rng *rand.Rand) string {
	pets := make([]string, rng.IntN(5))
	for i := range pets {
		pets[i] = randomPet(rng, true)
	}
	return "[" + strings.Join(pets, ",") + "]"
}

func randomError(rng *rand.Rand) string {
	status := []int{400, 401, 404, 429, 500}[rng.IntN(5)]
	return object(rng, []string{`"code":"not_found"`, `"message":"pet 42 not found"`, `"status":` + strconv.Itoa(status)})
}

func randomExtra(rng *rand.Rand) string {
	fields := []string{`"n":` + []string{"-5", "0", "1000", "7"}[rng.IntN(4)], `"b":` + []string{"true", "false"}[rng.IntN(2)]}
	if rng.IntN(2) == 0 {
		fields = append(fields, `"tags":`+[]string{`[]`, `["a"]`, `["a","b","é"]`}[rng.IntN(3)])
	}
	if rng.IntN(2) == 0 {
		fields = append(fields, `"inner":`+[]string{`{"x":1}`, `{"x":-3,"y":"z","w":[{}]}`}[rng.IntN(2)])
	}
	return object(rng, fields)
}

// validDocuments are documents kin-openapi accepts, each against the schema it is named by.
func validDocuments(rng *rand.Rand, n int) map[string][]string {
	out := map[string][]string{}
	for range n {
		out["Pet"] = append(out["Pet"], randomPet(rng, true), " "+randomPet(rng, true)+"\n")
		out["NewPet"] = append(out["NewPet"], randomPet(rng, false))
		out["Pets"] = append(out["Pets"], randomList(rng))
		out["Error"] = append(out["Error"], randomError(rng))
		out["extra"] = append(out["extra"], randomExtra(rng))
	}
	return out
}

// mutationKeys are the keys the mutations look for.
var mutationKeys = []string{`"id"`, `"name"`, `"status"`, `"categoryId"`, `"code"`, `"message"`, `"n"`, `"b"`, `"tags"`, `"inner"`, `"x"`}

// mutate changes body the ways a faulty service, a faulty client or a broken connection
// would: bytes lost, added or changed where JSON is most sensitive, keys given twice or
// written another way, values of other types or out of range, required fields gone.
func mutate(rng *rand.Rand, body string) string {
	if body == "" {
		return "x"
	}
	i := rng.IntN(len(body))
	bytesOf := []string{"{", "}", "[", "]", ",", ":", `"`, `\`, "0", "1", "-", ".", "e", "n", "t", " ", "\x00", "\xff", "é", "\ufeff"}
	b := bytesOf[rng.IntN(len(bytesOf))]
	keys := make([]string, 0, len(mutationKeys))
	for _, k := range mutationKeys {
		if strings.Contains(body, k+":") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return body[:i] + b + body[i:]
	}
	k := keys[rng.IntN(len(keys))]
	j := strings.Index(body, k+":")
	end := j + len(k) + 1
	stop := strings.IndexAny(body[end:], ",}")
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
		return body[:j] + k + `:"dup",` + body[j:]
	case 6: // a value of another type or out of range
		vals := []string{"null", `"1"`, "1.0", "1e2", "1E0", "-1.5", "true", "false", "[]", "{}", `["a"]`, `{"x":1}`, `{"x":"1"}`, `[1]`,
			"9223372036854775808", "-9223372036854775809", "99999999999999999999", "2147483648", "-6", "1001", "1000", "-5",
			`"availabl"`, `"AVAILABLE"`, `"sold"`, `"\u0073old"`, `"b"`, `"\xff"`, "0.0", "-0.0", "00", "+1", "0x1"}
		if stop < 0 {
			return body
		}
		return body[:end] + vals[rng.IntN(len(vals))] + body[end+stop:]
	case 7: // a key written another way
		alt := []string{`"\u0069d"`, `"ID"`, `"id "`, `"i\u0064"`, `"nam\u0065"`, `"st\u0061tus"`}[rng.IntN(6)]
		return body[:j] + alt + body[j+len(k):]
	default: // a field gone
		if stop < 0 {
			return body
		}
		return body[:j] + `"gone":0` + body[end+stop:]
	}
}

// edges are documents at the edges of what the checks decide.
var edges = []string{
	"", "null", "[null]", "[] []", "\ufeff[]", "[]", "{}", "true", "1", `"x"`,
	`{"id":1,"name":"a","categoryId":1,"status":"sold\u0000"}`,
	`{"id":1,"name":"a\xff","categoryId":1}`,
	`{"id":1,"name":"a","categoryId":1,"status":"\xffsold"}`,
	`{"id":1,"name":"a","categoryId":1,"status":"sold","status":"x"}`,
	`{"id":1,"name":"a","categoryId":1,"status":"x","status":"sold"}`,
	`{"id":1,"name":"a","categoryId":1,"status":"x","st\u0061tus":"sold"}`,
	`{"id":1,"name":"a","categoryId":1,"x":1,"x":2}`,
	`{"id":1,"name":"a","categoryId":1e400}`,
	`{"id":1,"name":"a","categoryId":1,"x":1e400}`,
	`{"id":1,"name":"a","categoryId":1,"x":"\ud800"}`,
	`{"id":1,"name":"a","categoryId":1,"x":[1,]}`,
	`{"id":1,"name":"a","categoryId":1,}`,
	`{"id":1,"name":"\ud800","categoryId":1}`,
	`{"name":"a","categoryId":9223372036854775807}`,
	`{"name":"a","categoryId":9223372036854775808}`,
	`{"name":"a","categoryId":-9223372036854775808}`,
	`{"name":"a","categoryId":9007199700000000}`,
	`{"name":"a","categoryId":1.0}`,
	`{"name":"a","categoryId":1.5,"status":"x"}`,
	`{"categoryId":1.5}`,
	`{"code":"x","message":"y","status":404.0}`,
	`{"code":"x","message":"y"}`,
	`{"code":null,"message":"y","status":404}`,
	`{"n":2147483647,"b":true}`, `{"n":1000,"b":true}`, `{"n":1001,"b":true}`, `{"n":-6,"b":false}`,
	`{"n":1,"b":null}`, `{"n":1,"b":tru}`, `{"n":1,"b":true,"tags":["c"]}`, `{"n":1,"b":true,"tags":["\u00e9"]}`,
	`{"n":1,"b":true,"inner":{}}`, `{"n":1,"b":true,"inner":{"x":1,"x":"y"}}`, `{"n":1,"b":true,"inner":{"y":1}}`,
	`{"n":1,"b":true,"tags":["a",]}`, `{"n":1,"b":true,"inner":{"x":1}} {}`,
	strings.Repeat("[", 100) + strings.Repeat("]", 100),
	`{"n":1,"b":true,"z":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
}

// Over valid documents, their mutations and the edges, against each of the spec's body
// schemas and one with what they lack, the checks decide only as kin-openapi does; they
// pass every valid document (they are the fast path) and refuse often.
func TestChecksAgreeWithKinOpenAPI(t *testing.T) {
	ts := targets(t)
	rng := rand.New(rand.NewPCG(1, 2))
	valid := validDocuments(rng, 200)
	count, nValid := map[Verdict]int{}, 0
	for _, tg := range ts {
		nValid += len(valid[tg.name])
		for _, doc := range valid[tg.name] {
			require.True(t, tg.kinAccepts([]byte(doc)), "the test's valid %s is not: %s", tg.name, doc)
			assert.Equal(t, Valid, tg.check.Decide([]byte(doc)), "%s: valid, yet not passed: %s", tg.name, doc)
		}
	}
	docs := append([]string(nil), edges...)
	for range 20 {
		for _, name := range []string{"Pet", "NewPet", "Pets", "Error", "extra"} {
			for _, d := range valid[name] {
				for range 1 + rng.IntN(3) {
					d = mutate(rng, d)
				}
				docs = append(docs, d)
			}
		}
	}
	for _, d := range docs {
		for _, tg := range ts {
			count[tg.check.Decide([]byte(d))]++
			if msg := tg.disagreement([]byte(d)); msg != "" {
				t.Fatalf("%s\ndocument %q", msg, d)
			}
		}
	}
	t.Logf("%d valid documents against their schemas; %d edges and mutations, each against %d schemas: %v",
		nValid, len(docs), len(ts), count)
	assert.Greater(t, count[Valid], 2000, "the mutations pass often enough to be a test of passing")
	assert.Greater(t, count[Invalid], 10000, "the mutations are refused often enough to be a test of refusing")
}

// FuzzSchemaCheck: whatever the document, each check decides only as kin-openapi does. The
// seeds are the valid documents, the edges and testdata/fuzz/FuzzSchemaCheck.
func FuzzSchemaCheck(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, docs := range validDocuments(rng, 2) {
		for _, d := range docs {
			f.Add([]byte(d))
		}
	}
	for _, d := range edges {
		f.Add([]byte(d))
	}
	ts := targets(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tg := range ts {
			if msg := tg.disagreement(data); msg != "" {
				t.Fatalf("%s\ndocument %q", msg, data)
			}
		}
	})
}

// A schema with a keyword the checks do not know is left to kin-openapi whole.
func TestUnknownKeywordsAreLeft(t *testing.T) {
	doc, err := spec.Load()
	require.NoError(t, err)
	pet := doc.Components.Schemas["Pet"].Value
	name := pet.Properties["name"].Value
	require.NotNil(t, Compile(pet), "the Pet schema compiles")
	one, ten := uint64(1), 10.0
	for what, change := range map[string]func(p, n *openapi3.Schema){
		"minLength":            func(_, n *openapi3.Schema) { n.MinLength = 1 },
		"maxLength":            func(_, n *openapi3.Schema) { n.MaxLength = &one },
		"pattern":              func(_, n *openapi3.Schema) { n.Pattern = "^a" },
		"format":               func(_, n *openapi3.Schema) { n.Format = "date" },
		"nullable":             func(_, n *openapi3.Schema) { n.Nullable = true },
		"writeOnly":            func(_, n *openapi3.Schema) { n.WriteOnly = true },
		"no type":              func(_, n *openapi3.Schema) { n.Type = nil },
		"multipleOf":           func(p, _ *openapi3.Schema) { p.Properties["id"].Value.MultipleOf = &ten },
		"integer format":       func(p, _ *openapi3.Schema) { p.Properties["id"].Value.Format = "uint8" },
		"additionalProperties": func(p, _ *openapi3.Schema) { no := false; p.AdditionalProperties.Has = &no },
		"maxProperties":        func(p, _ *openapi3.Schema) { p.MaxProps = &one },
		"allOf": func(p, _ *openapi3.Schema) {
			p.AllOf = openapi3.SchemaRefs{openapi3.NewSchemaRef("", openapi3.NewObjectSchema())}
		},
		"required unknown": func(p, _ *openapi3.Schema) { p.Required = append(p.Required, "owner") },
		"recursive":        func(p, _ *openapi3.Schema) { p.Properties["parent"] = openapi3.NewSchemaRef("", p) },
		"name U+FFFD": func(p, _ *openapi3.Schema) {
			p.Properties["\ufffd"] = openapi3.NewSchemaRef("", openapi3.NewStringSchema())
		},
	} {
		p, n := *pet, *name
		p.Properties = openapi3.Schemas{}
		for k, v := range pet.Properties {
			c := *v.Value
			p.Properties[k] = openapi3.NewSchemaRef("", &c)
		}
		p.Properties["name"] = openapi3.NewSchemaRef("", &n)
		change(&p, &n)
		assert.Nil(t, Compile(&p), what)
	}
}

package fast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/internal/schemacheck"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The reference's uses of the compiled checks (internal/schemacheck, held to kin-openapi
// there) and its one-pass decoding of createPet's body, against what they stand in for: the
// store's check of an animal against kin-openapi, quickNewPet against decodeNewPet, on every
// request body the case generator makes (TestCompiledChecksAgreeOnGeneratedCases) and on
// random ones (FuzzCompiledChecks; make fuzz); and the server's answers with and without the
// compiled body check (TestCompiledBodyCheckAnswersAsKinOpenAPI). A disagreement is a test
// failure, and each body a fuzz run found goes to testdata/fuzz/FuzzCompiledChecks.

// checkPair holds both sides of the comparison for the spec as shipped.
type checkPair struct {
	body     *bodyCheck              // createPet's request body, compiled
	petCheck func(data []byte) error // store.check: compiled, then kin-openapi
	kinPet   func(data []byte) error // kin-openapi's VisitJSON as store.check calls it
}

var checkPairs = sync.OnceValues(func() (*checkPair, error) {
	doc, err := spec.Load()
	if err != nil {
		return nil, err
	}
	facts, err := spec.ReadFacts(doc)
	if err != nil {
		return nil, err
	}
	plans, err := NewPlans(facts, true)
	if err != nil {
		return nil, err
	}
	schemas := PetSchemas(facts)
	cp := &checkPair{body: plans["createPet"].body, petCheck: PetCheck(doc, schemas)}
	// Only whether kin-openapi accepts counts here: its default message would quote a whole
	// (1 MiB) body, which costs more than the validation.
	brief := openapi3.SetSchemaErrorMessageCustomizer(func(err *openapi3.SchemaError) string { return err.Reason })
	cp.kinPet = func(data []byte) error {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // as kinPetCheck
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		for _, s := range schemas {
			if err := s.VisitJSON(v, openapi3.VisitAsResponse(), brief); err != nil {
				return err
			}
		}
		return nil
	}
	if cp.body == nil {
		return nil, fmt.Errorf("the spec's NewPet schema does not compile")
	}
	return cp, nil
})

// agreement is what one comparison found.
type agreement struct {
	body     schemacheck.Verdict // the compiled body check's decision
	quick    bool                // quickNewPet decoded the body (else decodeNewPet decides)
	newPet   core.NewPet         // what quickNewPet decoded
	disagree string              // "" when every decision was kin-openapi's (and decodeNewPet's)
}

// compare runs store.check and kin-openapi, and quickNewPet and decodeNewPet, on one body
// sent with Content-Type ct.
func (cp *checkPair) compare(body []byte, ct string) agreement {
	a := agreement{body: cp.body.check(ct, body)}
	kinPetErr := cp.kinPet(body)
	// store.check itself, on what it is given: encodings of animals, whose names are short.
	if len(body) <= 4<<10 {
		if got := cp.petCheck(body); (got == nil) != (kinPetErr == nil) {
			a.disagree = fmt.Sprintf("store.check says %v, kin-openapi %v", got, kinPetErr)
		}
	}
	// The handler's own decoding: the one-pass decoder against the full one.
	var quick bool
	if a.newPet, quick = quickNewPet(body); quick {
		full, err := core.DecodeNewPet(body)
		if (err != nil || full != a.newPet) && a.disagree == "" {
			a.disagree = fmt.Sprintf("quickNewPet %+v, decodeNewPet %+v, %v", a.newPet, full, err)
		}
	}
	a.quick = quick
	return a
}

// GeneratedBodies returns the createPet requests of the case generator: the enumerated
// cases of every family and random combinations from 10 seeds, each body once. Random
// combinations with a body over 4 KiB are left out: they repeat a large body of the
// enumerated cases (1 MiB, 20,000 arrays deep, a 10,000-character name) with other
// mutations, and under -race each costs seconds.
func GeneratedBodies(t testing.TB) []cases.Request {
	t.Helper()
	doc := spec.MustLoad()
	op, err := spec.FindOperation(doc, "createPet")
	require.NoError(t, err)
	n := 0
	g := cases.New(cases.Base{Reference: "1", KnownID: "1", Unknown: []string{"987654"},
		Name: func() string { n++; return "conformance-" + strconv.Itoa(n) }})
	var out []cases.Request
	seen := map[string]bool{}
	add := func(cs []cases.Case, limit int) {
		for _, c := range cs {
			if c.Request.Body == nil || len(c.Request.Body.Bytes()) > limit {
				continue
			}
			if key := contentType(c.Request) + "\n" + string(c.Request.Body.Bytes()); !seen[key] {
				seen[key] = true
				out = append(out, c.Request)
			}
		}
	}
	for _, fam := range cases.Families {
		add(g.Cases(op, fam), math.MaxInt)
	}
	for seed := range uint64(10) {
		add(g.Random(op, rand.New(rand.NewPCG(seed, 14)), 50), 4<<10)
	}
	return out
}

func contentType(r cases.Request) string {
	for _, h := range r.Header {
		if http.CanonicalHeaderKey(h.Name) == "Content-Type" {
			return h.Value // the first, as Header.Get reads it
		}
	}
	return ""
}

// On every createPet body of the case generator, store.check says what kin-openapi says and
// quickNewPet decodes what decodeNewPet decodes; and the compiled body check takes the usual
// bodies on the fast path.
func TestCompiledChecksAgreeOnGeneratedCases(t *testing.T) {
	cp, err := checkPairs()
	require.NoError(t, err)
	reqs := GeneratedBodies(t)
	count := map[string]int{}
	for _, r := range reqs {
		body := r.Body.Bytes()
		a := cp.compare(body, contentType(r))
		assert.Empty(t, a.disagree, "body %.200q, Content-Type %q", body, contentType(r))
		count["NewPet "+a.body.String()]++
		if a.quick {
			count["quickNewPet decoded"]++
		}
	}
	t.Logf("%d generated bodies, each compared as createPet's body and as a stored Pet: %v", len(reqs), count)
	assert.Greater(t, len(reqs), 400)
	assert.Greater(t, count["NewPet valid"], 100, "the usual bodies pass without kin-openapi")
	assert.Greater(t, count["quickNewPet decoded"], 100)

	// The usual bodies pass without kin-openapi.
	usual := []string{`{"name":"Rex","categoryId":1,"status":"sold"}`,
		" {\"categoryId\": -7, \"status\": \"sold\", \"name\": \"R\\u00e9x \\\"\\\\\", \"extra\": [1, {\"a\": null}]}\r\n"}
	if !core.StatusRequired(shipped) {
		usual = append(usual, `{"name":"Rex","categoryId":1}`)
	}
	for _, body := range usual {
		assert.Equal(t, schemacheck.Valid, cp.body.check("application/json", []byte(body)), body)
		assert.Equal(t, schemacheck.Valid, cp.body.check("application/json; charset=utf-8", []byte(body)), body)
	}
	assert.Equal(t, schemacheck.Ask, cp.body.check("text/plain", []byte(`{"name":"Rex","categoryId":1}`)))
}

// FuzzCompiledChecks compares store.check with kin-openapi, and quickNewPet with
// decodeNewPet, on random bodies. The
// seeds are the case generator's bodies (up to 4 KiB) and testdata/fuzz/FuzzCompiledChecks.
func FuzzCompiledChecks(f *testing.F) {
	for _, r := range GeneratedBodies(f) {
		if body := r.Body.Bytes(); len(body) <= 4<<10 {
			f.Add(body, contentType(r) == "application/json")
		}
	}
	// Stored animals as the store encodes them, for the Pet side.
	for _, pet := range []string{`{"id":1,"name":"Rex","categoryId":1,"status":"sold"}`, `{"id":9007199254740993,"name":"\u003cb\u003e","categoryId":-2}`,
		`{"id":2,"name":"Tom","categoryId":1,"status":"lost"}`, `{"id":"3","name":"Tom","categoryId":1}`} {
		f.Add([]byte(pet), true)
	}
	cp, err := checkPairs()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, body []byte, json bool) {
		ct := "text/plain"
		if json {
			ct = "application/json"
		}
		if a := cp.compare(body, ct); a.disagree != "" {
			t.Fatalf("%s\nbody %q", a.disagree, body)
		}
	})
}

// createPet's body check is compiled for the spec as shipped, and not for a schema with a
// keyword it does not know, which then goes to kin-openapi whole.
func TestCreatePetBodyIsCompiled(t *testing.T) {
	plans, err := NewPlans(factsOf(t, spec.MustLoad()), true)
	require.NoError(t, err)
	p := plans["createPet"]
	require.NotNil(t, p.body)
	assert.False(t, p.simpleRequest)
	assert.True(t, p.auth)
	assert.Contains(t, p.body.contentTypes, "application/json")

	plans, err = NewPlans(factsOf(t, UncompiledNewPet(t)), true)
	require.NoError(t, err)
	assert.Nil(t, plans["createPet"].body)
}

// UncompiledNewPet is the spec with a NewPet schema the compiler refuses (maxProperties)
// but that validates every body of the case generator alike.
func UncompiledNewPet(t testing.TB) *openapi3.T {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	many := uint64(1000)
	doc.Components.Schemas["NewPet"].Value.MaxProps = &many
	return doc
}

// shipped are the facts of the embedded spec.
var shipped = func() *spec.Facts {
	f, err := spec.ReadFacts(spec.MustLoad())
	if err != nil {
		panic(err)
	}
	return f
}()

func factsOf(t testing.TB, doc *openapi3.T) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(doc)
	require.NoError(t, err)
	return f
}

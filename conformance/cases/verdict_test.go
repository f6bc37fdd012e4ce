package cases_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/spec"
)

// BodyVerdict requires a 400 where the generator does: every case of the fields and body
// families that changes only the JSON body is Reject for both or for neither, but for two
// bodies the generator leaves open and a JSON decoder refuses (a BOM, 20,000 levels of
// nesting), which explore never sends. A plain body is Accept for both.
func TestBodyVerdictIsTheGenerators(t *testing.T) {
	f, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	g := cases.New(cases.Base{Reference: "7", KnownID: "12", Unknown: []string{"0"}, Name: func() string { return "conformance-a" }})
	op := f.ByID[spec.OpCreate]
	assert.Equal(t, cases.Accept, cases.BodyVerdict(f.NewPet, g.Valid(op).Body.Bytes()))
	assert.Equal(t, cases.Accept, cases.BodyVerdict(f.NewPet, []byte(`{"name":"Rex","categoryId":1,"status":"sold"}`)))
	decoderRefuses := map[string]bool{"body-bom": true, "body-deep-nesting": true}
	n := 0
	for _, family := range []string{cases.FamilyFields, cases.FamilyBody} {
		for _, k := range g.Cases(op, family) {
			if k.Request.Body == nil || len(k.Mutations()) != 1 || k.Request.Body.Pad != "" || decoderRefuses[k.Name] {
				continue
			}
			n++
			got := cases.BodyVerdict(f.NewPet, k.Request.Body.Bytes())
			assert.Equal(t, k.Verdict == cases.Reject, got == cases.Reject, "%s: generator %s, BodyVerdict %s", k.Name, k.Verdict, got)
		}
	}
	assert.Greater(t, n, 40)
}

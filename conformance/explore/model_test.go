package explore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/spec"
)

func facts(t testing.TB) *spec.Facts {
	f, err := factsOf(spec.MustLoad(), nil)
	require.NoError(t, err)
	return f
}

// The verdict on a createPet body comes from the spec's NewPet schema.
func TestClassify(t *testing.T) {
	f := facts(t)
	// Without a status: as for any other body, unless the spec requires one.
	noStatus := func(v cases.Verdict) cases.Verdict {
		if spec.IsRequired(f.NewPet, fieldStatus) {
			return cases.Reject
		}
		return v
	}
	accept, reject, open := cases.Accept, cases.Reject, cases.Open
	for body, want := range map[string]cases.Verdict{
		`{"name":"Rex","categoryId":1}`:                    noStatus(accept),
		`{"name":"Rex","categoryId":1,"status":"sold"}`:    accept,
		`{"name":"Café","categoryId":1}`:                   noStatus(open),
		`{"name":"Rex","categoryId":9007199254740993}`:     noStatus(open),
		`{"categoryId":1}`:                                 reject,
		`{"name":"Rex","categoryId":"1"}`:                  reject,
		`{"name":"Rex","categoryId":1,"status":"unknown"}`: reject,
		`[]`: reject,
		`{`:  reject,
		``:   reject,
	} {
		assert.Equal(t, want, createOp{f}.verdict(Step{Body: body}), body)
	}
}

// A 404 for an animal created within the lag asks for a recheck; past the lag it is a
// violation; an unknown id may be missing.
func TestMissingWithinLag(t *testing.T) {
	m := newModel(facts(t), time.Second)
	now := time.Now()
	require.Nil(t, m.created(pet{id: "5", name: "a", category: "1"}, now, "w0 #0"))
	wait, why := m.missing("5", now.Add(100*time.Millisecond), 0)
	assert.Empty(t, why)
	assert.InDelta(t, 900*time.Millisecond, wait, float64(5*time.Millisecond))
	_, why = m.missing("5", now.Add(2*time.Second), 0)
	assert.Contains(t, why, "was created")
	wait, why = m.missing("6", now, 0)
	assert.Zero(t, wait)
	assert.Empty(t, why)
	v := m.created(pet{id: "5", name: "b", category: "1"}, now, "w1 #0")
	require.NotNil(t, v)
	assert.Equal(t, ruleIDsUnique.id, v.Rule)
}

// A listing's animals are checked against what the model saw of them; what a listing may
// hold whatever the store (its limit, its filter) is judged by judge.Listing, as run does.
func TestListedAgainstTheModel(t *testing.T) {
	m := newModel(facts(t), time.Second)
	sold := pet{id: "1", name: "a", category: "1", status: "sold", hasStatus: true}
	rule := func(pets ...pet) string {
		_, v := m.listed(pets, judgingAt(time.Now()))
		if v == nil {
			return ""
		}
		return v.Rule
	}
	assert.Empty(t, rule(sold))
	assert.Equal(t, ruleListArray.id, rule(sold, sold))
	assert.Equal(t, rulePersist.id, rule(pet{id: "1", name: "changed", category: "1", status: "sold", hasStatus: true}))
}

// Removing a createPet step removes the steps that refer to it and renumbers the rest.
func TestWithoutKeepsReferences(t *testing.T) {
	create := Step{Op: opCreate, Body: `{"name":"a","categoryId":1}`}
	seq := Sequence{Workers: [][]Step{{create, create, {Op: opGet, Ref: ptr(0)}, {Op: opGet, Ref: ptr(1)}}}}
	got := seq.without(0, 0, 1)
	require.Len(t, got.Workers[0], 2)
	assert.Equal(t, 0, *got.Workers[0][1].Ref)
	assert.Len(t, seq.Workers[0], 4, "the original is unchanged")
}

func TestReplayFileRoundTripAndChecks(t *testing.T) {
	dir := t.TempDir()
	rf := ReplayFile{Format: ReplayFormat, Lag: "1s", Finding: Violation{Rule: rulePersist.id},
		Sequence: Sequence{Workers: [][]Step{{{Op: opCreate, Body: `{"name":"a","categoryId":1}`}, {Op: opGet, Ref: ptr(0)}}}}}
	path := filepath.Join(dir, "r.json")
	require.NoError(t, WriteReplayFile(path, rf))
	got, err := ReadReplayFile(path)
	require.NoError(t, err)
	assert.Equal(t, rf.Sequence.Size(), got.Sequence.Size())

	for name, body := range map[string]string{
		"forward ref": `{"format":"` + ReplayFormat + `","workers":[[{"op":"getPet","ref":1},{"op":"createPet","body":"{}"}]]}`,
		"no op":       `{"format":"` + ReplayFormat + `","workers":[[{"op":""}]]}`,
		"old format":  `{"format":"x/0","workers":[[{"op":"listPets"}]]}`,
		"no steps":    `{"format":"` + ReplayFormat + `","workers":[]}`,
	} {
		p := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		_, err := ReadReplayFile(p)
		assert.Error(t, err, name)
	}
}

func TestCreatesFirstKeepsReferences(t *testing.T) {
	create := Step{Op: opCreate, Body: `{"name":"a","categoryId":1}`}
	seq := Sequence{Workers: [][]Step{{{Op: opList}, create, {Op: opGet, Ref: ptr(1)}, create}}}
	got := createsFirst(seq).Workers[0]
	require.Len(t, got, 4)
	assert.Equal(t, opCreate, got[0].Op)
	assert.Equal(t, opCreate, got[1].Op)
	assert.Equal(t, 0, *got[3].Ref)
}

package explore

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/spec"
)

// Every rule a finding cites is the catalogue's, with its section, or explore's own under
// explore/, which docs/harness.md lists.
func TestFindingsCiteTheCatalogue(t *testing.T) {
	f := facts(t)
	catalogue := map[string]bool{}
	for _, r := range rules.All(f) {
		catalogue[r.ID] = true
	}
	harness, err := os.ReadFile(filepath.Join("..", "..", "docs", "harness.md"))
	require.NoError(t, err)
	cited := slices.Clone(allRules)
	for _, s := range f.Statuses {
		cited = append(cited, ruleListStatus(s))
	}
	for _, r := range cited {
		assert.NotEmpty(t, r.section, r.id)
		assert.Equal(t, r, ruleByID(r.id))
		if strings.HasPrefix(r.id, "explore/") {
			assert.True(t, strings.Contains(string(harness), "`"+r.id+"`"), "docs/harness.md lists %s", r.id)
		} else {
			assert.True(t, catalogue[r.id], "%s is a rule of the catalogue", r.id)
		}
	}
}

// A replay file of format 4 names explore's rules in its own words: it replays with them
// read as the catalogue's, the causes it passes over included (list-filter's for every
// status, as its cause does not say which).
func TestReplayFileOfFormat4(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v4.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"format":"petstore-explore-replay/4","lag":"1s",
		"finding":{"rule":"persist","section":"2; 4.2; 4.3","message":"getPet 1 answered 404","cause":"persist: getPet answered 404"},
		"passOver":["list-filter: listPets answered 200","get-id: getPet for no int64 id answered 200","error-record: listPets answered 401: x"],
		"workers":[[{"op":"createPet","body":"{\"name\":\"a\",\"categoryId\":1}"},{"op":"getPet","ref":0}]]}`), 0o644))
	rf, err := ReadReplayFile(path)
	require.NoError(t, err)
	rr, err := Replay(context.Background(), ReplayConfig{Target: serve(t, nil), Doc: spec.MustLoad(), Times: 1, MaxCreates: 10}, rf)
	require.NoError(t, err)
	assert.Equal(t, rulePersist.id, rr.Expected.Rule)
	assert.Equal(t, "getPet/created-returned: getPet answered 404", rr.Expected.Cause)
	f := facts(t)
	var want []string
	for _, s := range f.Statuses {
		want = append(want, ruleListStatus(s).id+": listPets answered 200")
	}
	want = append(want, ruleGetNotID.id+": getPet answered 200", ruleUnauthorized.id+": listPets answered 401: x")
	assert.Equal(t, want, rr.PassOver)
	assert.Zero(t, rr.Failed, "the reference passes")
}

package core

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

func TestCheckDuplicateKeys(t *testing.T) {
	for doc, dup := range map[string]bool{
		`{"a":1,"b":2}`:                      false,
		`{"a":1,"a":2}`:                      true,
		`{"a":{"b":1},"b":{"b":2}}`:          false,
		`{"x":{"b":1,"b":2}}`:                true,
		`{"x":[{"b":1},{"b":2}]}`:            false,
		`{"x":[{"b":1,"b":2}]}`:              true,
		`{"a":"a","b":["a","a"],"c":"a"}`:    false,
		`{"a":[],"b":{},"a":null}`:           true,
		`[{"k":1},{"k":1}]`:                  false,
		`{"name":"a","categoryId":1,"n":{}}`: false,
	} {
		err := checkDuplicateKeys([]byte(doc))
		assert.Equal(t, dup, err != nil, "%s: %v", doc, err)
	}
}

func TestJSONInt64(t *testing.T) {
	for raw, want := range map[string]int64{"0": 0, "-7": -7, "1.0": 1, "1e3": 1000, "-0": 0, "0.000e5": 0,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808,
		"9007199254740993": 9007199254740993, "9007199254740993.0": 9007199254740993, "12.5e1": 125,
		"1500e-2": 15, "9.223372036854775807e18": 9223372036854775807, "1E+2": 100} {
		got, err := JSONInt64([]byte(raw))
		require.NoError(t, err, raw)
		assert.Equal(t, want, got, raw)
	}
	// Each of these a float64 would round to an integer: the server must refuse, not store
	// a number the client did not send.
	for _, raw := range []string{`"1"`, "1.5", "true", "null", "9223372036854775808", "1e300", "{}",
		"9007199254740992.5", "1.0000000000000001", "9223372036854775807.5", "1e-7", "1e-9999999999", "1e9999999999",
		"-9223372036854775809", "1.5e0", "[]"} {
		_, err := JSONInt64([]byte(raw))
		assert.Error(t, err, raw)
	}
}

// The shipped seed follows the spec and has animals of every status (and without one, where
// the spec allows it): a spec edit that changes them asks for an edit of the seed.
func TestLoadSeedShipped(t *testing.T) {
	seed, err := LoadSeed(filepath.Join("..", "..", "..", "testdata", "pets.json"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(seed), 30)
	values := shipped.Statuses
	count := map[string]int{}
	for _, p := range seed {
		require.NoError(t, ValidateNewPet(p, values, StatusRequired(shipped)), "edit the seed testdata/pets.json: %s does not follow the spec", p.Name)
		count[p.Status]++
	}
	if !StatusRequired(shipped) {
		values = append(values, "")
	}
	for _, v := range values {
		assert.Positive(t, count[v], "edit the seed testdata/pets.json: it has no animal with status %q", v)
	}
	_, err = NewServerState(shipped, time.Now, len(seed), seed, nil)
	assert.NoError(t, err)
}

func TestLoadSeedErrors(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"object.json":    `{"name":"Rex","categoryId":1}`,
		"broken.json":    `[{"name":"Rex",`,
		"missing.json":   `[{"name":"Rex"}]`,
		"duplicate.json": `[{"name":"Rex","categoryId":1,"name":"Tom"}]`,
		"typed.json":     `[{"name":"Rex","categoryId":"one"}]`,
		"trailing.json":  `[{"name":"Rex","categoryId":1}] []`,
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		_, err := LoadSeed(path)
		assert.Error(t, err, name)
	}
	_, err := LoadSeed(filepath.Join(dir, "absent.json"))
	assert.Error(t, err)
}

// An id in a seed is refused with the reason, not silently replaced by the assigned one.
func TestLoadSeedRefusesIDs(t *testing.T) {
	for _, key := range []string{`"id"`, `"\u0069d"`} { // the same key, written two ways
		path := filepath.Join(t.TempDir(), "ids.json")
		require.NoError(t, os.WriteFile(path, []byte(`[{"name":"Rex","categoryId":1},{`+key+`:7,"name":"Tom","categoryId":2}]`), 0o600))
		_, err := LoadSeed(path)
		require.Error(t, err, key)
		assert.Contains(t, err.Error(), `entry 1: "id" is not accepted`)
		assert.Contains(t, err.Error(), "in file order")
	}
}

// shipped are the facts of the embedded spec.
var shipped = func() *spec.Facts {
	f, err := spec.ReadFacts(spec.MustLoad())
	if err != nil {
		panic(err)
	}
	return f
}()

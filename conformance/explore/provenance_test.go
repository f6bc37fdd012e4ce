package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// The flags of a provenance never hold the key: not as --api-key, not inside another value,
// not as a URL's password.
func TestProvenanceMasksTheKey(t *testing.T) {
	const key = "s3cret-key-42"
	p := NewProvenance(SpecSHA256([]byte("openapi: 3.0.3\n")), 9, []string{"--api-key=" + key, "--base-url=https://u:pw@example.test/v1",
		"--header=X-Key: " + key, "--seed=9", "--workers=4"}, key)
	assert.Equal(t, []string{"--api-key=***", "--base-url=https://u:xxxxx@example.test/v1", "--header=X-Key: ***", "--seed=9", "--workers=4"}, p.Flags)
	assert.Equal(t, uint64(9), p.Seed)
	assert.Regexp(t, `^[0-9a-f]{64}$`, p.SpecSHA256)
	assert.Contains(t, p.Harness, "github.com/petstore/petstore")
	// A key too short to search for is masked only as --api-key.
	assert.Equal(t, []string{"--api-key=***", "--workers=4"}, NewProvenance("", 0, []string{"--api-key=4", "--workers=4"}, "4").Flags)
}

// Every explore report and replay file records the harness, the spec's sha256, the seed and
// the flags; the seed is the run's even when the caller left it out of the provenance.
func TestReportAndReplayFileRecordProvenance(t *testing.T) {
	tg := serve(t, nil)
	cfg := config(tg, 5, 2, 60)
	cfg.Provenance = NewProvenance(SpecSHA256(spec.Bytes()), 0, []string{"--api-key=" + testKey, "--steps=60"}, testKey)
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, uint64(5), rep.Provenance.Seed)
	assert.Contains(t, rep.Provenance.Harness, "github.com/petstore/petstore")
	assert.Equal(t, SpecSHA256(spec.Bytes()), rep.Provenance.SpecSHA256)

	var text, js bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	require.NoError(t, WriteJSON(&js, rep))
	assert.Contains(t, text.String(), "spec sha256 "+rep.Provenance.SpecSHA256)
	assert.Contains(t, text.String(), "harness "+rep.Provenance.Harness)
	assert.Contains(t, text.String(), "seed 5, 2 workers, flags: --api-key=*** --steps=60")
	var back Report
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	assert.Equal(t, rep.Provenance, back.Provenance)
	for _, out := range []string{text.String(), js.String()} {
		assert.NotContains(t, out, testKey)
	}

	// Without a harness given, Run fills it in.
	cfg.Provenance = Provenance{}
	rep, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Contains(t, rep.Provenance.Harness, "github.com/petstore/petstore")
	assert.Equal(t, uint64(5), rep.Provenance.Seed)

	path := filepath.Join(t.TempDir(), "r.json")
	fd := Finding{Violation: Violation{Rule: ruleNo5xx.id}, Shrunk: Sequence{Workers: [][]Step{{{Op: opList}}}}}
	require.NoError(t, WriteReplayFile(path, NewReplayFile(rep, fd)))
	rf, err := ReadReplayFile(path)
	require.NoError(t, err)
	assert.Equal(t, rep.Provenance, rf.Provenance)
}

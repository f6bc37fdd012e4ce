package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// The JSON report records the command line that repeats the run (issue 12, item 6): the
// flags as given (in name order), the key and a gateway header's value masked, the spec's sha256 and seed.
func TestRunRecordsProvenance(t *testing.T) {
	const provKey = "provenance-key-81c2"
	code, out, _ := runMain(t, nil, "run", "--only", "errors", "-H", "X-Gateway: "+provKey+"-secret", "--api-key", provKey,
		"--format", "json", "--seed", "5", "--workers", "3", "--rate", "500")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, provKey)
	var rep conformance.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	p := rep.Provenance
	assert.Equal(t, []string{"--header=X-Gateway: ***", "--api-key=***", "--format=json", "--only=errors", "--rate=500",
		"--seed=5", "--workers=3"}, p.Flags)
	assert.Equal(t, report.SpecSHA256(spec.Bytes()), p.SpecSHA256)
	assert.Equal(t, uint64(5), p.Seed)
	assert.NotEmpty(t, p.Harness)
}

// --workers and --rate take only what makes sense.
func TestRunWorkersAndRateFlags(t *testing.T) {
	for _, args := range [][]string{{"--workers", "0"}, {"--rate", "-1"}} {
		code, _, errOut := runMain(t, nil, append([]string{"run"}, args...)...)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errOut, args[0], args)
	}
}

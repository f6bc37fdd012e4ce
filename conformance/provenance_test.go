package conformance_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// Every report records what reproduces its run (issue 12, item 6): the harness, the sha256
// of the description, the seed, and the flags a command passed, with the key masked.
func TestReportRecordsProvenance(t *testing.T) {
	target := serve(t, newReference(t, beforeSunset, reference.Config{}))
	prov := report.NewProvenance("", "", 0,
		[]string{"--api-key=" + testKey, "--base-url=" + target.BaseURL + "?k=" + testKey, "--only=errors"}, testKey)
	rep := run(t, target, conformance.Options{Only: []string{"errors"}, Seed: 99, Provenance: &prov})
	p := rep.Provenance
	assert.NotEmpty(t, p.Harness)
	assert.Equal(t, report.SpecSHA256(spec.Bytes()), p.SpecSHA256, "the embedded spec's bytes")
	assert.Equal(t, uint64(99), p.Seed)
	assert.Equal(t, []string{"--api-key=***", "--base-url=" + target.BaseURL + "?k=***", "--only=errors"}, p.Flags)
	for _, f := range p.Flags {
		assert.NotContains(t, f, testKey)
	}
}

package conformance_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// The run against the reference exercises every documented operation × status pair of the
// spec, and every parameter and enumeration value.
func TestReferenceRunCoversTheSpec(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{MinCoverage: 100})
	require.True(t, rep.Conforming(), "%+v", rep.GateFailures)
	c := rep.Coverage
	ops, err := spec.Operations(spec.MustLoad())
	require.NoError(t, err)
	pairs := 0
	for _, op := range ops {
		pairs += len(op.Statuses)
	}
	assert.Equal(t, pairs, c.Pairs)
	assert.Equal(t, c.Pairs, c.Exercised, "never exercised: %v", c.Missing())
	assert.InDelta(t, 100, c.Percent, 0.001)
	require.Len(t, c.Operations, len(ops))
	for _, op := range c.Operations {
		assert.Positive(t, op.Requests, op.Operation)
		for _, p := range op.Parameters {
			assert.Positive(t, p.Count, "%s %s %s", op.Operation, p.In, p.Name)
			for _, v := range p.Values {
				assert.Positive(t, v.Count, "%s %s=%s", op.Operation, p.Name, v.Value)
			}
		}
	}
}

// A run of a few rules falls below a minimum coverage: the run fails and says which pairs
// were never exercised.
func TestMinCoverage(t *testing.T) {
	target := serve(t, newReference(t, beforeSunset, reference.Config{}))
	rep := run(t, target, conformance.Options{Only: []string{"getPet/unknown-id"}, MinCoverage: 50})
	assert.Equal(t, 0, rep.Counts.Fail)
	assert.False(t, rep.Conforming())
	assert.Equal(t, conformance.NotConforming, rep.Verdict)
	require.Len(t, rep.GateFailures, 1)
	g := rep.GateFailures[0]
	assert.Equal(t, "coverage", g.Gate)
	assert.Contains(t, g.Message, "is below the minimum 50%")
	assert.Contains(t, g.Message, "never exercised: ")
	assert.Contains(t, g.Message, "createPet 201")
	assert.NotContains(t, g.Message, "getPet 404")

	rep = run(t, target, conformance.Options{Only: []string{"getPet/unknown-id"}})
	assert.True(t, rep.Conforming(), "no minimum, no gate")
	assert.Less(t, rep.Coverage.Percent, 50.0)
}

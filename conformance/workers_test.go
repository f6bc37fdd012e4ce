package conformance_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// verdicts is what a report says of each rule, without what depends on timing (durations)
// or on what other rules created meanwhile (the bodies of listings).
func verdicts(rep *conformance.Report) []string {
	var out []string
	for _, res := range rep.Results {
		line := fmt.Sprintf("%s %s cases=%d/%d %s", res.ID, res.Status, res.Cases, res.CasesSkipped, res.Reason)
		for _, f := range res.Failures {
			line += " | " + f.Message + " [" + f.Case + "]"
		}
		out = append(out, line)
	}
	return out
}

// The report does not depend on how many workers ran the rules, nor on the order they
// finished in: the same seed gives the same verdicts, rule by rule and case by case, in
// catalogue order, against a target that fails many rules (GET without a key).
func TestWorkersDoNotChangeTheReport(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	report := func(workers int) *conformance.Report {
		target := serve(t, openDoor(newReference(t, beforeSunset, reference.Config{})))
		opts := conformance.Options{Seed: 7, Workers: workers, Now: beforeSunset}
		conformance.NoWait(&opts, nil)
		return run(t, target, opts)
	}
	one := report(1)
	assert.Equal(t, conformance.NotConforming, one.Verdict)
	for _, workers := range []int{8, 8, 32} {
		many := report(workers)
		assert.Equal(t, verdicts(one), verdicts(many), "workers %d", workers)
		assert.Equal(t, one.Counts, many.Counts)
		assert.Equal(t, one.AnimalsCreated, many.AnimalsCreated)
	}
}

// --max-creates holds however many workers create at once: the animals created and the
// claims of the cases in flight never pass the cap.
func TestMaxCreatesHoldsWithWorkers(t *testing.T) {
	for _, workers := range []int{1, 8, 32} {
		target := serve(t, newReference(t, beforeSunset, reference.Config{}))
		opts := conformance.Options{Seed: 3, Workers: workers, MaxCreates: 40, Now: beforeSunset}
		conformance.NoWait(&opts, nil)
		rep := run(t, target, opts)
		assert.LessOrEqual(t, rep.AnimalsCreated, 40, "workers %d", workers)
		assert.Equal(t, conformance.Conforming, rep.Verdict, "workers %d", workers)
	}
}

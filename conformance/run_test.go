package conformance_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// notPassed lists the rules of rep that did not pass or skip, with their reasons.
func notPassed(rep *conformance.Report) map[string]string {
	out := map[string]string{}
	for _, r := range rep.Results {
		if r.Status != conformance.Pass && r.Status != conformance.Skip {
			out[r.ID] = string(r.Status) + ": " + r.Reason
		}
	}
	return out
}

func TestReferencePassesAll(t *testing.T) {
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{})
	assert.Empty(t, notPassed(rep))
	assert.Equal(t, conformance.Conforming, rep.Verdict)
	t.Logf("%+v in %.1f ms, %d animals created", rep.Counts, rep.DurationMS, rep.AnimalsCreated)
}

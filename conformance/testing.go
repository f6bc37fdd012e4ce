package conformance

import (
	"strings"
	"testing"

	"github.com/petstore/petstore/conformance/report"
)

// RunT runs the selected rules against target as subtests of t, named by rule ID: a Fail
// or Error fails its subtest with the details, a warning is logged, a skip skips. It
// returns the report, so a test can also assert on it. A run that cannot be made (bad
// options, unreachable target) fails t at once.
func RunT(t *testing.T, target Target, opts Options) *Report {
	t.Helper()
	r, err := newRunner(t.Context(), target, opts)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	r.runAll(func(res Result) {
		t.Run(res.ID, func(t *testing.T) {
			var details strings.Builder
			report.WriteDetails(&details, res)
			switch res.Status {
			case Fail, Error:
				t.Errorf("%s %s: %s (section %s)\n%s", res.Severity, res.Status, res.Title, res.Section, details.String())
			case Warn:
				t.Logf("warning: %s\n%s", res.Title, details.String())
			case Waived:
				t.Logf("waived until %s (%s): %s\n%s", res.Waiver.Expires, res.Waiver.Reason, res.Title, details.String())
			case Skip:
				t.Skip(res.Reason)
			}
		})
	})
	rep := r.finish()
	for _, g := range rep.GateFailures {
		t.Errorf("conformance: %s", g.Message)
	}
	return rep
}

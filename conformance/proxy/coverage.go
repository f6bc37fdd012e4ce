package proxy

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/petstore/petstore/conformance/coverage"
	"github.com/petstore/petstore/internal/level"
	"github.com/petstore/petstore/internal/words"
)

// Coverage is the part of the description that the traffic exercised: every documented
// operation × status pair, and the parameters and enumeration values used. The conformance
// run reports the same type.
type Coverage = coverage.Coverage

// OperationCoverage is the coverage of one operation.
type OperationCoverage = coverage.OperationCoverage

// Count is how many times a status was seen.
type Count = coverage.Count

// ParameterCoverage is how often one parameter was sent, and for an enumeration, each value.
type ParameterCoverage = coverage.ParameterCoverage

// ValueCount is how many times an enumeration value was sent.
type ValueCount = coverage.ValueCount

// recordCoverage counts ex against operation id; a body over the cap counts as not sent.
func recordCoverage(t *coverage.Tracker, id string, ex exchange) {
	body := ex.reqBody
	if !ex.reqComplete {
		body = nil
	}
	t.Record(id, ex.req, body, ex.status)
}

// WriteText writes the summary as text: counts, the client rules' findings per level,
// violations per operation, and coverage with
// one line per operation (each documented status with its count, "-" when never seen) and
// one for its parameters.
func (s Summary) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("checked %s under %s: %s, %d ignored (not API calls)",
		words.Plural(s.Checked, "exchange"), s.BasePath, words.Plural(s.Violations, "violation"), s.Ignored)
	if s.Incomplete > 0 {
		ew.printf(", %d with a body over the cap or not recorded (bodies not validated)", s.Incomplete)
	}
	if s.UpstreamErrors > 0 {
		ew.printf(", %s", words.Plural(s.UpstreamErrors, "upstream error"))
	}
	ew.printf("\n")
	var client []string
	for _, l := range []level.Level{level.Must, level.Should, level.Advisory} {
		if n := s.ClientFindings[l.String()]; n > 0 {
			client = append(client, fmt.Sprintf("%d %s", n, l))
		}
	}
	if len(client) > 0 {
		ew.printf("client rules broken: %s (requests' findings by level; SHOULD and ADVISORY do not fail)\n", strings.Join(client, ", "))
	}
	if len(s.ViolationsByOperation) > 0 {
		ops := make([]string, 0, len(s.ViolationsByOperation))
		for op, n := range s.ViolationsByOperation {
			if op == "-" {
				op = "(no operation)"
			}
			ops = append(ops, fmt.Sprintf("%s %d", op, n))
		}
		sort.Strings(ops)
		ew.printf("violations by operation: %s\n", strings.Join(ops, ", "))
	}
	c := s.Coverage
	ew.printf("coverage: %d of %d documented operation x status pairs exercised (%.0f%%)\n", c.Exercised, c.Pairs, c.Percent)
	for _, op := range c.Operations {
		var st []string
		for _, n := range op.Statuses {
			st = append(st, fmt.Sprintf("%d %s", n.Status, times(n.Count)))
		}
		for _, n := range op.Undocumented {
			st = append(st, fmt.Sprintf("%d %s (undocumented)", n.Status, times(n.Count)))
		}
		ew.printf("  %-10s %-6s %-16s %s\n", op.Operation, op.Method, op.Path, strings.Join(st, ", "))
		var ps []string
		for _, p := range op.Parameters {
			line := fmt.Sprintf("%s %s %s", p.In, p.Name, times(p.Count))
			if len(p.Values) > 0 {
				var vs []string
				for _, v := range p.Values {
					vs = append(vs, v.Value+" "+times(v.Count))
				}
				line += " (" + strings.Join(vs, ", ") + ")"
			}
			ps = append(ps, line)
		}
		if len(ps) > 0 {
			ew.printf("  %-10s %s\n", "", strings.Join(ps, ", "))
		}
	}
	return ew.err
}

func times(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("x%d", n)
}

// errWriter keeps the first write error so that a text writer reads as a list of printf.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

package conformance

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/petstore/petstore/internal/coverage"
)

// Coverage is the part of the description a run exercised: every documented operation ×
// status pair, and the parameters and enumeration values sent. The proxy reports the same
// type.
type Coverage = coverage.Coverage

// OperationCoverage is the coverage of one operation.
type OperationCoverage = coverage.OperationCoverage

// StatusCount is how many times a status was answered.
type StatusCount = coverage.Count

// ParameterCoverage is how often one parameter was sent, and for an enumeration, each value.
type ParameterCoverage = coverage.ParameterCoverage

// ValueCount is how many times an enumeration value was sent.
type ValueCount = coverage.ValueCount

// recordCoverage counts an answered request against the operation it routes to (none: not
// counted, e.g. a probe of an undocumented path).
func (s *session) recordCoverage(req *http.Request, status int) {
	vreq := s.specRequest(req)
	route, _, err := s.validator.Route(vreq)
	if err != nil {
		return
	}
	var body []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(io.LimitReader(rc, maxResponseBytes))
			rc.Close()
		}
	}
	s.coverage.Record(route.Operation.OperationID, vreq, body, status)
}

// specRequest is req with its path moved under the spec's base path, as the validator
// routes it (the target may serve the API under another prefix).
func (s *session) specRequest(req *http.Request) *http.Request {
	vreq := req.Clone(req.Context())
	vreq.URL.Path = s.specBase + strings.TrimPrefix(req.URL.Path, strings.TrimSuffix(s.base.Path, "/"))
	vreq.URL.RawPath = ""
	return vreq
}

// coverageGate says why the run's coverage is below min, or nil.
func coverageGate(c Coverage, min float64) *GateFailure {
	if min <= 0 || c.Percent >= min {
		return nil
	}
	msg := fmt.Sprintf("coverage %.0f%% (%d of %d documented operation × status pairs) is below the minimum %g%%",
		c.Percent, c.Exercised, c.Pairs, min)
	if missing := c.Missing(); len(missing) > 0 {
		msg += "; never exercised: " + strings.Join(missing, ", ")
	}
	return &GateFailure{Gate: "coverage", Message: msg}
}

// CoverageLine is the one-line summary of c that every report format shows.
func CoverageLine(c Coverage) string {
	return fmt.Sprintf("%d of %d documented operation × status pairs exercised (%.0f%%)", c.Exercised, c.Pairs, c.Percent)
}

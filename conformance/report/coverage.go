package report

import (
	"fmt"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

// Coverage is the part of the description that the traffic exercised: every documented
// operation × status pair, and the parameters and enumeration values used.
type Coverage struct {
	Pairs      int                 `json:"pairs"`     // documented operation × status pairs
	Exercised  int                 `json:"exercised"` // pairs seen at least once
	Percent    float64             `json:"percent"`   // 100 × Exercised / Pairs
	Operations []OperationCoverage `json:"operations"`
}

// OperationCoverage is the coverage of one operation.
type OperationCoverage struct {
	Operation string `json:"operation"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Requests  int    `json:"requests"`
	// Statuses lists every documented status with the times it was seen (0: never).
	Statuses []StatusCount `json:"statuses"`
	// Undocumented lists the statuses seen that the operation does not document.
	Undocumented []StatusCount `json:"undocumented,omitempty"`
	// Parameters lists every parameter, and every top-level property of the JSON request body
	// (In "body"), with the times it was sent.
	Parameters []ParameterCoverage `json:"parameters,omitempty"`
}

// StatusCount is how many times a status was seen.
type StatusCount struct {
	Status int `json:"status"`
	Count  int `json:"count"`
}

// ParameterCoverage is how often one parameter was sent, and for an enumeration, each value.
type ParameterCoverage struct {
	In     string       `json:"in"` // query, path, header, or body
	Name   string       `json:"name"`
	Count  int          `json:"count"`
	Values []ValueCount `json:"values,omitempty"`
}

// ValueCount is how many times an enumeration value was sent.
type ValueCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Missing lists the documented pairs never seen, as "operationId status".
func (c Coverage) Missing() []string {
	var out []string
	for _, op := range c.Operations {
		for _, s := range op.Statuses {
			if s.Count == 0 {
				out = append(out, fmt.Sprintf("%s %d", op.Operation, s.Status))
			}
		}
	}
	return out
}

// CoverageGate says why the run's coverage is below min, or nil.
func CoverageGate(c Coverage, min float64) *GateFailure {
	if min <= 0 || c.Percent >= min {
		return nil
	}
	msg := fmt.Sprintf("coverage %.0f%% (%d of %d documented operation × status %s) is below the minimum %g%%",
		c.Percent, c.Exercised, c.Pairs, words.Noun(c.Pairs, "pair"), min)
	if missing := c.Missing(); len(missing) > 0 {
		msg += "; never exercised: " + strings.Join(missing, ", ")
	}
	return &GateFailure{Gate: "coverage", Message: msg}
}

// CoverageLine is the one-line summary of c that every report format shows.
func CoverageLine(c Coverage) string {
	return fmt.Sprintf("%d of %d documented operation × status %s exercised (%.0f%%)", c.Exercised, c.Pairs, words.Noun(c.Pairs, "pair"), c.Percent)
}

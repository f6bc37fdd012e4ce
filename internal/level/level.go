// Package level is the one way the module writes how much a requirement weighs, below both
// the harness (a rule's and a failure's level, report.Severity) and the reference (a client
// rule's level in the test double's client report): the levels of READINGS.md, in the sense
// of RFC 2119. MUST fails a run, SHOULD warns unless strict, ADVISORY only warns, and OPEN,
// where the document is silent, never fails but for what no reading allows (a 5xx, a 4xx
// without an Error body, a 2xx that contradicts the request). Reports write a level as its
// name (MUST, SHOULD, ADVISORY, OPEN), in text and in JSON. It imports only the standard
// library.
package level

import "fmt"

// Level says how much a requirement, or a failure of it, weighs. The zero value is Must.
type Level int

// The levels, strongest first.
const (
	// Must restates the interface document: a failure makes the target non-conforming.
	Must Level = iota
	// Should comes from what the HTTP, JSON or bearer standards ask of every server (or
	// client) and the document does not mention: a failure is a warning unless strict.
	Should
	// Advisory reports a practice no normative text requires (a MAY): a failure is only a
	// warning, even when strict.
	Advisory
	// Open is where the document is silent: a failure of it is a warning at most.
	Open
)

var names = [...]string{Must: "MUST", Should: "SHOULD", Advisory: "ADVISORY", Open: "OPEN"}

// Weaker is the weaker of l and m: a failure of a SHOULD rule weighs SHOULD at most.
func (l Level) Weaker(m Level) Level { return max(l, m) }

func (l Level) String() string {
	if l < 0 || int(l) >= len(names) {
		return fmt.Sprintf("Severity(%d)", int(l))
	}
	return names[l]
}

// MarshalText writes the level as MUST, SHOULD, ADVISORY or OPEN.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads MUST, SHOULD, ADVISORY or OPEN, and INFO, the name reports and waivers
// written before the levels of READINGS.md gave ADVISORY.
func (l *Level) UnmarshalText(b []byte) error {
	if string(b) == "INFO" {
		*l = Advisory
		return nil
	}
	for i, n := range names {
		if n == string(b) {
			*l = Level(i)
			return nil
		}
	}
	return fmt.Errorf("report: unknown severity %q", b)
}

package report

import (
	"time"

	"github.com/petstore/petstore/internal/level"
)

// Severity says how much a rule's failure weighs: the levels of READINGS.md (MUST, SHOULD,
// ADVISORY, OPEN), the module's one level type (internal/level), which the reference's client
// rules carry too. A rule has one, and so does each failure it records (a generated case may
// weigh less than its rule). Reports write it as its name.
type Severity = level.Level

// Severities, strongest first, in the sense of RFC 2119.
const (
	// Must rules restate the interface document: a failure makes the target non-conforming.
	Must = level.Must
	// Should rules come from what the HTTP, JSON or bearer standards ask of every server
	// and the document does not mention: a failure is a warning unless strict.
	Should = level.Should
	// Advisory rules report a practice no normative text requires of this server (a MAY):
	// a failure is only a warning, even when strict.
	Advisory = level.Advisory
)

// Strongest is the strongest level of fs and the index of the first failure at that level;
// -1 when fs is empty.
func Strongest(fs []Failure) (Severity, int) {
	level, at := Advisory, -1
	for i, f := range fs {
		if at < 0 || f.Level < level {
			level, at = f.Level, i
		}
	}
	return level, at
}

// Waiver accepts a known failure of one rule until a date. A waivers file is a YAML list:
//
//   - rule: auth/listPets-www-authenticate
//     reason: staging gateway strips the header, PLAT-123
//     expires: 2026-06-30
type Waiver struct {
	// Rule is the ID of the rule waived.
	Rule string `json:"rule" yaml:"rule"`
	// Reason says why the failure is accepted (a ticket, an owner); it is shown in reports.
	Reason string `json:"reason" yaml:"reason"`
	// Expires is the first day (YYYY-MM-DD, UTC) on which the waiver no longer holds: from
	// then on the rule counts again and the waiver itself fails the run.
	Expires string `json:"expires" yaml:"expires"`
}

// expiry is the first instant at which w no longer holds; ParseWaivers has checked the date.
func (w Waiver) expiry() time.Time {
	t, _ := time.Parse(time.DateOnly, w.Expires)
	return t
}

// Expired reports whether w no longer holds at now (the run's clock).
func (w Waiver) Expired(now time.Time) bool { return !now.Before(w.expiry()) }

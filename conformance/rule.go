// Package conformance checks that an HTTP service implements the pet store interface. Its
// rules come from the interface document (pet-store-interface.md) and read every value they
// need (limit bounds, status values, operations, removal dates) from spec/openapi.yaml; the
// runner sends their requests with httpexpect to any base URL, validates every response
// against the spec, and writes a report as text, JSON or JUnit XML.
package conformance

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gavv/httpexpect/v2"
)

// Severity says how much a rule's failure weighs.
type Severity int

// Severities, in the sense of RFC 2119.
const (
	// Must rules restate the interface document: a failure makes the target non-conforming.
	Must Severity = iota
	// Should rules come from HTTP RFC recommendations: a failure is a warning unless strict.
	Should
	// Info rules report something worth knowing: a failure is always only a warning.
	Info
)

var severityNames = [...]string{Must: "MUST", Should: "SHOULD", Info: "INFO"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalText writes the severity as MUST, SHOULD or INFO.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads MUST, SHOULD or INFO.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n == string(b) {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("conformance: unknown severity %q", b)
}

// Needs are a rule's preconditions on the target's data, which the runner prepares before
// any rule runs (creating only the shortfall, unless the run is read-only).
type Needs struct {
	// Animals is the least number of animals the store must hold.
	Animals int `json:"animals"`
	// PerStatus is the least number of animals of every status value the store must hold.
	PerStatus int `json:"perStatus"`
	// OfStatus is the least number of animals of one status value (the first of the
	// enumeration) the store must hold.
	OfStatus int `json:"ofStatus,omitempty"`
}

// Rule is one requirement of the interface, with the check that tests it.
type Rule struct {
	// ID is "<operationId|auth|errors|versioning>/<slug>": stable, never reused, matched by
	// --only and --skip.
	ID string
	// Section is where the interface document (or an HTTP RFC) states the requirement.
	Section string
	// Severity weighs a failure: Must fails the run, Should warns unless strict.
	Severity Severity
	// Title restates the requirement in one sentence.
	Title string
	// Op is the operationId the rule exercises, "" if none. Its stability marking turns
	// failures into warnings, and its removal date decides whether the rule runs.
	Op string
	// Expects is the documented response status the check requires (401 for the auth rules,
	// 404 for an unknown id...), 0 when none; `conformance lint` reports a rule whose status
	// the spec no longer documents for Op.
	Expects int
	// Needs are the animals the rule expects the store to hold.
	Needs Needs
	// Creates says the check itself sends requests that create animals (or would, on a
	// non-conforming target); --read-only skips such rules.
	Creates bool
	// Open marks a probe of what the document leaves open (an out-of-range limit, say): a
	// 4xx answer passes validation with any status as long as its body is an Error record.
	Open bool
	// Gone marks a rule about Op after its removal date: it runs only on and after that
	// date, and the operation's other rules run only before it.
	Gone bool
	// Check runs the requests and assertions through c.
	Check func(c *Check)
}

// Clients are the two httpexpect clients a check uses, both rooted at the target's base URL.
type Clients struct {
	// Anon sends no Authorization header (auth rules add their own).
	Anon *httpexpect.Expect
	// Auth sends Authorization: Bearer <key>.
	Auth *httpexpect.Expect
}

// Check is what a rule's check receives: clients whose assertions and responses are
// recorded into the rule's result, the run's clock, and the animals prepared for it.
type Check struct {
	Clients
	// Ctx is the run's context.
	Ctx context.Context
	// Now is the run's clock (--now), which decides whether removed operations are gone.
	Now time.Time
	// Fixture holds the animals present after preparation.
	Fixture *Fixture
	// BaseURL is the target's base URL, without a trailing slash.
	BaseURL string

	rec  *recorder
	key  string
	wait func(context.Context, time.Duration) error
	// send sends a request built by hand through the run's session, recorded into the
	// rule's current recorder; open relaxes validation as Rule.Open does.
	send  func(rec *recorder, req *http.Request, open bool) (*http.Response, error)
	cases *caseState
}

// Fixture is what the runner found (and created) before the rules ran: raw JSON objects as
// the target returned them (numbers as json.Number), in listing order.
type Fixture struct {
	// Pets is the listing with the maximum limit.
	Pets []map[string]any
	// ByStatus is the listing filtered by each status value.
	ByStatus map[string][]map[string]any
}

// Failf records a failure of the rule with a message; the check goes on.
func (c *Check) Failf(format string, args ...any) {
	c.rec.fail(Failure{Message: fmt.Sprintf(format, args...)})
}

// Expectf records a failure stating what was expected and what came back.
func (c *Check) Expectf(expected, actual, format string, args ...any) {
	c.rec.fail(Failure{Message: fmt.Sprintf(format, args...), Expected: expected, Actual: actual})
}

// Skipf ends the check and marks the rule skipped with the reason.
func (c *Check) Skipf(format string, args ...any) {
	panic(skipSignal{reason: fmt.Sprintf(format, args...)})
}

// Failed reports whether the rule has failed so far.
func (c *Check) Failed() bool { return c.rec.failed() }

type skipSignal struct{ reason string }

// sendRaw sends req, built by hand, as the rule's clients do: recorded, validated against the
// spec, its body readable again from the response.
func (c *Check) sendRaw(req *http.Request, open bool) (*http.Response, error) {
	return c.send(c.rec, req, open)
}

// probe runs fn with a scratch recorder and reports whether it failed: shrinking tries
// candidates without reporting them.
func (c *Check) probe(fn func()) bool {
	saved := c.rec
	c.rec = &recorder{redact: saved.redact}
	defer func() { c.rec = saved }()
	fn()
	return c.rec.failed()
}

// readAll returns a response body the session already read into memory.
func readAll(resp *http.Response) []byte {
	b, _ := io.ReadAll(resp.Body)
	return b
}

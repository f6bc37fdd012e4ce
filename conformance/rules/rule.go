// Package rules is the catalogue: every requirement of the interface document the harness
// checks, one file per part of the document, each rule citing its section. Rules read every
// value they need (limit bounds, status values, operations, removal dates) from the
// description's facts, and see only what a check needs: clients, the fixture, the clock and
// those facts, never the runner or the session. A rule runs one way, through Check: a
// hand-written rule asserts with httpexpect, a family of generated cases (conformance/cases)
// sends its cases. A rule judges the server; what judges only the spec is conformance lint's.
package rules

import (
	"fmt"

	"github.com/gavv/httpexpect/v2"
	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/report"
)

// Severity weighs a rule's failure (report.Severity: MUST, SHOULD, ADVISORY).
type Severity = report.Severity

// The severities, in the sense of RFC 2119 and READINGS.md.
const (
	Must     = report.Must
	Should   = report.Should
	Advisory = report.Advisory
)

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
	// Listed says the animals must be ones the listing shows: animals the run created, known
	// by their 201 answers only, do not stand in for them.
	Listed bool `json:"listed,omitempty"`
}

// OfListing reports whether the needs are of what the listing shows: counts beyond one
// animal, animals of a status, or an animal as listed. One animal to ask for by id is not.
func (n Needs) OfListing() bool {
	return n.Listed || n.Animals > 1 || n.PerStatus > 0 || n.OfStatus > 0
}

// Rule is one requirement of the interface, with the check that tests it.
type Rule struct {
	// ID is "<operationId|auth|errors|versioning>/<slug>": stable, never reused, matched by
	// --only and --skip.
	ID string
	// Section is where the interface document (or an HTTP RFC) states the requirement.
	Section string
	// Uses are the facts of the interface document (internal/document) whose values the rule
	// takes from the spec: where the spec departs from one, the rule cites the spec's node
	// instead of Section (cite).
	Uses []string
	// Severity weighs a failure: Must fails the run, Should warns unless strict, Advisory
	// only warns. A failure its check records at a weaker level (a generated case the
	// readings put at SHOULD) weighs that level.
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
	// Unsafe says the check sends requests of methods that may change the store (POST and
	// the like) even when Creates is false: generated cases, most of which a conforming
	// service refuses, and a read-only run sends those that create nothing.
	Unsafe bool
	// Open marks a probe of what the document leaves open (an out-of-range limit, say): a
	// 4xx answer passes validation with any status as long as its body is an Error record.
	Open bool
	// Gone marks a rule about Op after its removal date: it runs only on and after that
	// date, and the operation's other rules run only before it.
	Gone bool
	// Run sends the rule's requests and judges the answers through c: a hand-written
	// check's assertions, or a family's generated cases (Family).
	Run func(c *Check)
	// Cost is what the rule sends at a depth, its cases and its requests; nil for a
	// hand-written rule, which sends a few.
	Cost func(d cases.Depth) (cases, requests int)
}

// Writes reports whether the rule may change the store: the runner judges the store
// with the rules that do not before it runs those that do.
func (r Rule) Writes() bool { return r.Creates || r.Unsafe }

// Clients are the two httpexpect clients a check uses, both rooted at the target's base URL.
type Clients struct {
	// Anon sends no Authorization header (auth rules add their own).
	Anon *httpexpect.Expect
	// Auth sends Authorization: Bearer <key>.
	Auth *httpexpect.Expect
}

// Check is what a rule's run receives: the run's environment (its clock, the animals
// prepared for it, the budget), clients whose assertions and responses are recorded into
// the rule's result, and the sender a family's cases go through.
type Check struct {
	cases.Env
	Clients

	to  cases.Sender
	out cases.Outcome
}

// NewCheck returns the check of one rule, which sends and records through to.
func NewCheck(env cases.Env, clients Clients, to cases.Sender) *Check {
	return &Check{Env: env, Clients: clients, to: to}
}

// Fixture is what the runner found (and created) before the rules ran (cases.Fixture).
type Fixture = cases.Fixture

// Family is the rule of a family of generated cases: its run sends the cases and judges
// them in conformance/cases.
func Family(fam *cases.Family, uses []string) Rule {
	return Rule{ID: fam.ID, Section: fam.Section, Uses: uses, Severity: Must, Title: fam.Title, Op: fam.Op,
		Needs: Needs{Animals: fam.Animals, PerStatus: fam.PerStatus}, Unsafe: fam.Unsafe,
		Run:  func(c *Check) { c.out = fam.Run(c.Env, c.to) },
		Cost: fam.Cost}
}

// fail records the findings of the shared judge (conformance/judge).
func (c *Check) fail(fs []report.Failure) {
	for _, f := range fs {
		c.to.Fail(f)
	}
}

// Expectf records a failure stating what was expected and what came back, in the rule's
// own words, for what httpexpect's assertions do not state: a comparison across two answers
// or of an answer with what was sent; a value decoded as the harness decodes it (ids as
// json.Number); a header's grammar; a status of one of two classes ("a 4xx with an Error
// body, or a 2xx"); a precondition of the rule that is not its requirement ("want a 401 to
// look at"); a listing preparation kept. A status, the shape of a body, a count or a field
// of one answer a check asserts with httpexpect.
func (c *Check) Expectf(expected, actual, format string, args ...any) {
	c.ExpectAtf(Must, expected, actual, format, args...)
}

// ExpectAtf is Expectf for a failure that weighs level at most (the rule's Severity still
// caps it): a generated case the readings put at SHOULD, say.
func (c *Check) ExpectAtf(level Severity, expected, actual, format string, args ...any) {
	c.to.Fail(report.Failure{Level: level, Message: fmt.Sprintf(format, args...), Expected: expected, Actual: actual})
}

// Skipf ends the check and marks the rule skipped with the reason.
func (c *Check) Skipf(format string, args ...any) {
	panic(skipSignal{reason: fmt.Sprintf(format, args...)})
}

// needPets ends the check, skipped, when the fixture holds fewer than n animals (only when
// preparation failed: otherwise the rule's Needs saw to it).
func (c *Check) needPets(n int) {
	if len(c.Fixture.Pets) < n {
		c.Skipf("the store shows fewer than %d animals, and preparation failed", n)
	}
}

// Failed reports whether the rule has failed so far.
func (c *Check) Failed() bool { return c.to.FailureCount() > 0 }

type skipSignal struct{ reason string }

// Execute runs rule on c and returns what it counted: the cases a family sent and those it
// did not, the reason a rule gave for skipping, what a rule that panicked said.
func Execute(rule Rule, c *Check) (out cases.Outcome) {
	defer func() {
		if v := recover(); v != nil {
			if s, ok := v.(skipSignal); ok {
				out.Skip = s.reason
				return
			}
			out.Panicked = fmt.Sprint(v)
		}
	}()
	rule.Run(c)
	return c.out
}

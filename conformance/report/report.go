// Package report is the result model of a conformance run (Report, Result, Failure, Exchange,
// Status, Severity, Coverage) and every writer of it: text, JSON, JUnit, HTML and Markdown.
// It depends on nothing but the standard library, so that a writer reads only the model.
package report

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Status is the outcome of one rule.
type Status string

// Outcomes of a rule.
const (
	Pass Status = "pass"
	// Fail: a Must rule failed, or a Should rule failed in a strict run.
	Fail Status = "fail"
	// Warn: the rule's failures are all SHOULD (and the run is not strict) or ADVISORY, or
	// a rule about an operation marked experimental or beta failed; the run still conforms.
	Warn Status = "warn"
	// Skip: the rule did not run (read-only run, removal date, missing animals); Reason says why.
	Skip Status = "skip"
	// Error: the rule could not be evaluated (its preconditions failed, or its check panicked).
	Error Status = "error"
	// Waived: the rule failed or warned, and a waiver in force names it (Result.Waiver); it
	// does not count against the run.
	Waived Status = "waived"
)

// Verdicts of a run.
const (
	Conforming    = "conforming"
	NotConforming = "not conforming"
)

// NotRun is the verdict of a run that could not be made (exit 2): the report has no results,
// and its one gate failure, "run", says why.
const NotRun = "could not be made"

// CannotJudge is the verdict of a run that stopped before its end (exit 2): interrupted, or
// the target unavailable, rate limiting beyond the wait budget, or gone. The results hold
// what was judged before that point, the rest marked not judged; the gate failure "run"
// says why.
const CannotJudge = "cannot judge"

// KeyPlaceholder stands for the API key in every report and curl line; the key itself is
// never written.
const KeyPlaceholder = "$PETSTORE_API_KEY"

// StatusText is an HTTP status with its text, "404 Not Found".
func StatusText(code int) string { return fmt.Sprintf("%d %s", code, http.StatusText(code)) }

// StatusList is codes as StatusText, joined by "or" ("400 Bad Request or 404 Not Found").
func StatusList(codes []int) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = StatusText(c)
	}
	return strings.Join(parts, " or ")
}

// Report is the outcome of one run. Its JSON form (field names below) is stable.
type Report struct {
	// Target is the base URL the rules ran against.
	Target string `json:"target"`
	// SpecTitle and SpecVersion identify the description the rules were read from.
	SpecTitle   string `json:"specTitle"`
	SpecVersion string `json:"specVersion"`
	// Started is when the run began; Clock is the run's notion of now (--now).
	Started time.Time `json:"started"`
	Clock   time.Time `json:"clock"`
	// DurationMS is the wall-clock duration of the run in milliseconds.
	DurationMS float64 `json:"durationMs"`
	Strict     bool    `json:"strict"`
	ReadOnly   bool    `json:"readOnly"`
	// KeyElsewhere: the run offered the key outside the Authorization header (query
	// strings, cookies, other fields) to check that the service refuses it there.
	KeyElsewhere bool `json:"keyElsewhere"`
	// AnimalsCreated counts the animals the run created (preparation and rules together).
	AnimalsCreated int `json:"animalsCreated"`
	// AnimalsRemoved counts the animals of the run's own it removed again (its cases'
	// deletes and, unless --keep, the clean-up at the end); AnimalsLeft those it created
	// and left in the store.
	AnimalsRemoved int `json:"animalsRemoved"`
	AnimalsLeft    int `json:"animalsLeft"`
	// NotJudged says what a read-only run could not judge, in a line each.
	NotJudged []string `json:"notJudged,omitempty"`
	// Requests counts the requests the run sent (preparation, rules, cases, retries).
	Requests int `json:"requests"`
	// Provenance is what reproduces the run: the harness version, the description's
	// sha256, the seed and the command line's flags (the key masked).
	Provenance Provenance `json:"provenance"`
	// Seed drives the generated cases' names and the random combinations (--fuzz): the same
	// seed and version send the same requests. Fuzz is how many combinations were asked for.
	Seed uint64 `json:"seed"`
	Fuzz int    `json:"fuzz,omitempty"`
	// MaxCreates is the most animals the run was allowed to create.
	MaxCreates int `json:"maxCreates"`
	// AnimalsFound counts the animals present before the run created any (at most the
	// maximum limit, as one listing shows them).
	AnimalsFound int    `json:"animalsFound"`
	Counts       Counts `json:"counts"`
	// MustTotal counts the run's MUST rules, MustUnjudged those of them it could not judge
	// (skipped or error). A conforming run that judged less than MinJudged of its MUST rules
	// is conforming only as far as it judged, and every report says so (VerdictLine).
	MustTotal    int      `json:"mustTotal"`
	MustUnjudged int      `json:"mustUnjudged"`
	Verdict      string   `json:"verdict"`
	Results      []Result `json:"results"`
	// Coverage is what the run exercised of the description: every documented operation ×
	// status pair, parameters and enumeration values, counted over every exchange
	// (preparation and passing rules included).
	Coverage Coverage `json:"coverage"`
	// MinCoverage is the least percentage of pairs the run had to exercise (0: no minimum).
	MinCoverage float64 `json:"minCoverage,omitempty"`
	// GateFailures are what failed the run besides its rules: an expired waiver, coverage
	// below MinCoverage.
	GateFailures []GateFailure `json:"gateFailures,omitempty"`
	// UnneededWaivers are the waivers in force whose rule passed: the fault they accepted is
	// gone, and the waiver can be removed. They fail nothing.
	UnneededWaivers []Waiver `json:"unneededWaivers,omitempty"`
	// Causes group the failures by message and spec node, the largest first.
	Causes []Cause `json:"causes,omitempty"`
	// ConnectionCloses are the answers after which the target dropped its kept-alive
	// connection without saying so ("Connection: close"), so that the next request sent on
	// it got no answer and was sent again on a fresh connection. ADVISORY: HTTP lets a
	// server close a connection at any time (RFC 9112 9.5), but its clients lose requests.
	ConnectionCloses []ConnectionClose `json:"connectionCloses,omitempty"`
	// Resent counts the requests sent again on a fresh connection; WaitedOut the 429 and
	// 503 answers waited out, and WaitedMS the time waited for them.
	Resent    int     `json:"resent,omitempty"`
	WaitedOut int     `json:"waitedOut,omitempty"`
	WaitedMS  float64 `json:"waitedMs,omitempty"`
}

// ConnectionClose is one kind of answer after which the target dropped a kept-alive
// connection, with the request that got it.
type ConnectionClose struct {
	// After is the answer and its request: "500 Internal Server Error to POST /v1/pets".
	After string `json:"after"`
	// Count is how many times a request sent next on such a connection got no answer.
	Count int    `json:"count"`
	Curl  string `json:"curl"`
}

// GateFailure is a condition of the run, not a rule, that failed it.
type GateFailure struct {
	// Gate is "coverage" or "waiver/<rule ID>".
	Gate    string `json:"gate"`
	Message string `json:"message"`
}

// Counts are the number of rules per outcome.
type Counts struct {
	Total int `json:"total"`
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
	// Waived counts the failures and warnings that a waiver turned into Waived.
	Waived int `json:"waived"`
	// NotRun counts the rules the run stopped before they judged (interrupted, --fail-fast, a
	// target no longer judgeable): not among Skip, which the rule decided.
	NotRun int `json:"notRun,omitempty"`
}

// Result is the outcome of one rule.
type Result struct {
	ID       string   `json:"id"`
	Section  string   `json:"section"`
	Severity Severity `json:"severity"`
	// Level is what the rule's outcome weighed: the strongest level of its failures, or its
	// Severity when it has none. A MUST rule whose failures are all of generated cases the
	// readings put at SHOULD weighs SHOULD.
	Level Severity `json:"level"`
	Title string   `json:"title"`
	// Stability is the marking of the rule's operation ("experimental", "beta"), if any.
	Stability string `json:"stability,omitempty"`
	Status    Status `json:"status"`
	// DurationMS is how long the rule took, in milliseconds, from the runner's start of it to
	// its result (a skip takes next to nothing).
	DurationMS float64 `json:"durationMs,omitempty"`
	// Inapplicable marks a rule skipped because it does not apply at the run's clock (about
	// an operation before or after its removal date): it is not counted among the MUST
	// rules a run could not judge.
	Inapplicable bool `json:"inapplicable,omitempty"`
	// NotRun marks a skipped rule the run stopped before it judged: it never started, or was
	// cut off before it showed a fault (Reason says why the run stopped).
	NotRun bool `json:"notRun,omitempty"`
	// Cases counts the generated cases the rule sent; CasesSkipped those it did not send
	// (a read-only run, --max-creates reached), with the reason in Reason when it passed.
	Cases        int `json:"cases,omitempty"`
	CasesSkipped int `json:"casesSkipped,omitempty"`
	// Reason explains a skip, an error, or a warning (labelled with the marking).
	Reason   string    `json:"reason,omitempty"`
	Failures []Failure `json:"failures,omitempty"`
	// Waiver is the waiver that turned the result into Waived.
	Waiver *Waiver `json:"waiver,omitempty"`
	// Exchanges are the requests and responses of a rule that did not pass.
	Exchanges []Exchange `json:"exchanges,omitempty"`
}

// Failure is one thing that went wrong in a rule.
type Failure struct {
	// Level is what the failure weighs: the weaker of its rule's Severity and the level
	// its check gave it (a generated case's, say).
	Level    Severity `json:"level"`
	Message  string   `json:"message"`
	Expected string   `json:"expected,omitempty"`
	Actual   string   `json:"actual,omitempty"`
	// Pointer is the JSON pointer of the spec node a response broke, e.g.
	// #/components/schemas/Pet/required.
	Pointer string `json:"pointer,omitempty"`
	// Location is where in the message the violation sits, e.g. body/0/categoryId.
	Location string `json:"location,omitempty"`
	// Exchange indexes Result.Exchanges: the exchange the failure concerns, -1 if none.
	Exchange int `json:"exchange"`
	// Case describes the generated request variant that failed, in words; CaseSection is
	// the part of the interface document its verdict comes from, Verdict that verdict
	// (reject, accept, open) and Reasoning why, where two statements of the document meet.
	Case        string `json:"case,omitempty"`
	CaseSection string `json:"caseSection,omitempty"`
	Verdict     string `json:"verdict,omitempty"`
	Reasoning   string `json:"reasoning,omitempty"`
}

// SaysExpectedAndActual reports whether the message already states what was expected and
// what came back ("want status 401 Unauthorized, got 200 OK"), or neither is known: a report
// then shows the message alone, not the same values again under it.
func (f Failure) SaysExpectedAndActual() bool {
	return strings.Contains(f.Message, f.Expected) && strings.Contains(f.Message, f.Actual)
}

// Exchange is one request and its response (or the error that replaced it). The API key
// never appears: it is written as $PETSTORE_API_KEY.
type Exchange struct {
	Request  ExchangeRequest   `json:"request"`
	Response *ExchangeResponse `json:"response,omitempty"`
	Error    string            `json:"error,omitempty"`
	// Curl reproduces the request; it reads the key from $PETSTORE_API_KEY.
	Curl string `json:"curl"`
}

// ExchangeRequest is a request as sent.
type ExchangeRequest struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"header,omitempty"`
	Body   string      `json:"body,omitempty"`
}

// ExchangeResponse is a response as received; Body is cut at 64 KiB (Truncated).
type ExchangeResponse struct {
	Status    int         `json:"status"`
	Header    http.Header `json:"header,omitempty"`
	Body      string      `json:"body,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
}

// Result returns the result of the rule id.
func (r *Report) Result(id string) (Result, bool) {
	for _, res := range r.Results {
		if res.ID == id {
			return res, true
		}
	}
	return Result{}, false
}

// Conforming reports whether no rule failed or errored and no gate failed.
func (r *Report) Conforming() bool {
	return r.Counts.Fail == 0 && r.Counts.Error == 0 && len(r.GateFailures) == 0
}

// MinJudged is the least share of its MUST rules a run must judge (pass, fail or waive,
// not skip and not error) for its reports to call it CONFORMING without a qualifier: a
// read-only run on a small store, or one whose preparation failed, may judge far fewer,
// and "conforming" would then say more than the run found out.
const MinJudged = 0.8

// Tally counts the results, groups the failures into causes and sets the verdict.
func (r *Report) Tally() {
	r.Causes = causes(r.Results)
	r.Counts = Counts{}
	r.MustTotal, r.MustUnjudged = 0, 0
	for _, res := range r.Results {
		r.Counts.add(res)
		if res.Severity == Must && !res.Inapplicable {
			r.MustTotal++
			if res.Status == Skip || res.Status == Error {
				r.MustUnjudged++
			}
		}
	}
	r.Verdict = Conforming
	if !r.Conforming() {
		r.Verdict = NotConforming
	}
}

// FullyJudged reports whether the run judged at least MinJudged of its MUST rules.
func (r *Report) FullyJudged() bool {
	return float64(r.MustTotal-r.MustUnjudged) >= MinJudged*float64(r.MustTotal)
}

// VerdictLine is the verdict as the reports state it, with how many MUST rules the run
// did not judge: "CONFORMING", "CONFORMING, but 3 of 69 MUST rules were not judged
// (skipped or error)", "CONFORMING AS FAR AS JUDGED: 27 of 69 MUST rules were not judged
// (skipped or error), more than the 20% a full verdict allows", "NOT CONFORMING; 11 of 69
// MUST rules were not judged (skipped or error)". The exit code follows Verdict alone.
func VerdictLine(r *Report) string {
	head, unjudged := verdictHead(r), unjudgedPhrase(r)
	switch {
	case unjudged == "" || r.Verdict == NotRun || r.Verdict == CannotJudge:
		return head
	case !r.Conforming():
		return head + "; " + unjudged
	case !r.FullyJudged():
		return head + ": " + unjudged + tooFew
	}
	return head + ", but " + unjudged
}

// tooFew follows the count of MUST rules not judged when they are too many for a full verdict.
var tooFew = fmt.Sprintf(", more than the %.0f%% a full verdict allows", 100*(1-MinJudged))

// unjudgedLine is the text report's line before its summary: how many MUST rules the run
// did not judge, and whether that is too many for a full verdict; "" when it judged all.
func unjudgedLine(r *Report) string {
	u := unjudgedPhrase(r)
	switch {
	case u == "" || r.Verdict == NotRun:
		return ""
	case r.Conforming() && !r.FullyJudged():
		return u + tooFew + ": the run is conforming only as far as it judged"
	}
	return u
}

// verdictHead is the verdict in capitals: CONFORMING, CONFORMING AS FAR AS JUDGED, NOT
// CONFORMING, COULD NOT BE MADE.
func verdictHead(r *Report) string {
	switch {
	case r.Verdict == NotRun:
		return "COULD NOT BE MADE"
	case r.Verdict == CannotJudge:
		return "CANNOT JUDGE"
	case !r.Conforming():
		return "NOT CONFORMING"
	case !r.FullyJudged():
		return "CONFORMING AS FAR AS JUDGED"
	}
	return "CONFORMING"
}

// unjudgedPhrase says how many MUST rules the run did not judge, or "" when it judged all.
func unjudgedPhrase(r *Report) string {
	if r.MustUnjudged == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d MUST rules %s not judged (skipped or error)", r.MustUnjudged, r.MustTotal,
		map[bool]string{true: "was", false: "were"}[r.MustUnjudged == 1])
}

func (c *Counts) add(res Result) {
	c.Total++
	if res.NotRun {
		c.NotRun++
		return
	}
	switch res.Status {
	case Pass:
		c.Pass++
	case Fail:
		c.Fail++
	case Warn:
		c.Warn++
	case Skip:
		c.Skip++
	case Error:
		c.Error++
	case Waived:
		c.Waived++
	}
}

// of returns the count of one outcome.
func (c Counts) of(st Status) int {
	return map[Status]int{Pass: c.Pass, Fail: c.Fail, Warn: c.Warn, Skip: c.Skip, Error: c.Error, Waived: c.Waived}[st]
}

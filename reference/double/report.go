package double

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/petstore/petstore/internal/clientrules"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The client report: what a client did with the interface and what it did wrong, per
// operation, for the CI of a client project (GET /_admin/report, --client-report).

// ClientReport says, per operation of the spec, how a client used it.
type ClientReport struct {
	Requests   int               `json:"requests"`
	Operations []OperationReport `json:"operations"` // the spec's operations, then requests that matched none
	Warnings   []string          `json:"warnings"`   // what the client must change, such as a deprecated operation it calls
	// Rules are the client rules (rules.go), each with the requests that broke it.
	Rules []ClientRule `json:"rules"`
	// Verdict is "pass", or "fail" when the client broke a MUST rule.
	Verdict string `json:"verdict"`
}

// OperationReport is one operation's share of a ClientReport.
type OperationReport struct {
	Operation string `json:"operation"` // operationId; "" for requests that matched no operation
	Method    string `json:"method,omitempty"`
	Path      string `json:"path,omitempty"`
	Calls     int    `json:"calls"`
	// Statuses counts the answers by status, chosen ones included.
	Statuses map[int]int `json:"statuses"`
	// Rejected counts the 4xx answers the request earned (not chosen, not 429).
	Rejected int         `json:"rejected"`
	Reasons  []Rejection `json:"reasons"` // the rejections grouped by status, code and message
	// Deprecated is set for a deprecated operation.
	Deprecated *Deprecation `json:"deprecated,omitempty"`
}

// Rejection is one reason requests were refused, and how many were.
type Rejection struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// Deprecation is what the spec says about a deprecated operation's end.
type Deprecation struct {
	Sunset      string `json:"sunset,omitempty"`      // the removal date, 2030-12-05
	Replacement string `json:"replacement,omitempty"` // the operationId to move to
	// CallsAfterSunset counts the calls made on and after the removal date (server clock).
	CallsAfterSunset int `json:"callsAfterSunset"`
}

// maxReasons bounds the distinct rejection reasons kept per operation (messages quote the
// client's values, so they are many); the rest are counted under otherReasons.
const maxReasons = 20

const otherReasons = "(other messages)"

// tally counts what the report says; unlike the journal it keeps no request, so its memory
// is bounded by the number of operations and maxReasons.
type tally struct {
	mu    sync.Mutex
	ops   []spec.Operation
	base  string
	total int
	by    map[string]*opCount // by operationId; "" for no operation
	rules []ClientRule        // the client rules, with what broke them
}

type opCount struct {
	calls, rejected, afterSunset int
	statuses                     map[int]int
	reasons                      map[Rejection]int // Count zero in the key
}

func newTally(ops []spec.Operation, base string, rules []ClientRule) *tally {
	return &tally{ops: ops, base: base, by: map[string]*opCount{}, rules: rules}
}

// broke counts the client rules one request broke: a rule once, however many of its
// findings the request gave (no Authorization header and the key in the query is one
// request that broke auth-bearer), so that a rule's count is of requests.
func (t *tally) broke(fs []clientrules.Finding) {
	if len(fs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	counted := map[string]bool{}
	for _, f := range fs {
		for i := range t.rules {
			if r := &t.rules[i]; r.ID == f.Rule {
				if !counted[r.ID] {
					counted[r.ID] = true
					r.Violations++
				}
				if len(r.Examples) < maxRuleExamples {
					r.Examples = append(r.Examples, f.Message)
				}
			}
		}
	}
}

// count adds one answered request. rejected says it was refused for what it was.
func (t *tally) count(op string, status int, e *core.Error, rejected bool, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total++
	c := t.by[op]
	if c == nil {
		c = &opCount{statuses: map[int]int{}, reasons: map[Rejection]int{}}
		t.by[op] = c
	}
	c.calls++
	c.statuses[status]++
	for _, o := range t.ops {
		if o.ID == op && o.Gone(at) {
			c.afterSunset++
		}
	}
	if !rejected {
		return
	}
	c.rejected++
	r := Rejection{Status: status}
	if e != nil {
		r.Code, r.Message = e.Code, e.Message
	}
	if _, ok := c.reasons[r]; !ok && len(c.reasons) >= maxReasons {
		r = Rejection{Status: 0, Message: otherReasons}
	}
	c.reasons[r]++
}

// report builds the ClientReport.
func (t *tally) report() ClientReport {
	t.mu.Lock()
	defer t.mu.Unlock()
	rep := ClientReport{Requests: t.total, Operations: []OperationReport{}, Warnings: []string{}, Verdict: "pass"}
	for _, r := range t.rules {
		r.Examples = append([]string{}, r.Examples...)
		rep.Rules = append(rep.Rules, r)
	}
	if len(rep.MustBroken()) > 0 {
		rep.Verdict = "fail"
	}
	for _, o := range t.ops {
		or := t.opReport(o.ID)
		or.Method, or.Path = o.Method, t.base+o.Path
		if o.Deprecated {
			or.Deprecated = &Deprecation{Replacement: o.ReplacedBy}
			if !o.Sunset.IsZero() {
				or.Deprecated.Sunset = o.Sunset.Format(time.DateOnly)
			}
			if c := t.by[o.ID]; c != nil {
				or.Deprecated.CallsAfterSunset = c.afterSunset
			}
			if or.Calls > 0 {
				rep.Warnings = append(rep.Warnings, t.migrate(o, or))
			}
		}
		rep.Operations = append(rep.Operations, or)
	}
	if t.by[""] != nil {
		rep.Operations = append(rep.Operations, t.opReport(""))
	}
	return rep
}

func (t *tally) opReport(id string) OperationReport {
	or := OperationReport{Operation: id, Statuses: map[int]int{}, Reasons: []Rejection{}}
	c := t.by[id]
	if c == nil {
		return or
	}
	or.Calls, or.Rejected = c.calls, c.rejected
	for s, n := range c.statuses {
		or.Statuses[s] = n
	}
	for r, n := range c.reasons {
		r.Count = n
		or.Reasons = append(or.Reasons, r)
	}
	slices.SortFunc(or.Reasons, func(a, b Rejection) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(fmt.Sprint(a.Status, a.Code, a.Message), fmt.Sprint(b.Status, b.Code, b.Message))
	})
	return or
}

// migrate is the warning for a deprecated operation the client calls.
func (t *tally) migrate(o spec.Operation, or OperationReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s %s) is deprecated", o.ID, o.Method, or.Path)
	if !o.Sunset.IsZero() {
		fmt.Fprintf(&b, " and is removed on %s", o.Sunset.Format(time.DateOnly))
	}
	fmt.Fprintf(&b, "; the client called it %s", times(or.Calls))
	if n := or.Deprecated.CallsAfterSunset; n > 0 {
		fmt.Fprintf(&b, " (%s on or after the removal date)", times(n))
	}
	b.WriteString(": move to ")
	if r := t.find(o.ReplacedBy); r != nil {
		fmt.Fprintf(&b, "%s (%s %s)", r.ID, r.Method, t.base+r.Path)
	} else {
		b.WriteString(core.Replacement(o))
	}
	return b.String()
}

func (t *tally) find(id string) *spec.Operation {
	for i := range t.ops {
		if t.ops[i].ID == id {
			return &t.ops[i]
		}
	}
	return nil
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

// WriteMarkdown writes the report as Markdown, for a CI job summary or a pull request.
func (r ClientReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	verdict := "pass: no MUST rule broken"
	if r.Verdict != "pass" {
		verdict = r.Verdict + ": the client broke a MUST rule"
	}
	fmt.Fprintf(&b, "# Client report\n\n%s.\n\nVerdict: **%s**.\n\n", words.Plural(r.Requests, "request"), verdict)
	if broken := r.MustBroken(); len(broken) > 0 {
		b.WriteString("## MUST rules broken\n\n")
		for _, rule := range broken {
			fmt.Fprintf(&b, "- **%s**\n", mdEscape(rule.String()))
		}
		b.WriteString("\n")
	}
	if len(r.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, warn := range r.Warnings {
			fmt.Fprintf(&b, "- **%s**\n", mdEscape(warn))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Operations\n\n| Operation | Calls | Rejected | Answers |\n|---|---:|---:|---|\n")
	for _, o := range r.Operations {
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", mdEscape(o.label()), o.Calls, o.Rejected, statusCounts(o.Statuses))
	}
	if len(r.Rules) > 0 {
		b.WriteString("\n## Client rules\n\n| Rule | Level | Section | Violations | First |\n|---|---|---|---:|---|\n")
		for _, rule := range r.Rules {
			first := ""
			if len(rule.Examples) > 0 {
				first = rule.Examples[0]
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", rule.ID, rule.Level, rule.Section, rule.Violations, mdEscape(first))
		}
	}
	var reasons strings.Builder
	for _, o := range r.Operations {
		for _, x := range o.Reasons {
			fmt.Fprintf(&reasons, "| %s | %d | %s | %s | %d |\n", mdEscape(o.label()), x.Status, x.Code, mdEscape(x.Message), x.Count)
		}
	}
	if reasons.Len() > 0 {
		b.WriteString("\n## Rejected requests\n\n| Operation | Status | Code | Message | Count |\n|---|---:|---|---|---:|\n")
		b.WriteString(reasons.String())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (o OperationReport) label() string {
	if o.Operation == "" {
		return "(no operation)"
	}
	return fmt.Sprintf("%s (%s %s)", o.Operation, o.Method, o.Path)
}

// statusCounts is "200 ×3, 404 ×1", in status order.
func statusCounts(m map[int]int) string {
	statuses := make([]int, 0, len(m))
	for s := range m {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		parts[i] = fmt.Sprintf("%d ×%d", s, m[s])
	}
	return strings.Join(parts, ", ")
}

// mdEscape keeps a text inside one table cell or list item.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

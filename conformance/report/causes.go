package report

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

// Cause is one message on one spec node that explains failures: generated cases multiply a
// fault (error bodies without status fail every case that gets an error), so reports lead
// with the causes and the count of cases and rules each explains.
type Cause struct {
	// Level is the level of its failures: failures of one message at different levels are
	// different causes.
	Level Severity `json:"level"`
	// Message is the failure's message with the values that differ between cases (numbers,
	// quoted text) left as they came in the example.
	Message string `json:"message"`
	// Pointer is the spec node the failures broke, if any.
	Pointer string `json:"pointer,omitempty"`
	// Failures counts the failures (cases, or checks of a hand-written rule) it explains.
	Failures int `json:"failures"`
	// Rules are the IDs of the rules it failed, in report order.
	Rules []string `json:"rules"`
	// Example is one failure to reproduce: its rule, its case (if generated) and curl line.
	Example CauseExample `json:"example"`
}

// CauseExample is the first failure of a cause.
type CauseExample struct {
	Rule string `json:"rule"`
	Case string `json:"case,omitempty"`
	Curl string `json:"curl,omitempty"`
}

// values are what varies between failures of one cause: numbers and quoted strings.
var values = regexp.MustCompile(`"[^"]*"|'[^']*'|-?\b\d+(\.\d+)?\b`)

// BlankValues is message with what varies between failures of one cause (numbers, quoted
// text) replaced by "…": the key reports group causes by, and the zoo records failures by.
func BlankValues(message string) string { return values.ReplaceAllString(message, "…") }

// causeKey is the message with its values blanked, the pointer and the level.
func causeKey(f Failure) string {
	return BlankValues(f.Message) + "\x00" + f.Pointer + "\x00" + f.Level.String()
}

// causes groups the failures of the rules that failed or warned by cause (a waived failure
// is already accounted for), the causes that explain the most failures first (ties in
// report order).
func causes(results []Result) []Cause {
	var out []Cause
	index := map[string]int{}
	for _, res := range results {
		if res.Status != Fail && res.Status != Warn && res.Status != Error {
			continue
		}
		failures := res.Failures
		if res.Status == Error {
			// What kept the rule from a verdict (no answer in time, a check that panicked) is
			// grouped like a failure: a target that times out on one kind of request shows as
			// one cause, not as rows scattered through the report.
			failures = append(slices.Clone(failures), Failure{Level: res.Severity, Message: res.Reason, Exchange: len(res.Exchanges) - 1})
		}
		for _, f := range failures {
			k := causeKey(f)
			i, ok := index[k]
			if !ok {
				i = len(out)
				index[k] = i
				ex := CauseExample{Rule: res.ID, Case: f.Case}
				if f.Exchange >= 0 && f.Exchange < len(res.Exchanges) {
					ex.Curl = res.Exchanges[f.Exchange].Curl
				}
				out = append(out, Cause{Level: f.Level, Message: f.Message, Pointer: f.Pointer, Example: ex})
			}
			out[i].Failures++
			if n := len(out[i].Rules); n == 0 || out[i].Rules[n-1] != res.ID {
				out[i].Rules = append(out[i].Rules, res.ID)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Failures > out[j].Failures })
	return out
}

// Dominance is the fault that explains most of the rules that did not pass: the causes
// whose messages differ only in their values (numbers, quoted text), such as one media type
// refused on every error status, "... is not documented for status 400" and "... for status
// 401", each on its own spec node.
type Dominance struct {
	// Message is the causes' message with the values that differ between them blanked.
	Message string
	// Causes are the causes it gathers, the largest first.
	Causes []Cause
	// Failures counts their failures; Rules the rules they fail, each once; NotPassed the
	// rules of the run that did not pass (failed, warned or errored).
	Failures, Rules, NotPassed int
	// Level is the strongest level of its causes.
	Level Severity
}

// Dominant is the fault that explains most of the rules that did not pass, when one does:
// more than half of them, and at least two. Reports put it first, above the other causes
// and the rules.
func Dominant(r *Report) (Dominance, bool) {
	var best Dominance
	index := map[string]int{}
	var families []Dominance
	var rules []map[string]bool
	for _, c := range r.Causes {
		k := BlankValues(c.Message)
		i, ok := index[k]
		if !ok {
			i = len(families)
			index[k] = i
			families = append(families, Dominance{})
			rules = append(rules, map[string]bool{})
		}
		if len(families[i].Causes) == 0 || c.Level < families[i].Level {
			families[i].Level = c.Level
		}
		families[i].Causes = append(families[i].Causes, c)
		families[i].Failures += c.Failures
		for _, id := range c.Rules {
			rules[i][id] = true
		}
	}
	for i := range families {
		families[i].Rules = len(rules[i])
		if families[i].Rules > best.Rules {
			best = families[i]
		}
	}
	best.NotPassed = r.Counts.Fail + r.Counts.Warn + r.Counts.Error
	if best.Rules < 2 || 2*best.Rules <= best.NotPassed {
		return Dominance{}, false
	}
	// Every message of the fault, to blank the values that differ between its failures.
	key := BlankValues(best.Causes[0].Message)
	var msgs []string
	for _, res := range r.Results {
		for _, f := range res.Failures {
			if (res.Status == Fail || res.Status == Warn) && BlankValues(f.Message) == key {
				msgs = append(msgs, f.Message)
			}
		}
	}
	best.Message = commonValues(best.Causes[0].Message, msgs)
	return best, true
}

// commonValues is msg, one of msgs, which differ only in their values, with the values that
// differ between them blanked ("…") and those they share kept.
func commonValues(msg string, msgs []string) string {
	spans := values.FindAllStringIndex(msg, -1)
	keep := make([]bool, len(spans))
	for i, sp := range spans {
		keep[i] = true
		for _, m := range msgs {
			other := values.FindAllString(m, -1)
			if i >= len(other) || other[i] != msg[sp[0]:sp[1]] {
				keep[i] = false
			}
		}
	}
	var b strings.Builder
	last := 0
	for i, sp := range spans {
		b.WriteString(msg[last:sp[0]])
		if keep[i] {
			b.WriteString(msg[sp[0]:sp[1]])
		} else {
			b.WriteString("…")
		}
		last = sp[1]
	}
	b.WriteString(msg[last:])
	return b.String()
}

// otherCauses are the causes the dominant fault, if any, does not gather, in order.
func otherCauses(r *Report) []Cause {
	d, ok := Dominant(r)
	if !ok {
		return r.Causes
	}
	var out []Cause
	for _, c := range r.Causes {
		if BlankValues(c.Message) != BlankValues(d.Causes[0].Message) {
			out = append(out, c)
		}
	}
	return out
}

// Lead is the sentence that leads a report whose failures mostly have one cause.
func (d Dominance) Lead() string {
	return fmt.Sprintf("Most failures have one cause: %s (it explains %d of the %s that did not pass)", d.Message, d.Rules, words.Plural(d.NotPassed, "rule"))
}

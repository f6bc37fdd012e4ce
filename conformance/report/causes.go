package report

import (
	"regexp"
	"sort"
)

// Cause is one message on one spec node that explains failures: generated cases multiply a
// fault (error bodies without status fail every case that gets an error), so reports lead
// with the causes and the count of cases and rules each explains.
type Cause struct {
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

// causeKey is the message with its values blanked, and the pointer.
func causeKey(f Failure) string { return BlankValues(f.Message) + "\x00" + f.Pointer }

// causes groups the failures of the rules that failed or warned by cause (a waived failure
// is already accounted for), the causes that explain the most failures first (ties in
// report order).
func causes(results []Result) []Cause {
	var out []Cause
	index := map[string]int{}
	for _, res := range results {
		if res.Status != Fail && res.Status != Warn {
			continue
		}
		for _, f := range res.Failures {
			k := causeKey(f)
			i, ok := index[k]
			if !ok {
				i = len(out)
				index[k] = i
				ex := CauseExample{Rule: res.ID, Case: f.Case}
				if f.Exchange >= 0 && f.Exchange < len(res.Exchanges) {
					ex.Curl = res.Exchanges[f.Exchange].Curl
				}
				out = append(out, Cause{Message: f.Message, Pointer: f.Pointer, Example: ex})
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

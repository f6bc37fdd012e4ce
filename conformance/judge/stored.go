package judge

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strings"

	"github.com/petstore/petstore/conformance/report"
)

// Stored judges an animal a service answered (created, listed or got) against what was sent
// (sections 2 and 4.2: the service keeps what it is given): each field of wants, the values a
// service may have stored as JSON text (more than one where the body sent was ambiguous, a
// key given twice say), must be in got with one of those values. Numbers are compared
// exactly as decimals (int64 as text, never through float64), strings byte for byte. what
// names the answer in the findings ("the created Pet"); the messages, which name no
// section, are those the zoo's verdicts record.
func Stored(wants map[string][]string, got map[string]any, what string) []report.Failure {
	names := make([]string, 0, len(wants))
	for n := range wants {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []report.Failure
	for _, name := range names {
		v, ok := got[name]
		if !ok {
			out = append(out, report.Failure{Level: report.Must, Expected: strings.Join(wants[name], " or "), Actual: "no " + name,
				Message: what + " lacks the " + name + " that was sent"})
			continue
		}
		if !slices.ContainsFunc(wants[name], func(w string) bool { return SameValue(w, v) }) {
			out = append(out, report.Failure{Level: report.Must, Expected: strings.Join(wants[name], " or "), Actual: report.Clip(jsonText(v), 120),
				Message: what + " holds another " + name + " than was sent"})
		}
	}
	return out
}

// Sent is what a JSON object body sent asks a service to store: each field's value as JSON
// text (ok false: the body is no JSON object).
func Sent(body []byte) (wants map[string][]string, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil {
		return nil, false
	}
	wants = make(map[string][]string, len(m))
	for k, v := range m {
		wants[k] = []string{string(v)}
	}
	return wants, true
}

// SameValue compares a wanted JSON value with a decoded one (numbers as json.Number):
// numbers exactly as decimals, everything else as its JSON text.
func SameValue(want string, got any) bool {
	var w any
	if Decode([]byte(want), &w) != nil {
		return false
	}
	if wn, ok := w.(json.Number); ok {
		gn, ok := got.(json.Number)
		return ok && NumEqual(wn.String(), gn.String())
	}
	return jsonText(w) == jsonText(got)
}

// NumEqual compares two JSON numbers exactly.
func NumEqual(a, b string) bool {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	return ok1 && ok2 && x.Cmp(y) == 0
}

// Decode reads data keeping numbers as written (json.Number), as every judge reads them.
func Decode(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(out)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

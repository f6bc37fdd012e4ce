package pact

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Mismatch is where an answer differs from what the pact expects, after its matchers.
type Mismatch struct {
	Path     string // "$.id", "$[2].status", "header Content-Type"
	Expected string
	Actual   string
	Message  string
}

func (m Mismatch) String() string { return m.Path + ": " + m.Message }

// MatchBody compares an answer's body (decoded with numbers as json.Number) with the body a
// pact expects, under its body rules, as the Pact verifiers do: an object may hold more
// members than expected, a value with a matcher is judged by it (a type matcher reaches the
// values below it), any other value must equal the expected one, and an array under a type
// matcher may hold any number of items within its min and max, each like the first expected.
func MatchBody(rules map[string]RuleList, expected, actual any) []Mismatch {
	m := matching{rules: parseRules(rules)}
	m.value(nil, expected, actual)
	return m.out
}

type matching struct {
	rules []pathRule
	out   []Mismatch
}

type pathRule struct {
	tokens []string // after "$": a member name, an index, or "*"
	list   RuleList
}

func parseRules(rules map[string]RuleList) []pathRule {
	out := make([]pathRule, 0, len(rules))
	for path, l := range rules {
		if toks, ok := parsePath(path); ok {
			out = append(out, pathRule{toks, l})
		}
	}
	return out
}

// parsePath reads a Pact path expression: $, $.a.b, $['a b'], $[0], $[*], $.*.
func parsePath(p string) ([]string, bool) {
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	p = p[1:]
	var toks []string
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			if end == 0 {
				return nil, false
			}
			toks, p = append(toks, p[:end]), p[end:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, false
			}
			tok := strings.Trim(p[1:end], `'"`)
			toks, p = append(toks, tok), p[end+1:]
		default:
			return nil, false
		}
	}
	return toks, true
}

// best is the rule that applies at path: of those whose tokens match the start of path, the
// one with the most tokens, a name or index weighing more than a wildcard.
func (m *matching) best(path []string) (RuleList, bool) {
	var found RuleList
	bestWeight := -1
	for _, r := range m.rules {
		if len(r.tokens) > len(path) {
			continue
		}
		w := 1
		for i, t := range r.tokens {
			switch t {
			case path[i]:
				w += 2
			case "*":
				w++
			default:
				w = -1
			}
			if w < 0 {
				break
			}
		}
		if w > bestWeight {
			found, bestWeight = r.list, w
		}
	}
	return found, bestWeight >= 0
}

func (m *matching) fail(path []string, exp, act any, format string, args ...any) {
	m.out = append(m.out, Mismatch{Path: pathText(path), Expected: text(exp), Actual: text(act), Message: fmt.Sprintf(format, args...)})
}

func pathText(path []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, t := range path {
		if t != "" && strings.Trim(t, "0123456789") == "" {
			b.WriteString("[" + t + "]")
		} else {
			b.WriteString("." + t)
		}
	}
	return b.String()
}

func (m *matching) value(path []string, exp, act any) {
	l, ruled := m.best(path)
	if ruled && len(l.Matchers) > 0 {
		if !m.matchers(path, l, exp, act) {
			return
		}
	}
	switch e := exp.(type) {
	case map[string]any:
		a, ok := act.(map[string]any)
		if !ok {
			if !ruled {
				m.fail(path, exp, act, "want an object, got %s", kind(act))
			}
			return
		}
		for k, ev := range e {
			av, present := a[k]
			if !present {
				m.fail(append(path, k), ev, nil, "the member %q is missing", k)
				continue
			}
			m.value(append(path[:len(path):len(path)], k), ev, av)
		}
	case []any:
		a, ok := act.([]any)
		if !ok {
			if !ruled {
				m.fail(path, exp, act, "want an array, got %s", kind(act))
			}
			return
		}
		if ruled && typeLike(l) {
			if len(e) == 0 {
				return
			}
			for i, av := range a {
				m.value(append(path[:len(path):len(path)], itoa(i)), e[0], av)
			}
			return
		}
		if len(a) != len(e) {
			m.fail(path, exp, act, "want %d items, got %d", len(e), len(a))
			return
		}
		for i := range e {
			m.value(append(path[:len(path):len(path)], itoa(i)), e[i], a[i])
		}
	default:
		if !ruled && text(exp) != text(act) && !sameNumber(exp, act) {
			m.fail(path, exp, act, "want %s, got %s", text(exp), text(act))
		}
	}
}

// typeLike: the matchers let an array hold other items than the example (type, min, max).
func typeLike(l RuleList) bool {
	for _, x := range l.Matchers {
		if x.Match == "type" || x.Min != nil || x.Max != nil {
			return true
		}
	}
	return false
}

// matchers applies one place's matchers; false stops the walk below (a failure said why).
func (m *matching) matchers(path []string, l RuleList, exp, act any) bool {
	var fails []string
	for _, x := range l.Matchers {
		if why := applies(x, exp, act); why != "" {
			fails = append(fails, why)
		}
	}
	or := strings.EqualFold(l.Combine, "OR")
	if len(fails) == 0 || (or && len(fails) < len(l.Matchers)) {
		return true
	}
	m.fail(path, exp, act, "%s", strings.Join(fails, "; "))
	return false
}

// applies returns why act fails matcher x ("" when it passes); exp is the example.
func applies(x Matcher, exp, act any) string {
	if n, ok := act.([]any); ok {
		if x.Min != nil && len(n) < *x.Min {
			return fmt.Sprintf("want at least %d items, got %d", *x.Min, len(n))
		}
		if x.Max != nil && len(n) > *x.Max {
			return fmt.Sprintf("want at most %d items, got %d", *x.Max, len(n))
		}
	}
	switch x.Match {
	case "type", "":
		if kind(exp) != kind(act) {
			return fmt.Sprintf("want %s, got %s", kind(exp), kind(act))
		}
	case "equality":
		if text(exp) != text(act) && !sameNumber(exp, act) {
			return fmt.Sprintf("want %s, got %s", text(exp), text(act))
		}
	case "integer":
		if n, ok := act.(json.Number); !ok || strings.ContainsAny(n.String(), ".eE") {
			return "want an integer, got " + text(act)
		}
	case "decimal", "number":
		if _, ok := act.(json.Number); !ok {
			return "want a number, got " + text(act)
		}
	case "boolean":
		if _, ok := act.(bool); !ok {
			return "want a boolean, got " + text(act)
		}
	case "null":
		if act != nil {
			return "want null, got " + text(act)
		}
	case "regex":
		re, err := regexp.Compile(x.Regex)
		s, isString := act.(string)
		if n, ok := act.(json.Number); ok {
			s, isString = n.String(), true
		}
		switch {
		case err != nil:
			return fmt.Sprintf("the pact's regex %q does not compile: %v", x.Regex, err)
		case !isString || !re.MatchString(s):
			return fmt.Sprintf("want a value matching %s, got %s", x.Regex, text(act))
		}
	case "include":
		if s, ok := act.(string); !ok || !strings.Contains(s, fmt.Sprint(x.Value)) {
			return fmt.Sprintf("want a text including %q, got %s", fmt.Sprint(x.Value), text(act))
		}
	case "notEmpty":
		if act == nil || text(act) == `""` || text(act) == "[]" || text(act) == "{}" {
			return "want a value that is not empty, got " + text(act)
		}
	default:
		// date, time, timestamp, semver, contentType, values, eachKey, eachValue,
		// arrayContains...: judged by the example's kind.
		if kind(exp) != kind(act) {
			return fmt.Sprintf("want %s (%s), got %s", kind(exp), x.Match, kind(act))
		}
	}
	return ""
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func text(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

func sameNumber(a, b any) bool {
	x, ok1 := a.(json.Number)
	y, ok2 := b.(json.Number)
	if !ok1 || !ok2 {
		return false
	}
	rx, ok1 := new(big.Rat).SetString(x.String())
	ry, ok2 := new(big.Rat).SetString(y.String())
	return ok1 && ok2 && rx.Cmp(ry) == 0 // exactly, never through float64
}

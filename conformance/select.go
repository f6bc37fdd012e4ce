package conformance

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/petstore/petstore/internal/words"
)

// Select returns the rules that match only (all if only is empty) and not skip. A pattern
// that matches no rule of rules is an error, whether in only or in skip: a typo ("eror/*")
// would otherwise run everything, or skip nothing, in silence.
func Select(rules []Rule, only, skip []string) ([]Rule, error) {
	for _, set := range []struct {
		flag     string
		patterns []string
	}{{"--only", only}, {"--skip", skip}} {
		for _, p := range set.patterns {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("conformance: bad pattern %q: %w", p, err)
			}
			if !slices.ContainsFunc(rules, func(r Rule) bool { return matchAny([]string{p}, r.ID) }) {
				return nil, fmt.Errorf("conformance: no rule matches %s %q (conformance list shows the IDs)", set.flag, p)
			}
		}
	}
	var out []Rule
	for _, r := range rules {
		if (len(only) == 0 || matchAny(only, r.ID)) && !matchAny(skip, r.ID) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("conformance: no rule matches --only %q --skip %q", only, skip)
	}
	return out, nil
}

// matchAny reports whether a pattern matches id: as a glob on the whole ID, as the ID's
// prefix ("errors" selects errors/*), or, for a pattern without a slash, as a glob on the
// slug ("*-www-*" selects auth/listPets-www-authenticate).
func matchAny(patterns []string, id string) bool {
	_, slug, _ := strings.Cut(id, "/")
	for _, p := range patterns {
		if ok, _ := path.Match(p, id); ok || strings.HasPrefix(id, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
		if ok, _ := path.Match(p, slug); ok && !strings.Contains(p, "/") {
			return true
		}
	}
	return false
}

// notJudged says what a read-only run left unjudged because it sends only GET and HEAD: the
// rules it did not run for that reason and the generated cases it did not send.
func (r *runner) notJudged() []string {
	if !r.opts.ReadOnly {
		return nil
	}
	var ids []string
	cases := 0
	for i, res := range r.report.Results {
		switch {
		case res.Status == Skip && r.rules[i].Creates:
			ids = append(ids, res.ID)
		case res.CasesSkipped > 0:
			cases += res.CasesSkipped
		}
	}
	var parts []string
	if len(ids) > 0 {
		shown := ids[:min(len(ids), 4)]
		more := ""
		if len(ids) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
		}
		parts = append(parts, fmt.Sprintf("%s not run (%s%s)", words.Plural(len(ids), "rule"), strings.Join(shown, ", "), more))
	}
	if cases > 0 {
		parts = append(parts, fmt.Sprintf("%s not sent", words.Plural(cases, "generated case")))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{strings.Join(parts, " and ") + ": they send other methods than GET and HEAD"}
}

// skipReason says why rule does not run in this run, or "".
func (r *runner) skipReason(rule Rule) string {
	if rule.Creates && r.opts.ReadOnly {
		return "creates animals (or would, on a non-conforming target), and the run is read-only"
	}
	if op, ok := r.facts.ByID[rule.Op]; ok {
		day := op.Sunset.Format(time.DateOnly)
		clock := r.opts.Now.UTC().Format(time.RFC3339)
		switch gone := op.Gone(r.opts.Now); {
		case rule.Gone && op.Sunset.IsZero():
			return fmt.Sprintf("%s has no removal date", op.ID)
		case rule.Gone && !gone:
			return fmt.Sprintf("runs on and after %s, the removal date of %s; the run's clock is %s", day, op.ID, clock)
		case !rule.Gone && gone:
			return fmt.Sprintf("%s was removed on %s; the run's clock is %s", op.ID, day, clock)
		}
	}
	if reason := r.unmet(rule.Needs); reason != "" {
		return reason
	}
	return ""
}

// inapplicable reports whether rule does not apply at the run's clock: about an operation
// after its removal date, or about its removal before that date (or with none).
func (r *runner) inapplicable(rule Rule) bool {
	op, ok := r.facts.ByID[rule.Op]
	if !ok {
		return false
	}
	return rule.Gone != op.Gone(r.opts.Now)
}

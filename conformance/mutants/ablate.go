package mutants

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance"
)

// Ablation is what the catalogue shows about one rule (or one family of rules skipped
// together): the mutants it fails on, and those that pass the whole suite once it is
// skipped. A rule without survivors is redundant for this catalogue: every fault it sees,
// another rule sees too.
type Ablation struct {
	// Name is the rule ID, or the family's pattern (auth/*-wrong-key).
	Name string
	// Rules are the rule IDs skipped together.
	Rules []string
	// FailedOn are the mutants on which one of the rules failed (or could not be evaluated).
	FailedOn []string
	// Survivors are the mutants whose run conforms when the rules are skipped.
	Survivors []string
}

// Singles returns one ablation entry per rule.
func Singles(ids []string) []Ablation {
	out := make([]Ablation, len(ids))
	for i, id := range ids {
		out[i] = Ablation{Name: id, Rules: []string{id}}
	}
	return out
}

// Families groups the rules generated from one template: IDs equal once every word of
// words (the operationIds, the status values) is replaced by "*". Only groups of two or
// more are returned, in catalogue order.
func Families(ids, words []string) []Ablation {
	var out []Ablation
	index := map[string]int{}
	for _, id := range ids {
		name := id
		for _, w := range words {
			name = strings.ReplaceAll(name, w, "*")
		}
		if name == id {
			continue
		}
		if i, ok := index[name]; ok {
			out[i].Rules = append(out[i].Rules, id)
			continue
		}
		index[name] = len(out)
		out = append(out, Ablation{Name: name, Rules: []string{id}})
	}
	return slices.DeleteFunc(out, func(a Ablation) bool { return len(a.Rules) < 2 })
}

// Ablate skips each entry's rules in turn and reruns the mutants they failed on (outcomes
// are the full runs): a mutant none of them failed on cannot be let through by skipping
// them. The mutants that failed the fewest rules go first; with firstOnly, an entry stops
// at its first survivor, which is all a spot-check needs.
func Ablate(ctx context.Context, doc *openapi3.T, outcomes []Outcome, entries []Ablation, workers int, firstOnly bool) ([]Ablation, error) {
	out := make([]Ablation, 0, len(entries))
	for _, a := range entries {
		a.FailedOn, a.Survivors = nil, nil
		var rerun []Outcome
		for _, o := range outcomes {
			if o.Detected() && failedAny(o.Report, a.Rules) {
				a.FailedOn = append(a.FailedOn, o.Mutant.Name)
				rerun = append(rerun, o)
			}
		}
		slices.SortStableFunc(rerun, func(x, y Outcome) int { return len(x.Caught) + len(x.Also) - len(y.Caught) - len(y.Also) })
		batch := max(workers, 1)
		if firstOnly {
			batch = 1
		}
		for i := 0; i < len(rerun) && !(firstOnly && len(a.Survivors) > 0); i += batch {
			ms := make([]Mutant, 0, batch)
			for _, o := range rerun[i:min(i+batch, len(rerun))] {
				ms = append(ms, o.Mutant)
			}
			again, err := RunAll(ctx, doc, ms, workers, a.Rules...)
			if err != nil {
				return nil, fmt.Errorf("skipping %s: %w", a.Name, err)
			}
			for _, o := range again {
				if !o.Detected() {
					a.Survivors = append(a.Survivors, o.Mutant.Name)
				}
			}
		}
		out = append(out, a)
	}
	return out, nil
}

func failedAny(rep *conformance.Report, ids []string) bool {
	for _, id := range ids {
		if res, ok := rep.Result(id); ok && (res.Status == conformance.Fail || res.Status == conformance.Error) {
			return true
		}
	}
	return false
}

// WriteAblation writes the ablations as a markdown table, then the redundant entries.
func WriteAblation(w io.Writer, as []Ablation) error {
	var b strings.Builder
	b.WriteString("| Skipped | Fails on | Mutants that then pass |\n|---|---|---|\n")
	var redundant []string
	for _, a := range as {
		survivors := code(a.Survivors)
		if len(a.Survivors) == 0 {
			survivors = "none (redundant for this catalogue)"
			redundant = append(redundant, a.Name)
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", a.Name, len(a.FailedOn), survivors)
	}
	fmt.Fprintf(&b, "\n%d of %d earn their place (skipping lets a mutant through); redundant: %s.\n",
		len(as)-len(redundant), len(as), orNone(redundant))
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return code(ids)
}

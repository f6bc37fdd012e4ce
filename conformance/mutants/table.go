package mutants

import (
	"fmt"
	"io"
	"strings"
)

// shownAlso is how many of the other failed rules a table row names before "+N more".
const shownAlso = 3

// WriteTable writes the outcomes as a markdown table (mutant, fault, the named rules that
// caught it, the other rules that failed) followed by the mutation score.
func WriteTable(w io.Writer, outcomes []Outcome) error {
	var b strings.Builder
	b.WriteString("| Mutant | Fault | Caught by | Also failed |\n|---|---|---|---|\n")
	for _, o := range outcomes {
		caught := code(o.Caught)
		switch {
		case o.Killed():
		case o.Mutant.Gap != "":
			caught = "**survived** (known gap: " + o.Mutant.Gap + ")"
		case o.Detected():
			caught = "**missed**: none of " + code(o.Mutant.Catch) + " failed"
		default:
			caught = "**survived**: the run conforms"
		}
		also := code(o.Also[:min(len(o.Also), shownAlso)])
		if n := len(o.Also) - shownAlso; n > 0 {
			also += fmt.Sprintf(" +%d more", n)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", o.Mutant.Name, cell(o.Mutant.Fault), caught, also)
	}
	killed, total := Score(outcomes)
	fmt.Fprintf(&b, "\nMutation score: %d/%d caught (%s).\n", killed, total, percent(killed, total))
	_, err := io.WriteString(w, b.String())
	return err
}

func code(ids []string) string {
	if len(ids) == 0 {
		return "-"
	}
	return "`" + strings.Join(ids, "`, `") + "`"
}

// cell escapes what would break a markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func percent(n, total int) string {
	if total == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(total))
}

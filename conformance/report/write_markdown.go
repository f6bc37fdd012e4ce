package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

// WriteMarkdown writes a compact summary for a CI step summary or a pull-request comment:
// the verdict, the counts, the coverage line, what failed the run (rules with their
// section and a one-line reason, gates), then warnings and waivers. Passing rules are only
// counted; the HTML report has the rest.
func WriteMarkdown(w io.Writer, r *Report) error {
	r = printable(r)
	bw := bufio.NewWriter(w)
	mark, verdict := "✅", "conforming"
	switch {
	case r.Verdict == NotRun:
		mark, verdict = "❌", "the run could not be made"
	case !r.Conforming():
		mark, verdict = "❌", "NOT conforming"
	case !r.FullyJudged():
		mark, verdict = "⚠️", "conforming as far as judged"
	}
	fmt.Fprintf(bw, "## %s %s %s: %s\n\n", mark, r.SpecTitle, r.SpecVersion, verdict)
	if r.MustUnjudged > 0 && r.Verdict != NotRun {
		fmt.Fprintf(bw, "**%s.**\n\n", VerdictLine(r))
	}
	fmt.Fprintf(bw, "Target `%s`, started %s, %s", r.Target, r.Started.Format("2006-01-02 15:04 UTC"), duration(r.DurationMS))
	if r.Strict {
		fmt.Fprint(bw, ", strict")
	}
	if r.ReadOnly {
		fmt.Fprint(bw, ", read-only")
	}
	c := r.Counts
	fmt.Fprintf(bw, "; %s, %s created; %s", words.Plural(r.Requests, "request"), words.Plural(r.AnimalsCreated, "animal"), RunLine(r))
	fmt.Fprintf(bw, ".\n\n| Rules | Cases | Pass | Fail | Warn | Waived | Skip | Error |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(bw, "| %d | %d | %d | %d | %d | %d | %d | %d |\n\n", c.Total, totalCases(r), c.Pass, c.Fail, c.Warn, c.Waived, c.Skip, c.Error)
	if c.NotRun > 0 {
		fmt.Fprintf(bw, "%s not run: the run stopped before %s.\n\n", words.Plural(c.NotRun, "rule"), map[bool]string{true: "it", false: "them"}[c.NotRun == 1])
	}
	fmt.Fprintf(bw, "**Coverage:** %s", CoverageLine(r.Coverage))
	if r.MinCoverage > 0 {
		fmt.Fprintf(bw, ", minimum %g%%", r.MinCoverage)
	}
	if missing := r.Coverage.Missing(); len(missing) > 0 {
		fmt.Fprintf(bw, "; never exercised: `%s`", strings.Join(missing, "`, `"))
	}
	fmt.Fprintln(bw)
	writeMarkdownCauses(bw, r)
	if len(r.GateFailures) > 0 {
		fmt.Fprintf(bw, "\n### Run conditions failed\n\n")
		for _, g := range r.GateFailures {
			fmt.Fprintf(bw, "- `%s`: %s\n", g.Gate, mdCell(g.Message))
		}
	}
	writeMarkdownTable(bw, "Failed rules", r.Results, func(res Result) bool { return res.Status == Fail || res.Status == Error })
	writeReproduce(bw, r.Results)
	writeMarkdownTable(bw, "Warnings", r.Results, func(res Result) bool { return res.Status == Warn })
	writeMarkdownTable(bw, "Waived", r.Results, func(res Result) bool { return res.Status == Waived })
	return bw.Flush()
}

// writeMarkdownCauses writes the causes of the failures: the dominant one, when there is
// one, then a table of the others.
func writeMarkdownCauses(bw io.Writer, r *Report) {
	if len(r.Causes) == 0 {
		return
	}
	fmt.Fprintf(bw, "\n### Causes of the failures\n\n")
	column := "Cause"
	if d, ok := Dominant(r); ok {
		fmt.Fprintf(bw, "**Most failures have one cause:** %s: it explains %d of the %s that did not pass (e.g. %s).\n\n",
			mdCell(d.Message), d.Rules, words.Plural(d.NotPassed, "rule"), mdCell(Clip(causeExample(d.Causes[0]), 200)))
		if len(d.Causes) > 1 {
			for _, c := range d.Causes {
				fmt.Fprintf(bw, "- %s in %s: %s\n", words.Plural(c.Failures, "failure"), words.Plural(len(c.Rules), "rule"), mdCell(causeText(c)))
			}
			fmt.Fprintln(bw)
		}
		column = "Other cause"
	}
	others := otherCauses(r)
	if len(others) > 0 {
		fmt.Fprintf(bw, "| Failures | Rules | %s | Example |\n|---:|---|---|---|\n", column)
	}
	for i, c := range others {
		if i == maxCausesShown {
			n := len(others) - i
			fmt.Fprintf(bw, "\n%s %s listed under their rules in the HTML and JSON reports.\n", words.Plural(n, "more cause"), map[bool]string{true: "is", false: "are"}[n == 1])
			break
		}
		fmt.Fprintf(bw, "| %d | %d | %s | %s |\n", c.Failures, len(c.Rules), mdCell(causeText(c)), mdCell(Clip(causeExample(c), 200)))
	}
}

// causeText is a cause's message with its spec node.
func causeText(c Cause) string {
	if c.Pointer != "" {
		return c.Message + " (`" + c.Pointer + "`)"
	}
	return c.Message
}

// causeExample names the rule, and the case, of a cause's first failure.
func causeExample(c Cause) string {
	if c.Example.Case != "" {
		return "`" + c.Example.Rule + "`: " + c.Example.Case
	}
	return "`" + c.Example.Rule + "`"
}

func writeMarkdownTable(w io.Writer, title string, results []Result, keep func(Result) bool) {
	var rows []Result
	for _, res := range results {
		if keep(res) {
			rows = append(rows, res)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### %s (%d)\n\n| Rule | Section | Severity | Reason |\n|---|---|---|---|\n", title, len(rows))
	for _, res := range rows {
		reason := res.Reason
		if res.Waiver != nil {
			reason = fmt.Sprintf("until %s: %s (%s)", res.Waiver.Expires, res.Waiver.Reason, reason)
		}
		if res.Status == Error {
			reason = "error: " + reason
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", res.ID, mdCell(res.Section), res.Severity, mdCell(Clip(reason, 200)))
	}
}

// mdCell keeps text on one line of a Markdown table: pipes escaped, no line breaks.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// writeReproduce lists, folded, a curl line for the first failure of each failed rule.
func writeReproduce(w io.Writer, results []Result) {
	var lines []string
	for _, res := range results {
		if res.Status != Fail && res.Status != Error {
			continue
		}
		for _, f := range res.Failures {
			if f.Exchange >= 0 && f.Exchange < len(res.Exchanges) {
				lines = append(lines, "# "+res.ID+"\n"+res.Exchanges[f.Exchange].Curl)
				break
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n<details><summary>Reproduce with curl (the lines read the key from %s)</summary>\n\n```sh\n%s\n```\n\n</details>\n",
		KeyPlaceholder, strings.Join(lines, "\n"))
}

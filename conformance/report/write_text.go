package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/petstore/petstore/internal/words"
)

// WriteText writes the report for a person: one line per rule grouped by interface section,
// the details of every rule that did not pass, and a summary line.
func WriteText(w io.Writer, r *Report) error { return writeText(w, r, false) }

// WriteColorText is WriteText with the outcomes coloured, for a terminal.
func WriteColorText(w io.Writer, r *Report) error { return writeText(w, r, true) }

var statusColors = map[Status]string{Pass: "32", Fail: "31", Warn: "33", Skip: "36", Error: "35", Waived: "34"}

// writeText writes the text report: its head, the causes, the rules by section, the
// coverage and notes, and the summary line, in color when asked.
func writeText(w io.Writer, r *Report, color bool) error {
	r = printable(r)
	bw := bufio.NewWriter(w)
	paint := func(st Status, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + statusColors[st] + "m" + s + "\x1b[0m"
	}
	fmt.Fprintf(bw, "%s %s conformance of %s\n", r.SpecTitle, r.SpecVersion, r.Target)
	fmt.Fprintf(bw, "started %s, clock %s, strict %t, read-only %t\n",
		r.Started.Format("2006-01-02T15:04:05Z"), r.Clock.Format("2006-01-02T15:04:05Z"), r.Strict, r.ReadOnly)
	fmt.Fprintf(bw, "%s\n", RunLine(r))
	if p := r.Provenance; p.Harness != "" {
		fmt.Fprintf(bw, "harness %s, spec sha256 %s\n", p.Harness, p.SpecSHA256)
	}
	writeCauses(bw, r)
	writeCloses(bw, r)
	writeRules(bw, r, paint)
	fmt.Fprintf(bw, "\ncoverage: %s\n", CoverageLine(r.Coverage))
	writeNotes(bw, r, paint)
	c := r.Counts
	// The summary line ends with the verdict alone (CI logs and scripts read its last
	// word); how many MUST rules the run did not judge is the line before it.
	verdict := verdictHead(r)
	if color {
		st := Pass
		switch {
		case !r.Conforming():
			st = Fail
		case !r.FullyJudged():
			st = Warn
		}
		verdict = paint(st, verdict)
	}
	waived := ""
	if c.Waived > 0 {
		waived = fmt.Sprintf(", %d waived", c.Waived)
	}
	if c.NotRun > 0 {
		waived += fmt.Sprintf(", %d not run", c.NotRun)
	}
	fmt.Fprintf(bw, "%s: %d pass, %d fail, %d warn, %d skip, %d error%s; %s, %s, %s created, %d found; seed %d; %.1f ms: %s\n",
		words.Plural(c.Total, "rule"), c.Pass, c.Fail, c.Warn, c.Skip, c.Error, waived, words.Plural(totalCases(r), "case"), words.Plural(r.Requests, "request"),
		words.Plural(r.AnimalsCreated, "animal"), r.AnimalsFound, r.Seed, r.DurationMS, verdict)
	return bw.Flush()
}

// writeRules writes every rule's line, grouped by section of the document, each with what
// failed under it.
func writeRules(bw io.Writer, r *Report, paint func(Status, string) string) {
	// A rule the run stopped before it judged is "not run", as the summary counts it.
	label := func(res Result) string {
		if res.NotRun {
			return "not run"
		}
		return string(res.Status)
	}
	width, statusWidth := 0, len(Error)
	for _, res := range r.Results {
		width = max(width, len(res.ID))
		statusWidth = max(statusWidth, len(label(res)))
	}
	for _, g := range bySection(r.Results) {
		fmt.Fprintf(bw, "\n%s %s\n", g.Key, g.Title)
		for _, res := range g.Results {
			fmt.Fprintf(bw, "  %s  %-6s  %-*s  %s%s\n", paint(res.Status, fmt.Sprintf("%-*s", statusWidth, label(res))),
				res.Severity, width, res.ID, res.Title, caseCount(res))
			WriteDetails(bw, res)
		}
	}
}

// writeNotes writes the lines between the coverage and the summary: failed gates, unneeded
// waivers, what read-only left unjudged, waits, resends, animals removed, unjudged rules.
func writeNotes(bw io.Writer, r *Report, paint func(Status, string) string) {
	for _, g := range r.GateFailures {
		fmt.Fprintf(bw, "%s: %s\n", paint(Fail, "FAILED "+g.Gate), g.Message)
	}
	for _, w := range r.UnneededWaivers {
		fmt.Fprintf(bw, "unneeded waiver: %s passes; remove its waiver (%s, until %s)\n", w.Rule, w.Reason, w.Expires)
	}
	for _, line := range r.NotJudged {
		fmt.Fprintln(bw, "read-only: "+line)
	}
	if r.WaitedOut > 0 {
		fmt.Fprintf(bw, "waited out %s of 429 or 503 (%.1f s in all, --max-wait)\n", words.Plural(r.WaitedOut, "answer"), r.WaitedMS/1000)
	}
	if r.Resent > 0 {
		fmt.Fprintf(bw, "sent %s again on a fresh connection: the target had dropped the kept-alive one without an answer\n", words.Plural(r.Resent, "request"))
	}
	if r.AnimalsRemoved > 0 {
		fmt.Fprintf(bw, "animals: %s of the run's own removed again, %d left\n", words.Plural(r.AnimalsRemoved, "animal"), r.AnimalsLeft)
	}
	if u := unjudgedLine(r); u != "" {
		fmt.Fprintln(bw, u)
	}
}

// RunLine says how the run's generated cases were drawn, for every report: the seed (and
// the command-line flags that repeat it), the random combinations asked for, the cap on
// animals created.
func RunLine(r *Report) string {
	s := fmt.Sprintf("seed %d (repeat with --seed %d)", r.Seed, r.Seed)
	if r.Fuzz > 0 {
		s += fmt.Sprintf(", --fuzz %d", r.Fuzz)
	}
	s += fmt.Sprintf(", at most %s created", words.Plural(r.MaxCreates, "animal"))
	if r.KeyElsewhere {
		// The key goes into URLs that proxies and logs on the way keep (docs/ci.md).
		s += "; the key sent in query strings, cookies and other fields too, to check they are refused (--no-key-elsewhere leaves them out)"
	}
	return s
}

func totalCases(r *Report) int {
	n := 0
	for _, res := range r.Results {
		n += res.Cases
	}
	return n
}

func caseCount(res Result) string {
	switch {
	case res.Cases == 0 && res.CasesSkipped == 0:
		return ""
	case res.CasesSkipped > 0:
		return fmt.Sprintf(" (%s, %d not sent)", words.Plural(res.Cases, "case"), res.CasesSkipped)
	}
	return fmt.Sprintf(" (%s)", words.Plural(res.Cases, "case"))
}

// writeCauses leads a failing report with what explains its failures: the cause that
// explains most of the rules that did not pass, if one does, then the others, the largest
// first.
func writeCauses(w io.Writer, r *Report) {
	if len(r.Causes) == 0 {
		return
	}
	others := otherCauses(r)
	if d, ok := Dominant(r); ok {
		fmt.Fprintf(w, "\n%s\n", d.Lead())
		writeDominant(w, "  ", d)
		if len(others) == 0 {
			return
		}
		fmt.Fprintf(w, "\nother causes, the largest first:\n")
	} else {
		fmt.Fprintf(w, "\ncauses of the failures, the largest first:\n")
	}
	for i, c := range others {
		if i == maxCausesShown {
			fmt.Fprintf(w, "  ... and %s, listed under their rules below\n", words.Plural(len(others)-i, "more cause"))
			break
		}
		fmt.Fprintf(w, "  %d. %s\n", i+1, c.Message)
		writeCause(w, "     ", c)
	}
}

// writeCloses says, after the causes, after which answers the target dropped a kept-alive
// connection that a client then lost a request on.
func writeCloses(w io.Writer, r *Report) {
	if len(r.ConnectionCloses) == 0 {
		return
	}
	fmt.Fprintf(w, "\nADVISORY: the target dropped a kept-alive connection after these answers, without \"Connection: close\"; the next request sent on it got no answer (sent again on a fresh connection):\n")
	for _, c := range r.ConnectionCloses {
		fmt.Fprintf(w, "  after %s (%s)\n     %s\n", c.After, words.Plural(c.Count, "time"), c.Curl)
	}
}

// writeDominant writes the causes the dominant fault gathers, each line after indent. Causes
// of one message on one spec node that differ only in level are one entry, with a line per
// level.
func writeDominant(w io.Writer, indent string, d Dominance) {
	type entry struct {
		message string
		causes  []Cause
	}
	var entries []*entry
	byNode := map[string]*entry{}
	for _, c := range d.Causes {
		k := c.Message + "\x00" + c.Pointer
		if byNode[k] == nil {
			byNode[k] = &entry{message: c.Message}
			entries = append(entries, byNode[k])
		}
		byNode[k].causes = append(byNode[k].causes, c)
	}
	sub := indent
	if len(entries) > 1 {
		fmt.Fprintf(w, "%s%s in %s, on %d spec nodes:\n", indent, words.Plural(d.Failures, "failure"), words.Plural(d.Rules, "rule"), len(entries))
		sub = indent + "  "
	}
	for i, e := range entries {
		if len(entries) > 1 {
			fmt.Fprintf(w, "%s- %s\n", indent, e.message)
		}
		for j, c := range e.causes {
			if i > 0 || j > 0 {
				c.Example.Curl = "" // one line to reproduce the fault is enough
			}
			if j > 0 {
				c.Pointer = "" // said once for the entry
			}
			writeCause(w, sub, c)
		}
	}
}

// writeCause writes where a cause failed, its spec node and an example, each line after
// indent.
func writeCause(w io.Writer, indent string, c Cause) {
	rules := strings.Join(c.Rules, ", ")
	if len(c.Rules) > 4 {
		rules = strings.Join(c.Rules[:4], ", ") + fmt.Sprintf(" and %d more", len(c.Rules)-4)
	}
	fmt.Fprintf(w, "%s%s: %s in %s: %s\n", indent, c.Level, words.Plural(c.Failures, "failure"), words.Plural(len(c.Rules), "rule"), rules)
	if c.Pointer != "" {
		fmt.Fprintf(w, "%sspec: %s\n", indent, c.Pointer)
	}
	if c.Example.Case != "" {
		fmt.Fprintf(w, "%se.g. %s: %s\n", indent, c.Example.Rule, c.Example.Case)
	} else {
		fmt.Fprintf(w, "%se.g. %s\n", indent, c.Example.Rule)
	}
	if c.Example.Curl != "" {
		fmt.Fprintf(w, "%sreproduce: %s\n", indent, c.Example.Curl)
	}
}

// maxCausesShown is how many causes lead a text report.
const maxCausesShown = 10

const indent = "          "

// WriteDetails writes what failed in res, with its exchanges, indented under its line.
func WriteDetails(w io.Writer, res Result) {
	if res.Status == Pass {
		return
	}
	res = printable(res)
	if res.Waiver != nil {
		fmt.Fprintf(w, "%swaived until %s: %s\n", indent, res.Waiver.Expires, res.Waiver.Reason)
	}
	switch {
	case len(res.Failures) == 0 || res.Status == Skip || res.Status == Error:
		fmt.Fprintf(w, "%s%s\n", indent, res.Reason)
	case res.Status == Warn:
		// The reason is the first failure with why it only warns: the list below has the
		// failure, so the line says only why.
		fmt.Fprintf(w, "%s%s\n", indent, warnsBecause(res))
	}
	if res.Status != Fail && res.Status != Warn && res.Status != Waived {
		return
	}
	fmt.Fprintf(w, "%ssection: %s\n", indent, res.Section)
	shown := -1
	for _, g := range groupFailures(res.Failures) {
		f := g.Failure
		if f.Case != "" {
			fmt.Fprintf(w, "%s- %s case: %s [%s: %s]\n", indent, f.Level, f.Case, f.Verdict, f.CaseSection)
			if f.Reasoning != "" {
				fmt.Fprintf(w, "%s  why: %s\n", indent, f.Reasoning)
			}
			fmt.Fprintf(w, "%s  %s\n", indent, f.Message)
		} else {
			fmt.Fprintf(w, "%s- %s: %s\n", indent, f.Level, f.Message)
		}
		if !f.SaysExpectedAndActual() {
			fmt.Fprintf(w, "%s  expected: %s\n%s  got:      %s\n", indent, f.Expected, indent, f.Actual)
		}
		switch {
		case f.Pointer != "" && g.Places != "":
			fmt.Fprintf(w, "%s  spec: %s (at %s)\n", indent, f.Pointer, g.Places)
		case f.Pointer != "":
			fmt.Fprintf(w, "%s  spec: %s\n", indent, f.Pointer)
		case g.Count > 1:
			fmt.Fprintf(w, "%s  at %s\n", indent, g.Places)
		}
		if f.Exchange >= 0 && f.Exchange < len(res.Exchanges) && f.Exchange != shown {
			shown = f.Exchange
			writeExchange(w, res.Exchanges[f.Exchange])
		}
	}
}

// failureGroup is a failure said once for the places it repeats at: a schema violation on
// every element of a listing ("property "categoryId" is missing" at body/0/categoryId,
// body/1/categoryId...) is one entry of a report, not twenty.
type failureGroup struct {
	Failure
	// Count is how many failures it stands for; Places their locations, the first few.
	Count  int
	Places string
}

// maxPlacesShown is how many locations of a repeated failure a report names.
const maxPlacesShown = 3

// groupFailures gathers consecutive failures that differ only in their location.
func groupFailures(fs []Failure) []failureGroup {
	var out []failureGroup
	var places []string
	flush := func() {
		g := &out[len(out)-1]
		g.Places = strings.Join(places[:min(len(places), maxPlacesShown)], ", ")
		if len(places) > maxPlacesShown {
			g.Places += fmt.Sprintf(" and %d more", len(places)-maxPlacesShown)
		}
	}
	for _, f := range fs {
		if n := len(out); n > 0 && sameButPlace(out[n-1].Failure, f) {
			out[n-1].Count++
			if f.Location != "" {
				places = append(places, f.Location)
			}
			continue
		}
		if len(out) > 0 {
			flush()
		}
		out = append(out, failureGroup{Failure: f, Count: 1})
		places = places[:0]
		if f.Location != "" {
			places = append(places, f.Location)
		}
	}
	if len(out) > 0 {
		flush()
	}
	return out
}

// sameButPlace reports whether f and g say the same of the same exchange, maybe at
// different places.
func sameButPlace(f, g Failure) bool {
	f.Location, g.Location = "", ""
	return f == g
}

// warnsBecause says why a rule that failed is only a warning (as the runner decides it by
// the strongest level of its failures: ADVISORY never fails a run, SHOULD and a rule about
// an operation marked experimental or beta fail it only when strict).
func warnsBecause(res Result) string {
	switch {
	case res.Level == Advisory:
		return "a warning only: an ADVISORY failure never fails a run"
	case res.Stability != "":
		return "a warning only: the operation is marked " + res.Stability + "; a strict run fails it"
	case res.Level == Should:
		return "a warning only: a SHOULD failure fails a run only when strict"
	}
	return res.Reason
}

func writeExchange(w io.Writer, ex Exchange) {
	fmt.Fprintf(w, "%s  request:  %s %s", indent, ex.Request.Method, ex.Request.URL)
	if ex.Request.Body != "" {
		fmt.Fprintf(w, " %s", Clip(ex.Request.Body, 200))
	}
	fmt.Fprintln(w)
	if ex.Error != "" {
		fmt.Fprintf(w, "%s  error:    %s\n", indent, ex.Error)
	}
	if resp := ex.Response; resp != nil {
		fmt.Fprintf(w, "%s  response: %s", indent, StatusText(resp.Status))
		if ct := resp.Header.Get("Content-Type"); ct != "" {
			fmt.Fprintf(w, " (%s)", ct)
		}
		if resp.Body != "" {
			fmt.Fprintf(w, " %s", Clip(resp.Body, 300))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s  reproduce: %s\n", indent, ex.Curl)
}

// Clip keeps a body on one line and at most n bytes, not cutting a character in two.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n] + "..."
	}
	return s
}

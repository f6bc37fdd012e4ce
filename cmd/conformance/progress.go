package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/words"
)

// What a run shows while it goes on depends on where its output goes:
//   - stdout on a terminal: a line on stderr, rewritten in place, names the rule running
//     ("rule 12/80 listPets/limit-max"), when stderr is a terminal too; it is erased before
//     the report is written;
//   - stdout redirected to a file or a pipe (a CI job's log): stderr gets a line per section
//     (the rules of one ID prefix: auth, listPets ...) once its last rule is judged, and
//     after the reports the IDs of the rules that failed and of those that erred;
//   - stdout anything else (a buffer: a program or test that calls the command): nothing.

// terminal reports whether w is a terminal.
func (e env) terminal(w io.Writer) bool {
	if e.isTerminal != nil {
		return e.isTerminal(w)
	}
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := file.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// ciLog reports whether stdout is redirected to a file or a pipe, as in a CI job.
func ciLog(e env) bool {
	_, file := e.stdout.(*os.File)
	return file && !e.terminal(e.stdout)
}

// colour is on for a terminal, unless NO_COLOR is set or TERM is dumb.
func (e env) colour() bool {
	return e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb" && e.terminal(e.stdout)
}

// progress returns the run's Progress and Finished callbacks (either may be nil) and the
// function to call when the run is over; ids are the rules the run will judge, in catalogue
// order.
func progress(e env, ids []string) (func(n, total int, id string), func(n, total int, res conformance.Result), func()) {
	switch {
	case ciLog(e):
		return nil, sectionLines(e.stderr, ids), func() {}
	case e.terminal(e.stdout) && e.terminal(e.stderr):
		update, done := progressLine(e.stderr)
		return update, nil, done
	}
	return nil, nil, func() {}
}

// progressLine writes the progress line to w, rewriting it in place.
func progressLine(w io.Writer) (func(n, total int, id string), func()) {
	shown := false
	update := func(n, total int, id string) {
		shown = true
		fmt.Fprintf(w, "\r\x1b[Krule %d/%d %s", n, total, id)
	}
	return update, func() {
		if shown {
			fmt.Fprint(w, "\r\x1b[K")
		}
	}
}

// sectionLines returns the Finished callback that writes to w, once the last rule of a
// section (the rules whose IDs share the prefix before "/") is judged, one line:
//
//	auth: 24 rules, 23 pass, 1 fail (24/80)
//
// ids are the rules expected, in catalogue order. A section with rules beyond them (the run
// judged more than expected) gets a line for those at the end.
func sectionLines(w io.Writer, ids []string) func(n, total int, res conformance.Result) {
	last := map[string]int{} // the position (from 1) of each section's last rule
	for i, id := range ids {
		last[section(id)] = i + 1
	}
	counts := map[string]map[conformance.Status]int{} // the results so far of each section
	var order []string                                // sections in the order their first result came
	line := func(name string, n, total int) {
		c := counts[name]
		delete(counts, name)
		rules := 0
		var parts []string
		for _, st := range []conformance.Status{conformance.Pass, conformance.Fail, conformance.Warn,
			conformance.Skip, conformance.Error, conformance.Waived, notRun} {
			rules += c[st]
			if c[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", c[st], st))
			}
		}
		fmt.Fprintf(w, "%s: %s (%d/%d)\n", name, strings.Join(append([]string{words.Plural(rules, "rule")}, parts...), ", "), n, total)
	}
	return func(n, total int, res conformance.Result) {
		name := section(res.ID)
		if counts[name] == nil {
			counts[name] = map[conformance.Status]int{}
			order = append(order, name)
		}
		st := res.Status
		if res.NotRun {
			st = notRun
		}
		counts[name][st]++
		if last[name] == n {
			line(name, n, total)
		}
		if n == total {
			for _, name := range order {
				if counts[name] != nil {
					line(name, n, total)
				}
			}
		}
	}
}

// notRun counts, in a section's line, the rules the run never started (it stopped first).
const notRun conformance.Status = "not run"

// section is the part of a rule ID before "/".
func section(id string) string {
	name, _, _ := strings.Cut(id, "/")
	return name
}

// writeUnjudged closes a CI log with the IDs of the rules that failed and of those that
// erred (not judged: no answer, a check that panicked, animals that could not be prepared),
// the ones a reader of the log looks for first.
func writeUnjudged(w io.Writer, rep *conformance.Report) {
	var failed, errored []string
	for _, res := range rep.Results {
		switch res.Status {
		case conformance.Fail:
			failed = append(failed, res.ID)
		case conformance.Error:
			errored = append(errored, res.ID)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "failed: %s: %s\n", words.Plural(len(failed), "rule"), strings.Join(failed, ", "))
	}
	if len(errored) > 0 {
		fmt.Fprintf(w, "error (not judged, each for the reason its report gives): %s: %s\n", words.Plural(len(errored), "rule"), strings.Join(errored, ", "))
	}
}

// ids are the rules' IDs.
func ids(rules []conformance.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.ID
	}
	return out
}

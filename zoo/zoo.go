// Package zoo runs the harness against the independent implementations in zoo/ (servers
// written in real frameworks, each its own module or npm project) and compares what it
// reports with the verdicts recorded by hand in zoo/verdicts.json: a true fault the harness
// stops reporting, or a failure nobody has judged, is a regression.
package zoo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance"
)

// Verdicts of a reported failure, from the interface document.
const (
	// Fault: the document forbids what the implementation did; Section quotes it.
	Fault = "fault"
	// Should: a SHOULD reading of READINGS.md (an HTTP, JSON or bearer standard the document
	// builds on; a strict run fails it, a plain run warns); kept, like a fault, so that
	// losing it is noticed.
	Should = "should"
	// Advisory: an ADVISORY reading (a practice no normative text requires; a warning even
	// in a strict run); kept too.
	Advisory = "advisory"
	// FalsePositive: the document allows it; the harness was fixed, so the failure must
	// not come back.
	FalsePositive = "false-positive"
	// Unjudged: recorded by -update, waiting for a person to judge it.
	Unjudged = "unjudged"
)

// Judgement is the recorded verdict on one reported failure.
type Judgement struct {
	Verdict string `json:"verdict"`
	// Section is where the document says it, with the sentence quoted.
	Section string `json:"section"`
	// Note says what happened, or how the harness was fixed.
	Note string `json:"note,omitempty"`
	// Intermittent says the failure shows in some runs only, for a reason of the
	// implementation's (a store that a worker restart empties, a server that answers an
	// oversized request and closes while it is still being written): a run without it has
	// not lost it. Note says why.
	Intermittent bool `json:"intermittent,omitempty"`
}

// Miss is a deviation a person found by hand that the harness did not report at first.
type Miss struct {
	// Finding is the id in zoo/FINDINGS.md.
	Finding string `json:"finding"`
	What    string `json:"what"`
	// CaughtBy is the failure key that now reports it ("" while still missed).
	CaughtBy string `json:"caughtBy"`
	// MissedFirst says the harness did not report it when the finding was made: a miss,
	// fixed in the harness since.
	MissedFirst bool `json:"missedFirst,omitempty"`
	// Reclassified says the finding was judged again as a choice the document leaves open:
	// not a deviation, so not a miss.
	Reclassified bool `json:"reclassified,omitempty"`
}

// Implementation is what is recorded of one implementation.
type Implementation struct {
	Framework string `json:"framework"`
	// Failures are the failures of `conformance run --strict --seed 1` by key, judged, and
	// its ADVISORY warnings.
	Failures map[string]Judgement `json:"failures"`
	// Explore is the number of findings `conformance explore` reported, and what they were.
	Explore []string `json:"explore,omitempty"`
	Misses  []Miss   `json:"misses,omitempty"`
	// Unavailable, when set, accepts on purpose that the implementation cannot be installed,
	// started or judged here: make zoo prints it instead of failing.
	Unavailable *Unavailable `json:"unavailable,omitempty"`
}

// Unavailable is a dated, explained acceptance that an implementation is not judged.
type Unavailable struct {
	// Since is the day it was accepted, YYYY-MM-DD.
	Since string `json:"since"`
	// Reason says why it cannot be judged, and what would bring it back.
	Reason string `json:"reason"`
}

// NotJudged decides what an implementation that was not judged (obs.Skipped says why) means
// for the run. With no Skipped, both are empty
// (note says so when a stale unavailable entry remains). Otherwise, when the record holds a dated
// unavailable entry with a reason, note says so and the run goes on; else failure names the
// implementation and why it was not judged, and the run fails: an implementation that could
// not be installed, started or judged is no evidence, and must not pass as "unchanged".
func NotJudged(name string, rec *Implementation, obs Observed) (failure, note string) {
	var u *Unavailable
	if rec != nil {
		u = rec.Unavailable
	}
	if obs.Skipped == "" {
		if u != nil {
			return "", fmt.Sprintf("%s was judged, although the record says it is unavailable since %s: remove that entry", name, u.Since)
		}
		return "", ""
	}
	switch {
	case u == nil:
		return fmt.Sprintf("%s was not judged: %s (no unavailable entry for it in the record)", name, obs.Skipped), ""
	case strings.TrimSpace(u.Reason) == "":
		return fmt.Sprintf("%s was not judged: %s (its unavailable entry gives no reason)", name, obs.Skipped), ""
	}
	if _, err := time.Parse(time.DateOnly, u.Since); err != nil {
		return fmt.Sprintf("%s was not judged: %s (its unavailable entry has no date YYYY-MM-DD: %q)", name, obs.Skipped, u.Since), ""
	}
	return "", fmt.Sprintf("%s was not judged: %s; accepted as unavailable since %s: %s", name, obs.Skipped, u.Since, u.Reason)
}

// Record is zoo/verdicts.json.
type Record map[string]*Implementation

// ReadRecord reads a record file; a missing one is empty.
func ReadRecord(path string) (Record, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Record{}, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Write writes the record, keys sorted, for a readable diff.
func (r Record) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// underscoredID is an id written with an underscore between its digits.
var underscoredID = regexp.MustCompile(`\b\d+_\d+\b`)

// Key names one reported failure stably across runs of the same seed: the rule, the case
// (generated cases are named by their variant, not their values), and the message with its
// values blanked. A shrunk combination is named by what it shrank to: the combination it
// came from depends on the covering array, which any change of the variants redraws. A
// listed animal's id written with an underscore ("petId = 1_24") is the id of whichever
// animal the store listed first, which moves with what earlier runs created: it is blanked.
func Key(rule, caseWords, message string) string {
	if i := strings.Index(caseWords, " (shrunk from "); i >= 0 {
		caseWords = caseWords[:i]
	}
	caseWords = underscoredID.ReplaceAllString(caseWords, "…_…")
	parts := []string{rule}
	if caseWords != "" {
		parts = append(parts, caseWords)
	}
	return strings.Join(append(parts, conformance.BlankValues(message)), " | ")
}

// Observed is what one run of the harness reported for one implementation.
type Observed struct {
	Name string
	// Skipped says why the implementation was not judged (an install that failed, a server
	// that did not start, a harness that could not run against it), if so.
	Skipped string
	// Ran says the plain and strict runs gave reports, whose failures are compared with the
	// record even when a later step (explore) could not judge it.
	Ran bool
	// Failures are the keys of the failures (and ADVISORY warnings) of the strict run; Plain counts the rules the
	// plain run failed, Strict those the strict one failed, Cases the failed cases.
	Failures            []string
	Plain, Strict       int
	Cases               int
	Explore             []string
	RunError, ExploreOK string
}

// Compare says, for one implementation, which recorded faults were not reported (lost),
// which reported failures nobody judged (unjudged), and which failures judged false
// positives came back.
func Compare(rec *Implementation, obs Observed) (lost, unjudged, falsePositives []string) {
	seen := map[string]bool{}
	for _, k := range obs.Failures {
		seen[k] = true
		j, ok := rec.Failures[k]
		switch {
		case !ok || j.Verdict == Unjudged:
			unjudged = append(unjudged, k)
		case j.Verdict == FalsePositive:
			falsePositives = append(falsePositives, k)
		}
	}
	for k, j := range rec.Failures {
		if (j.Verdict == Fault || j.Verdict == Should || j.Verdict == Advisory) && !j.Intermittent && !seen[k] {
			lost = append(lost, k)
		}
	}
	sort.Strings(lost)
	sort.Strings(unjudged)
	sort.Strings(falsePositives)
	return lost, unjudged, falsePositives
}

// Implementations lists the folders of dir that hold a start.sh, sorted.
func Implementations(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "start.sh")); e.IsDir() && err == nil {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

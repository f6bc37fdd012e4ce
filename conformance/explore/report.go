package explore

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/buildinfo"
	"github.com/petstore/petstore/internal/words"
)

// Provenance is what a report needs to reproduce its run: the harness that made it, the
// description it used, the seed and the command line (the key masked). It is conformance
// run's, so that both commands record it alike.
type Provenance = report.Provenance

// NewProvenance is report.NewProvenance for this build of the harness: the flags given as
// --name=value, the key masked wherever it appears.
func NewProvenance(specSHA256 string, seed uint64, flags []string, key string) Provenance {
	return report.NewProvenance(buildinfo.Read().String(), specSHA256, seed, flags, key)
}

// SpecSHA256 is the hex sha256 of a description as read.
func SpecSHA256(spec []byte) string { return report.SpecSHA256(spec) }

func writeProvenance(b *strings.Builder, p Provenance) {
	fmt.Fprintf(b, "  harness %s\n  spec sha256 %s\n", p.Harness, p.SpecSHA256)
}

// Bounds are the limits the run was given.
type Bounds struct {
	Duration   string `json:"duration"`
	Steps      int    `json:"steps,omitempty"`
	MaxCreates int    `json:"maxCreates"`
	// ShrinkTime bounds each part of shrinking a finding (Config.ShrinkTime): the run lasts
	// Duration, then this per part of each finding it shrinks.
	ShrinkTime string  `json:"shrinkTime,omitempty"`
	Rate       float64 `json:"rate,omitempty"`
	Lag        string  `json:"lag"`
	// MaxFindings is how many distinct findings the run was to make at most.
	MaxFindings int `json:"maxFindings"`
}

// Report is what an explore run did and found.
type Report struct {
	Provenance Provenance `json:"provenance"`
	Target     string     `json:"target"`
	InProcess  bool       `json:"inProcess,omitempty"` // Target is the reference, in-process
	Seed       uint64     `json:"seed"`
	Workers    int        `json:"workers"`
	Bounds     Bounds     `json:"bounds"`
	Now        string     `json:"now,omitempty"` // the run's clock, RFC 3339, when one was given
	StoppedBy  string     `json:"stoppedBy"`
	Seconds    float64    `json:"seconds"`
	// Phases counts the phases: the first, and one after each finding (a fresh model).
	Phases            int     `json:"phases"`
	Steps             int     `json:"steps"`
	Requests          int64   `json:"requests"`
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	Created           int64   `json:"created"`
	Throttled         int64   `json:"throttled"`
	PostRequests      int64   `json:"shrinkAndReplayRequests"`
	PostCreated       int64   `json:"shrinkAndReplayCreated"`
	GetGone           bool    `json:"getPetGone,omitempty"`
	// CannotJudge is why the run stopped early when the target could no longer be judged
	// (StopCannotJudge).
	CannotJudge string `json:"cannotJudge,omitempty"`
	// Coverage is what the exploration's requests exercised of the description.
	Coverage *report.Coverage `json:"coverage,omitempty"`
	Findings []Finding        `json:"findings"`
}

// Finding is a violation, the sequence that led to it (shrunk), and how it replays.
type Finding struct {
	Violation
	// Seen counts the steps of the exploration that met its cause, this finding's first.
	Seen int64 `json:"seen"`
	// ReplayFile is where the command wrote the shrunk sequence, if it did.
	ReplayFile    string   `json:"replayFile,omitempty"`
	Worker        int      `json:"worker"`
	Step          int      `json:"step"`
	AfterSeconds  float64  `json:"afterSeconds"`
	AfterRequests int64    `json:"afterRequests"`
	Original      string   `json:"original"`
	Shrunk        Sequence `json:"shrunk"`
	// ShrunkViolation is what a replay of the shrunk sequence met (same rule, perhaps
	// another animal or another message).
	ShrunkViolation *Violation `json:"shrunkViolation,omitempty"`
	ShrinkRuns      int        `json:"shrinkRuns"`
	ShrinkSeconds   float64    `json:"shrinkSeconds"`
	Replays         int        `json:"replays"`
	ReplaysFailed   int        `json:"replaysFailed"`
	Class           string     `json:"class"`
	// ClassNote says why the class is intermittent when the count alone does not.
	ClassNote string `json:"classNote,omitempty"`
	// StateChanged says that the sequence was shrunk and replayed against the target as the
	// exploration left it, not a fresh one; FreshStore, how it went after a reset.
	StateChanged bool        `json:"stateChanged,omitempty"`
	FreshStore   *FreshCheck `json:"freshStore,omitempty"`
	Trace        []Exchange  `json:"trace"`
}

// stateChangedLine says that a sequence was shrunk on a changed store.
const stateChangedLine = "shrunk and replayed against the target as the exploration left it, whose store the exploration had changed"

// ReplayLine is "failed 3 of 10 replays (intermittent)".
func (f Finding) ReplayLine() string {
	if f.Replays == 0 {
		return "not replayed"
	}
	return replayLine(f.ReplaysFailed, f.Replays, f.Class, f.ClassNote)
}

func replayLine(failed, runs int, class, note string) string {
	if note != "" && class == Intermittent {
		class += ": " + note
	}
	return fmt.Sprintf("failed %d of %d replays (%s)", failed, runs, class)
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText writes the report for a person: provenance, what ran, each finding with its
// shrunk sequence, the exchanges of a failing replay and curl lines.
func WriteText(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "conformance explore: %s\n", rep.Target)
	writeProvenance(&b, rep.Provenance)
	fmt.Fprintf(&b, "  seed %d, %d workers, flags: %s\n", rep.Seed, rep.Workers, strings.Join(rep.Provenance.Flags, " "))
	// Shrinking and replaying each finding come after exploring, with bounds of their own.
	fmt.Fprintf(&b, "  bounds: exploring: duration %s, steps %s, max creates %d; then each finding: shrinking up to %s a part, and replays, with max creates %d each; rate %s, allowed lag %s\n",
		rep.Bounds.Duration, bound(rep.Bounds.Steps, "none", "%d"), rep.Bounds.MaxCreates, rep.Bounds.ShrinkTime, rep.Bounds.MaxCreates, bound(rep.Bounds.Rate, "unlimited", "%g/s"), rep.Bounds.Lag)
	if rep.GetGone {
		b.WriteString("  getPet is past its removal date: no getPet steps\n")
	}
	fmt.Fprintf(&b, "ran %.1fs in %s (stopped by %s): %d steps, %d requests (%.0f requests/s), %d animals created, %d throttled answers\n",
		rep.Seconds, words.Plural(rep.Phases, "phase"), stopText(rep), rep.Steps, rep.Requests, rep.RequestsPerSecond, rep.Created, rep.Throttled)
	if rep.Coverage != nil {
		fmt.Fprintf(&b, "%s\n", report.CoverageLine(*rep.Coverage))
	}
	if rep.CannotJudge != "" {
		fmt.Fprintf(&b, "stopped: the target cannot be judged: %s\n", rep.CannotJudge)
	}
	if rep.PostRequests > 0 {
		fmt.Fprintf(&b, "shrinking and replays: %d requests, %d animals created\n", rep.PostRequests, rep.PostCreated)
	}
	for _, f := range rep.Findings {
		writeFinding(&b, f)
	}
	switch {
	case len(rep.Findings) > 0:
		fmt.Fprintf(&b, "%s: NOT CONFORMING\n", words.Plural(len(rep.Findings), "finding"))
	case rep.StoppedBy == StopInterrupt:
		b.WriteString("0 findings in what ran: INTERRUPTED\n")
	case rep.StoppedBy == StopCannotJudge:
		b.WriteString("0 findings in what ran: CANNOT JUDGE\n")
	default:
		b.WriteString("0 findings: nothing contradicts the interface document\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stopText is why the run stopped, for a person.
func stopText(rep *Report) string {
	switch rep.StoppedBy {
	case StopMaxFindings:
		return fmt.Sprintf("max findings: %d distinct findings (--max-findings)", rep.Bounds.MaxFindings)
	case StopRecurring:
		return fmt.Sprintf("recurring: the last %d steps met only faults already found", MaxRecurring)
	}
	return rep.StoppedBy
}

func writeFinding(b *strings.Builder, f Finding) {
	fmt.Fprintf(b, "\nFINDING %s (section %s): %s\n", f.Rule, f.Section, f.Message)
	fmt.Fprintf(b, "  found after %.2fs and %d requests, at worker %d step #%d\n", f.AfterSeconds, f.AfterRequests, f.Worker, f.Step)
	fmt.Fprintf(b, "  met %s while exploring; its cause: %s\n", words.Plural(int(f.Seen), "time"), f.Cause)
	if f.ReplayFile != "" {
		fmt.Fprintf(b, "  replay file: %s\n", f.ReplayFile)
	}
	fmt.Fprintf(b, "  shrunk from %s to %s (%d runs, %.1fs)\n", f.Original, f.Shrunk.Size(), f.ShrinkRuns, f.ShrinkSeconds)
	fmt.Fprintf(b, "  %s\n", f.ReplayLine())
	if f.StateChanged {
		fmt.Fprintf(b, "  %s\n  %s\n", stateChangedLine, f.FreshStore.Line())
	}
	if v := f.ShrunkViolation; v != nil && v.Message != f.Message {
		fmt.Fprintf(b, "  the shrunk sequence meets %s (section %s): %s\n", v.Rule, v.Section, v.Message)
	}
	b.WriteString("  sequence:\n")
	for w, steps := range f.Shrunk.Workers {
		for i, st := range steps {
			fmt.Fprintf(b, "    w%d #%d %s\n", w, i, st)
		}
	}
	writeTrace(b, f.Trace)
}

// writeTrace writes the exchanges and the curl lines that repeat them.
func writeTrace(b *strings.Builder, trace []Exchange) {
	if len(trace) == 0 {
		return
	}
	const shown = 40
	b.WriteString("  exchanges of a failing run:\n")
	from := max(len(trace)-shown, 0)
	if from > 0 {
		fmt.Fprintf(b, "    (%d earlier exchanges left out)\n", from)
	}
	for _, ex := range trace[from:] {
		switch {
		case ex.Skipped != "":
			fmt.Fprintf(b, "    w%d #%d %s: not sent (%s)\n", ex.Worker, ex.Index, ex.Step, ex.Skipped)
		case ex.Error != "":
			fmt.Fprintf(b, "    w%d #%d %s %s -> no answer: %s\n", ex.Worker, ex.Index, ex.Method, ex.URL, ex.Error)
		default:
			fmt.Fprintf(b, "    w%d #%d %s %s %s-> %d %s\n", ex.Worker, ex.Index, ex.Method, ex.URL, bodyText(ex.RequestBody), ex.Status, oneLine(ex.ResponseBody))
		}
	}
	b.WriteString("  curl (the key from $PETSTORE_API_KEY):\n")
	for _, ex := range trace[from:] {
		if ex.Curl != "" && ex.Skipped == "" {
			fmt.Fprintf(b, "    %s\n", ex.Curl)
		}
	}
}

func bodyText(s string) string {
	if s == "" {
		return ""
	}
	return s + " "
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// bound words a bound: zero when it is the zero value ("none", "unlimited"), else as format.
func bound[T comparable](v T, zero, format string) string {
	if v == *new(T) {
		return zero
	}
	return fmt.Sprintf(format, v)
}

package explore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// ReplayFormat names the replay file format and its version. Version 2 added the timeline
// (the schedule of several workers), the run's clock and the replays' count; version 3
// whether the target was the in-process reference, and whether the sequence was shrunk on a
// store the exploration had changed, with how it went on a fresh one; version 4 the causes
// of the run's earlier findings, which the sequence was shrunk passing over; version 5 names
// the rules of the catalogue (and explore's own under explore/), and steps of a DELETE a
// spec adds. Versions 1 to 4 still read (a version 1 file's workers run in lockstep; an
// in-process target is told by its InProcessNote; the rules of 1 to 4 are read as now named,
// legacy.go).
const (
	ReplayFormat = "petstore-explore-replay/5"
)

// InProcessNote follows the URL of a target that is the reference started in-process.
const InProcessNote = " (the reference, in-process)"

// ReplayFile is a shrunk failing sequence with what is needed to run it again: the lag the
// model allowed, the run's clock when one was given, the violation it met and how its
// replays went, and the provenance of the run that found it.
type ReplayFile struct {
	Format     string     `json:"format"`
	Provenance Provenance `json:"provenance"`
	Target     string     `json:"target"`
	// InProcess says that Target was the reference started in-process (its URL is gone).
	InProcess bool      `json:"inProcess,omitempty"`
	Lag       string    `json:"lag"`
	Now       string    `json:"now,omitempty"`
	Finding   Violation `json:"finding"`
	Class     string    `json:"class"`
	ClassNote string    `json:"classNote,omitempty"`
	// Replays and ReplaysFailed are the replays explore made of the sequence before writing it.
	Replays       int `json:"replays,omitempty"`
	ReplaysFailed int `json:"replaysFailed,omitempty"`
	// StateChanged and FreshStore are the finding's (see Finding).
	StateChanged bool        `json:"stateChanged,omitempty"`
	FreshStore   *FreshCheck `json:"freshStore,omitempty"`
	// PassOver are the causes of the findings the run made before this one: a violation of
	// one is passed over, as explore passed over it while shrinking the sequence.
	PassOver []string `json:"passOver,omitempty"`
	Sequence
}

// NewReplayFile is the replay file of a finding of rep.
func NewReplayFile(rep *Report, f Finding) ReplayFile {
	rf := ReplayFile{Format: ReplayFormat, Provenance: rep.Provenance, Target: rep.Target, InProcess: rep.InProcess, Lag: rep.Bounds.Lag, Now: rep.Now,
		Finding: f.Violation, Class: f.Class, ClassNote: f.ClassNote, Replays: f.Replays, ReplaysFailed: f.ReplaysFailed,
		StateChanged: f.StateChanged, FreshStore: f.FreshStore, Sequence: f.Shrunk}
	for _, earlier := range rep.Findings {
		if earlier.Cause == f.Cause {
			break
		}
		rf.PassOver = append(rf.PassOver, earlier.Cause)
	}
	return rf
}

// WriteReplayFile writes rf to path, creating its directory.
func WriteReplayFile(path string, rf ReplayFile) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(rf, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadReplayFile reads and checks a replay file: known format, known operations, and
// references to earlier createPet steps of the same worker.
func ReadReplayFile(path string) (ReplayFile, error) {
	var rf ReplayFile
	data, err := os.ReadFile(path)
	if err != nil {
		return rf, fmt.Errorf("replay file: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rf); err != nil {
		return rf, fmt.Errorf("replay file %s: %w", path, err)
	}
	if v, ok := strings.CutPrefix(rf.Format, "petstore-explore-replay/"); !ok || len(v) != 1 || v < "1" || v > ReplayFormat[len(ReplayFormat)-1:] {
		return rf, fmt.Errorf("replay file %s: format %q, want %q", path, rf.Format, ReplayFormat)
	}
	if rf.Len() == 0 {
		return rf, fmt.Errorf("replay file %s: no steps", path)
	}
	if err := checkSteps(nil, rf.Sequence); err != nil {
		return rf, fmt.Errorf("replay file %s: %w", path, err)
	}
	if len(rf.Timeline) > 0 {
		if err := checkTimeline(rf.Timeline, rf.Workers); err != nil {
			return rf, fmt.Errorf("replay file %s: timeline: %w", path, err)
		}
	}
	if rf.Now != "" {
		if _, err := time.Parse(time.RFC3339, rf.Now); err != nil {
			return rf, fmt.Errorf("replay file %s: now: %w", path, err)
		}
	}
	return rf, nil
}

// RecordedInProcess says whether the file was recorded against the reference started
// in-process (a file older than version 3 says so by its target's InProcessNote).
func (rf ReplayFile) RecordedInProcess() bool {
	return rf.InProcess || strings.HasSuffix(rf.Target, InProcessNote)
}

// Recorded is the base URL the file was recorded against, for a target given by URL: "" for
// the in-process reference, or when the file records none. The error says why the URL
// cannot be used as it stands (a password the file does not keep).
func (rf ReplayFile) Recorded() (string, error) {
	if rf.RecordedInProcess() || rf.Target == "" {
		return "", nil
	}
	if u, err := url.Parse(rf.Target); err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("the recorded target %q is no URL", rf.Target)
	} else if _, has := u.User.Password(); has {
		return "", fmt.Errorf("the recorded target %s had a password, which the file does not keep", rf.Target)
	} else if strings.Contains(rf.Target, "$PETSTORE_") { // a user or query values, masked
		return "", fmt.Errorf("the recorded target %s had secrets in its URL, which the file does not keep", rf.Target)
	}
	return rf.Target, nil
}

// SameTarget says whether baseURL is the target the file was recorded against (the password
// of a URL aside, which the file does not keep).
func (rf ReplayFile) SameTarget(baseURL string) bool {
	if rf.RecordedInProcess() || rf.Target == "" {
		return false
	}
	u, err := url.Parse(baseURL)
	return err == nil && strings.TrimRight(exchange.NewRedactor("").URL(u), "/") == strings.TrimRight(rf.Target, "/")
}

// checkSteps checks each step of seq: a reference to an earlier createPet step of its worker,
// a known way of sending the key and, with the spec's facts (f not nil), an operation explore
// sends, with one id for an operation on one animal, a reference (the run's own animal) for
// one that may change it.
func checkSteps(f *spec.Facts, seq Sequence) error {
	for w, steps := range seq.Workers {
		for i, st := range steps {
			ids := len(slices.DeleteFunc([]bool{st.Ref != nil, st.Listed != nil, st.ID != ""}, func(b bool) bool { return !b }))
			op, known := spec.Operation{}, f == nil
			if f != nil {
				op, known = f.ByID[st.Op]
				_, sent := operationsOf(f).byID[st.Op]
				item := strings.Contains(op.Path, "{")
				known = known && sent && (ids == 1) == item && (st.Ref != nil || !item || !cases.Unsafe(op.Method))
			}
			var err error
			switch {
			case st.Op == "" || !known || ids > 1:
				err = fmt.Errorf("op %q is none explore sends, or its ref, listed or id is not the one it takes", st.Op)
			case st.Ref != nil && (*st.Ref < 0 || *st.Ref >= i || steps[*st.Ref].Op != opCreate):
				err = fmt.Errorf("ref %d is not an earlier createPet step", *st.Ref)
			case st.Listed != nil && *st.Listed < 0:
				err = fmt.Errorf("listed %d is negative", *st.Listed)
			case st.Auth != "" && st.Auth != authNone && st.Auth != authWrong:
				err = fmt.Errorf("unknown auth %q (want %q or %q)", st.Auth, authNone, authWrong)
			}
			if err != nil {
				return fmt.Errorf("worker %d step #%d: %w", w, i, err)
			}
		}
	}
	return nil
}

// ReplayConfig configures Replay.
type ReplayConfig struct {
	Target exchange.Target
	Doc    *openapi3.T
	Facts  *spec.Facts   // Doc's, when read already (nil: read here)
	Lag    time.Duration // the allowed lag; zero takes the file's
	Times  int
	// Timeout bounds each request; MaxWait the time waited in all for 429 and 503 answers
	// (see Config.MaxWait).
	Timeout time.Duration
	MaxWait time.Duration
	// MaxCreates bounds the animals all the runs together create.
	MaxCreates int
	// Fresh, when set, gives each run a new instance of the target (see Config.Fresh).
	Fresh func() (exchange.Target, func(), error)
	// Provenance of the replay (its harness, spec and flags) is copied into the report.
	Provenance Provenance
	// InProcess says that Target is the reference started in-process (with Fresh, a new one
	// for each run).
	InProcess bool
}

// ReplayReport is what the runs of a replay file met.
type ReplayReport struct {
	Provenance Provenance `json:"provenance"`
	// Recorded is the provenance of the explore run that wrote the file.
	Recorded  Provenance `json:"recorded"`
	Target    string     `json:"target"`
	InProcess bool       `json:"inProcess,omitempty"`
	// RecordedTarget is the target the file was recorded against; Elsewhere says that this
	// replay went to another.
	RecordedTarget string    `json:"recordedTarget,omitempty"`
	Elsewhere      bool      `json:"elsewhere,omitempty"`
	Expected       Violation `json:"expected"`
	// PassOver are the file's (see ReplayFile).
	PassOver  []string   `json:"passOver,omitempty"`
	Runs      int        `json:"runs"`
	Failed    int        `json:"failed"`
	Class     string     `json:"class"`
	Violation *Violation `json:"violation,omitempty"` // of the first failing run
	Trace     []Exchange `json:"trace,omitempty"`
	Requests  int64      `json:"requests"`
	Created   int64      `json:"created"`
	Stopped   string     `json:"stopped,omitempty"` // why fewer runs than asked were made
	ClassNote string     `json:"classNote,omitempty"`
	// RecordedClass and RecordedLine are how explore's replays of the sequence went.
	RecordedClass string `json:"recordedClass,omitempty"`
	RecordedLine  string `json:"recordedLine,omitempty"`
	// RecordedStateChanged and RecordedFreshStore are the file's StateChanged and FreshStore.
	RecordedStateChanged bool        `json:"recordedStateChanged,omitempty"`
	RecordedFreshStore   *FreshCheck `json:"recordedFreshStore,omitempty"`
}

// Replay runs the file's sequence cfg.Times times against the target, each run as explore ran
// it while shrinking and replaying (play: a fresh target when there is one, the first
// request, the workers by the file's timeline), and counts the runs that meet a violation. A
// file explore found intermittent stays intermittent when every run fails.
func Replay(ctx context.Context, cfg ReplayConfig, rf ReplayFile) (*ReplayReport, error) {
	f, err := factsOf(cfg.Doc, cfg.Facts)
	if err != nil {
		return nil, err
	}
	if err := checkSteps(f, rf.Sequence); err != nil {
		return nil, fmt.Errorf("replay file: %w", err)
	}
	rf.upgrade(f.Statuses)
	if cfg.Lag == 0 {
		if cfg.Lag, err = time.ParseDuration(rf.Lag); err != nil {
			cfg.Lag = DefaultLag
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	r, err := newRunner(cfg.Target, f, sessionOptions{lag: cfg.Lag, timeout: cfg.Timeout, workers: len(rf.Workers), maxWait: cfg.MaxWait}, cfg.Fresh)
	if err != nil {
		return nil, err
	}
	if _, _, err := r.preflight(ctx); err != nil {
		return nil, err
	}
	r.known = causes{}
	for _, c := range rf.PassOver {
		r.known[c] = &atomic.Int64{}
	}
	creates := &budget{max: int64(cfg.MaxCreates)}
	res := replay(ctx, r, creates, rf.Sequence, max(cfg.Times, 1))
	out := &ReplayReport{Provenance: cfg.Provenance, Recorded: rf.Provenance, Target: r.sess.Target(), Expected: rf.Finding,
		Runs: res.runs, Failed: res.failed, Class: classOf(res.runs, res.failed, rf.Class == Intermittent), Violation: res.violation,
		Trace: res.trace, Requests: r.requests(), Created: creates.used.Load(), RecordedClass: rf.Class,
		InProcess: cfg.InProcess, RecordedTarget: rf.Target, RecordedStateChanged: rf.StateChanged, RecordedFreshStore: rf.FreshStore,
		PassOver: rf.PassOver}
	if cfg.InProcess {
		out.Target += InProcessNote
		out.Elsewhere = !rf.RecordedInProcess()
	} else {
		out.Elsewhere = !rf.SameTarget(cfg.Target.BaseURL)
	}
	if out.Class == Intermittent && rf.Class == Intermittent {
		out.ClassNote = rf.ClassNote
		if res.failed == res.runs {
			out.ClassNote = cmp.Or(rf.ClassNote, "recorded as intermittent")
		}
	}
	if rf.Replays > 0 {
		out.RecordedLine = replayLine(rf.ReplaysFailed, rf.Replays, rf.Class, rf.ClassNote)
	}
	if res.err != nil {
		out.Stopped = res.err.Error()
	}
	return out, nil
}

// WriteReplayText writes a replay's outcome for a person.
func WriteReplayText(w io.Writer, rr *ReplayReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "conformance replay: %s\n", rr.Target)
	switch {
	case rr.Elsewhere && rr.RecordedTarget != "":
		fmt.Fprintf(&b, "  replayed elsewhere: the finding was recorded against %s\n", rr.RecordedTarget)
	case rr.Elsewhere:
		b.WriteString("  replayed elsewhere: the file records no target\n")
	case rr.InProcess:
		b.WriteString("  a fresh reference for each run, as the finding was recorded against the reference in-process\n")
	}
	writeProvenance(&b, rr.Provenance)
	fmt.Fprintf(&b, "  recorded finding: %s (section %s): %s\n", rr.Expected.Rule, rr.Expected.Section, rr.Expected.Message)
	fmt.Fprintf(&b, "  recorded by harness %s, spec sha256 %s, seed %d, flags: %s\n", rr.Recorded.Harness, rr.Recorded.SpecSHA256,
		rr.Recorded.Seed, strings.Join(rr.Recorded.Flags, " "))
	if rr.Recorded.SpecSHA256 != "" && rr.Provenance.SpecSHA256 != "" && rr.Recorded.SpecSHA256 != rr.Provenance.SpecSHA256 {
		b.WriteString("  the spec differs from the one the finding was recorded with\n")
	}
	if rr.RecordedLine != "" {
		fmt.Fprintf(&b, "  when recorded: %s\n", rr.RecordedLine)
	}
	if rr.RecordedStateChanged {
		fmt.Fprintf(&b, "  when recorded: %s\n", strings.TrimSuffix(stateChangedLine+"; "+rr.RecordedFreshStore.Line(), "; "))
	}
	for _, c := range rr.PassOver {
		fmt.Fprintf(&b, "  passes over the fault of an earlier finding of the run: %s\n", c)
	}
	fmt.Fprintf(&b, "%s; %d requests, %d animals created\n", replayLine(rr.Failed, rr.Runs, rr.Class, rr.ClassNote), rr.Requests, rr.Created)
	if rr.Stopped != "" {
		fmt.Fprintf(&b, "  stopped early: %s\n", rr.Stopped)
	}
	if rr.Violation != nil {
		fmt.Fprintf(&b, "\nFINDING %s (section %s): %s\n", rr.Violation.Rule, rr.Violation.Section, rr.Violation.Message)
		writeTrace(&b, rr.Trace)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ReplayCommand is the command line that runs the replay file again against rep's target:
// with its base URL and the key read from $PETSTORE_API_KEY, unless the target was the
// reference in-process, then the flags extra (as --name=value: how to reach and judge the
// target, such as --spec or --ca-cert). The key itself never appears.
func ReplayCommand(file string, rep *Report, extra ...string) string {
	words := []string{"conformance", "replay", shellWord(file)}
	if !rep.InProcess {
		words = append(words, "--base-url", shellWord(rep.Target), "--api-key", `"`+report.KeyPlaceholder+`"`)
	}
	for _, f := range extra {
		words = append(words, shellWord(f))
	}
	return strings.Join(words, " ")
}

// shellWord is s as one shell word: bare when nothing in it is special to the shell.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// ReplayFormat names the replay file format and its version.
const ReplayFormat = "petstore-explore-replay/1"

// ReplayFile is a shrunk failing sequence with what is needed to run it again: the lag the
// model allowed, the violation it met, and the provenance of the run that found it.
type ReplayFile struct {
	Format     string     `json:"format"`
	Provenance Provenance `json:"provenance"`
	Target     string     `json:"target"`
	Lag        string     `json:"lag"`
	Finding    Violation  `json:"finding"`
	Class      string     `json:"class"`
	Sequence
}

// NewReplayFile is the replay file of a finding of rep.
func NewReplayFile(rep *Report, f Finding) ReplayFile {
	return ReplayFile{Format: ReplayFormat, Provenance: rep.Provenance, Target: rep.Target, Lag: rep.Bounds.Lag,
		Finding: f.Violation, Class: f.Class, Sequence: f.Shrunk}
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
	if rf.Format != ReplayFormat {
		return rf, fmt.Errorf("replay file %s: format %q, want %q", path, rf.Format, ReplayFormat)
	}
	if rf.Len() == 0 {
		return rf, fmt.Errorf("replay file %s: no steps", path)
	}
	for w, steps := range rf.Workers {
		for i, st := range steps {
			if err := checkStep(steps, i, st); err != nil {
				return rf, fmt.Errorf("replay file %s: worker %d step #%d: %w", path, w, i, err)
			}
		}
	}
	return rf, nil
}

func checkStep(steps []Step, i int, st Step) error {
	switch st.Op {
	case opList, opCreate:
	case opGet:
		n := 0
		for _, set := range []bool{st.Ref != nil, st.Listed != nil, st.ID != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("a getPet step needs exactly one of ref, listed and id")
		}
		if st.Ref != nil && (*st.Ref < 0 || *st.Ref >= i || steps[*st.Ref].Op != opCreate) {
			return fmt.Errorf("ref %d is not an earlier createPet step", *st.Ref)
		}
		if st.Listed != nil && *st.Listed < 0 {
			return fmt.Errorf("listed %d is negative", *st.Listed)
		}
	default:
		return fmt.Errorf("unknown op %q (want %s, %s or %s)", st.Op, opList, opCreate, opGet)
	}
	if st.Auth != "" && st.Auth != authNone && st.Auth != authWrong {
		return fmt.Errorf("unknown auth %q (want %q or %q)", st.Auth, authNone, authWrong)
	}
	return nil
}

// ReplayConfig configures Replay.
type ReplayConfig struct {
	Target  Target
	Doc     *openapi3.T
	Now     time.Time
	Lag     time.Duration // the allowed lag; zero takes the file's
	Times   int
	Timeout time.Duration
	// MaxCreates bounds the animals all the runs together create.
	MaxCreates int
	// Fresh, when set, gives each run a new instance of the target (see Config.Fresh).
	Fresh func() (Target, func(), error)
}

// ReplayReport is what the runs of a replay file met.
type ReplayReport struct {
	Target    string     `json:"target"`
	Expected  Violation  `json:"expected"`
	Runs      int        `json:"runs"`
	Failed    int        `json:"failed"`
	Class     string     `json:"class"`
	Violation *Violation `json:"violation,omitempty"` // of the first failing run
	Trace     []Exchange `json:"trace,omitempty"`
	Requests  int64      `json:"requests"`
	Created   int64      `json:"created"`
	Stopped   string     `json:"stopped,omitempty"` // why fewer runs than asked were made
}

// Replay runs the file's sequence cfg.Times times against the target and counts the runs that
// meet a violation (of any rule: a replay against a changed service may fail differently).
func Replay(ctx context.Context, cfg ReplayConfig, rf ReplayFile) (*ReplayReport, error) {
	f, err := LoadFacts(cfg.Doc, cfg.Now)
	if err != nil {
		return nil, err
	}
	if cfg.Lag == 0 {
		if cfg.Lag, err = time.ParseDuration(rf.Lag); err != nil {
			cfg.Lag = DefaultLag
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	r := newRunner(cfg.Target, f, cfg.Timeout, 0, cfg.Fresh)
	if err := r.preflight(ctx); err != nil {
		return nil, err
	}
	creates := &budget{max: int64(cfg.MaxCreates)}
	res := replay(ctx, r, Config{Lag: cfg.Lag}, creates, rf.Sequence, "", max(cfg.Times, 1))
	out := &ReplayReport{Target: redactURL(cfg.Target.BaseURL), Expected: rf.Finding, Runs: res.runs, Failed: res.failed,
		Class: classOf(res.runs, res.failed), Violation: res.violation, Trace: res.trace, Requests: r.c.requests.Load(), Created: creates.used.Load()}
	if res.err != nil {
		out.Stopped = res.err.Error()
	}
	return out, nil
}

// WriteReplayText writes a replay's outcome for a person.
func WriteReplayText(w io.Writer, rr *ReplayReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "conformance replay: %s\n", rr.Target)
	fmt.Fprintf(&b, "  recorded finding: %s (section %s): %s\n", rr.Expected.Rule, rr.Expected.Section, rr.Expected.Message)
	fmt.Fprintf(&b, "failed %d of %d replays (%s); %d requests, %d animals created\n", rr.Failed, rr.Runs, rr.Class, rr.Requests, rr.Created)
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

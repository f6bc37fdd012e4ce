package seqmutants

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/explore"
	"github.com/petstore/petstore/internal/words"
)

// Options shape the explore runs of a measurement.
type Options struct {
	ShrinkTime time.Duration // per finding; zero: explore's default
	Replays    int           // of the shrunk sequence, to classify it
	// ReplayFileRuns is how often the written replay file is run again to show that the
	// finding reproduces; zero skips that check.
	ReplayFileRuns int
	// Budget, when its Steps is set, replaces every mutant's own.
	Budget Budget
	// Dir receives the replay files; "" means a temporary directory.
	Dir string
	// Lag is the visibility lag explore allows; zero is explore.DefaultLag.
	Lag time.Duration
	// MaxFindings is how many distinct findings a run makes before it stops; zero is one:
	// what is measured is the first (found, how soon, shrunk to what, its replay file), and
	// a run stops there. More show how many causes one fault is reported as.
	MaxFindings int
}

// Outcome is one explore run against one server.
type Outcome struct {
	Seed       uint64
	Report     *explore.Report
	Found      bool
	Rule       string        // of the first finding
	Rules      []string      // of every finding, the first's first
	After      time.Duration // until the finding, before shrinking
	Shrunk     int           // steps of the shrunk sequence
	Class      string
	Reproduced int // failing runs of the replay file
	ReplayRuns int // runs of the replay file made (Options.ReplayFileRuns unless stopped)
}

// Reproduces says whether the replay file showed the finding again, run the way conformance
// replay runs it: on every run for a deterministic finding, on at least one for an
// intermittent one.
func (o Outcome) Reproduces() bool {
	if o.Class == explore.Deterministic {
		return o.ReplayRuns > 0 && o.Reproduced == o.ReplayRuns
	}
	return o.Reproduced > 0
}

// RunOne explores a fresh server of m with seed, within m's budget.
func RunOne(ctx context.Context, doc *openapi3.T, m Mutant, seed uint64, o Options) (Outcome, error) {
	doc, text, err := m.Spec(doc)
	if err != nil {
		return Outcome{}, err
	}
	t, stop, err := Serve(doc, m)
	if err != nil {
		return Outcome{}, err
	}
	defer stop()
	b := m.Budget
	if o.Budget.Steps > 0 {
		b = o.Budget
	}
	cfg := explore.Config{Target: t, Doc: doc, Seed: seed, Workers: max(b.Workers, 1), Steps: b.Steps, Duration: 2 * time.Minute,
		MaxCreates: 5 * b.Steps, Lag: cmp.Or(o.Lag, explore.DefaultLag), Replays: o.Replays, ShrinkTime: o.ShrinkTime, Timeout: 5 * time.Second,
		MaxFindings: cmp.Or(o.MaxFindings, 1)}
	cfg.Fresh = func() (exchange.Target, func(), error) { return Serve(doc, m) }
	// What conformance explore would be given for this run, against a server of the mutant.
	cfg.Provenance = explore.NewProvenance(explore.SpecSHA256(text), seed, []string{"--mutant=" + m.Name,
		"--workers=" + strconv.Itoa(cfg.Workers), "--steps=" + strconv.Itoa(cfg.Steps), "--max-creates=" + strconv.Itoa(cfg.MaxCreates),
		"--lag=" + cfg.Lag.String(), "--replays=" + strconv.Itoa(cfg.Replays), "--shrink-time=" + o.ShrinkTime.String(),
		"--max-findings=" + strconv.Itoa(cfg.MaxFindings)}, t.APIKey)
	rep, err := explore.Run(ctx, cfg)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s seed %d: %w", m.Name, seed, err)
	}
	out := Outcome{Seed: seed, Report: rep}
	if len(rep.Findings) == 0 {
		return out, nil
	}
	for _, f := range rep.Findings {
		out.Rules = append(out.Rules, f.Rule)
	}
	f := rep.Findings[0]
	out.Found, out.Rule, out.Class = true, f.Rule, f.Class
	out.After, out.Shrunk = time.Duration(f.AfterSeconds*float64(time.Second)), f.Shrunk.Len()
	if o.ReplayFileRuns == 0 {
		return out, nil
	}
	dir := o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "seqmutants-"); err != nil {
			return out, err
		}
		defer os.RemoveAll(dir)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.json", m.Name, seed))
	if err := explore.WriteReplayFile(path, explore.NewReplayFile(rep, f)); err != nil {
		return out, err
	}
	rf, err := explore.ReadReplayFile(path)
	if err != nil {
		return out, err
	}
	rr, err := explore.Replay(ctx, explore.ReplayConfig{Target: t, Doc: doc, Times: o.ReplayFileRuns, MaxCreates: cfg.MaxCreates,
		Fresh: cfg.Fresh}, rf)
	if err != nil {
		return out, err
	}
	out.Reproduced, out.ReplayRuns = rr.Failed, rr.Runs
	return out, nil
}

// Row is one mutant over several seeds.
type Row struct {
	Mutant   Mutant
	Outcomes []Outcome
	Options  Options
}

// Found counts the seeds on which the mutant was found.
func (r Row) Found() int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Found {
			n++
		}
	}
	return n
}

func (r Row) found() []Outcome {
	return slices.DeleteFunc(slices.Clone(r.Outcomes), func(o Outcome) bool { return !o.Found })
}

// MedianAfter is the median time to find over the seeds that found it.
func (r Row) MedianAfter() time.Duration {
	var d []time.Duration
	for _, o := range r.found() {
		d = append(d, o.After)
	}
	return median(d)
}

// MedianShrunk is the median length of the shrunk sequences.
func (r Row) MedianShrunk() int {
	var n []int
	for _, o := range r.found() {
		n = append(n, o.Shrunk)
	}
	return median(n)
}

func median[T int | time.Duration](v []T) T {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// WriteTable writes the rows as a markdown table.
func WriteTable(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| Mutant | Fault | Budget | Found | Median time to find | Median shrunk length | Rules | Classes | Replay file reproduces (deterministic: every run) |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		budget := r.Mutant.Budget
		if r.Options.Budget.Steps > 0 {
			budget = r.Options.Budget
		}
		after, shrunk := "-", "-" // nothing found: nothing to measure
		if r.Found() > 0 {
			after, shrunk = r.MedianAfter().Round(time.Millisecond).String(), words.Plural(r.MedianShrunk(), "step")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d/%d | %s | %s | %s | %s | %s |\n", r.Mutant.Name, r.Mutant.Fault, budget,
			r.Found(), len(r.Outcomes), after, shrunk,
			tally(r.found(), func(o Outcome) []string { return o.Rules }), tally(r.found(), func(o Outcome) []string { return []string{o.Class} }),
			reproduced(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func reproduced(r Row) string {
	if r.Options.ReplayFileRuns == 0 {
		return "not checked"
	}
	return fmt.Sprintf("%d/%d", r.Reproducing(), r.Found())
}

// Reproducing counts the seeds whose replay file reproduced the finding (see
// Outcome.Reproduces).
func (r Row) Reproducing() int {
	n := 0
	for _, o := range r.found() {
		if o.Reproduces() {
			n++
		}
	}
	return n
}

// tally is "a ×3, b ×1", most frequent first, over the keys of every outcome.
func tally(os []Outcome, key func(Outcome) []string) string {
	counts := map[string]int{}
	var keys []string
	for _, o := range os {
		for _, k := range key(o) {
			if counts[k] == 0 {
				keys = append(keys, k)
			}
			counts[k]++
		}
	}
	slices.SortStableFunc(keys, func(a, b string) int { return counts[b] - counts[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, counts[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

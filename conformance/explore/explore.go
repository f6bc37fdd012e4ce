package explore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/internal/buildinfo"
	"github.com/petstore/petstore/spec"
)

// Defaults of Config.
const (
	DefaultLag        = time.Second
	DefaultReplays    = 10
	DefaultShrinkTime = 30 * time.Second
	DefaultTimeout    = exchange.DefaultTimeout
	// DefaultMaxCreates is conformance run's budget of creates (rules.DefaultMaxCreates, which
	// a test holds it to): the two commands ask the same of a shared target by default.
	DefaultMaxCreates = 500
	// DefaultMaxFindings is how many distinct findings a run makes before it stops.
	DefaultMaxFindings = 5
	// MaxRecurring is how many steps in a row may meet only faults already found before the
	// run stops (StopRecurring): beyond it the faults found hide everything else.
	MaxRecurring = 200
)

// Config bounds and shapes a run.
type Config struct {
	Target exchange.Target
	// Doc is the description the model is read from; Facts, its facts when the caller read
	// them already (spec.ReadFacts), nil to read them here.
	Doc   *openapi3.T
	Facts *spec.Facts
	// Now is the run's clock for getPet's removal date; zero is time.Now.
	Now time.Time
	// Seed and Workers decide the steps: worker w draws from PCG(Seed, w+1).
	Seed    uint64
	Workers int
	// Duration and Steps bound the exploration (zero: no bound; at least one must be set):
	// the time and the steps of all workers in all phases together, shrinking aside.
	Duration time.Duration
	Steps    int
	// MaxFindings is how many distinct findings (by cause, see causeOf) the run makes before
	// it stops; zero is DefaultMaxFindings.
	MaxFindings int
	// MaxCreates bounds the animals the exploration creates; shrinking and the replays of
	// each finding have a budget of the same size each.
	MaxCreates int
	// Rate is the most requests per second of all workers together; zero is no limit.
	Rate float64
	// Lag is how long after its creation an animal may still be missing from answers.
	Lag time.Duration
	// Replays is how often the shrunk sequence is run to tell deterministic from intermittent.
	Replays int
	// ShrinkTime bounds each part of shrinking: finding a form of the failing sequence that
	// fails again (after one run of each form in one worker, which only ctx bounds), making
	// it smaller, and the replays that settle it.
	ShrinkTime time.Duration
	// Timeout bounds each request.
	Timeout time.Duration
	// MaxWait bounds the time waited in all for 429 and 503 answers, as for conformance run
	// (zero: exchange.DefaultMaxWait); beyond it the target cannot be judged and the run
	// stops (StopCannotJudge).
	MaxWait time.Duration
	// Provenance is copied into the report and the replay file.
	Provenance Provenance
	// Fresh, when set, starts a new instance of the target (an in-process server) for each
	// run of shrinking and replays, and returns it with the function that stops it: the
	// shrunk sequence then needs no state the exploration left behind. Without it every run
	// goes to Target as it now is.
	Fresh func() (exchange.Target, func(), error)
	// EmptyStore says that the store of Target (and of each Fresh one) starts with no
	// animals, as the reference started in-process: the first request, a listing, is then
	// judged as the first step (an empty listing), and until something is created in the
	// store the model knows every animal, and a listing filtered by a status no animal has is
	// asked for (an answer that must be empty).
	EmptyStore bool
	// AdminKey, when set, is the bearer token of the target's reset (POST /_admin/reset beside
	// the base path, as the reference server offers it with its admin key). Without Fresh, a
	// finding shrunk against the target as the exploration left it is then played once more
	// after a reset, to see whether it needs that state. The reset puts the store back as it
	// started (the reference: its seed animals).
	AdminKey string
}

func (c *Config) defaults() error {
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.Duration <= 0 && c.Steps <= 0 {
		return errors.New("want a duration or a number of steps")
	}
	if c.Lag < 0 || c.MaxCreates < 0 || c.Rate < 0 || c.Replays < 0 || c.MaxWait < 0 {
		return errors.New("the lag, the budget of creates, the rate, the replays and the wait cannot be negative")
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = DefaultShrinkTime
	}
	if c.MaxFindings <= 0 {
		c.MaxFindings = DefaultMaxFindings
	}
	return nil
}

// Run explores the target in phases until a bound is reached, Config.MaxFindings distinct
// findings are made, the faults found are all the steps meet (MaxRecurring), or ctx is
// cancelled. On a store that starts empty (Config.EmptyStore) the first request, a listing, is
// judged as a step: it is the one listing certain to come before any create. A phase ends at a violation of a cause
// not met before: it is shrunk and replayed, and a new phase starts with a fresh model on the
// store as it now is (the model holds animals it did not create, as it holds the store's
// first ones, to be other clients'). A violation of a known cause is counted on its finding
// and the phase goes on. The report says what ran in every case. The error is set only when
// the run could not be made.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	f, err := factsOf(cfg.Doc, cfg.Facts)
	if err != nil {
		return nil, err
	}
	r, err := newRunner(cfg.Target, f, sessionOptions{lag: cfg.Lag, timeout: cfg.Timeout, rate: cfg.Rate, workers: cfg.Workers, maxWait: cfg.MaxWait}, cfg.Fresh)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	first, opening, err := r.preflight(ctx)
	if err != nil {
		return nil, err
	}
	if !cfg.EmptyStore {
		opening = nil // the first listing only says that the target can be explored
	}
	rep := &Report{Provenance: cfg.Provenance, Target: r.sess.Target(), Seed: cfg.Seed, Workers: cfg.Workers,
		Bounds:  Bounds{Duration: cfg.Duration.String(), Steps: cfg.Steps, MaxCreates: cfg.MaxCreates, ShrinkTime: cfg.ShrinkTime.String(), Rate: cfg.Rate, Lag: cfg.Lag.String(), MaxFindings: cfg.MaxFindings},
		GetGone: f.ByID[opGet].Gone(cmp.Or(cfg.Now, time.Now()))}
	rep.Provenance.Seed = cfg.Seed
	if rep.Provenance.Harness == "" {
		rep.Provenance.Harness = buildinfo.Read().String()
	}
	if !cfg.Now.IsZero() {
		rep.Now = cfg.Now.Format(time.RFC3339)
	}
	e := &exploration{r: r, cfg: cfg, rep: rep, creates: &budget{max: int64(cfg.MaxCreates)}, untouched: cfg.EmptyStore}
	r.known = causes{}
	if cfg.EmptyStore && opening == nil {
		rep.Steps = 1 // the first listing, judged; else it is the first phase's one step
		e.steps.Store(1)
	}
	var explored time.Duration // the time spent exploring, shrinking aside
	for phase := 0; ; phase++ {
		var ph phaseResult
		phaseStart := time.Now()
		if phase == 0 {
			phaseStart = start // the first request is the first phase's
		}
		if phase == 0 && opening != nil {
			// The first listing met a violation: the phase is that one step.
			first.fill()
			seq := Sequence{Workers: [][]Step{{first.Step}}}
			ph = phaseResult{seq: seq, found: &found{v: opening, after: time.Since(start), requests: r.requests(), trace: []Exchange{first},
				serial: []Sequence{seq}}, stop: stopInfo{reason: StopFinding}}
		} else {
			cfg := e.cfg // within what is left of the bounds
			if cfg.Duration > 0 {
				cfg.Duration -= explored
			}
			seq, fd, stop := explorePhase(ctx, r, cfg, phaseSpec{n: phase, creates: e.creates, steps: &e.steps, all: e.untouched})
			e.untouched = e.untouched && !stop.sentCreate
			ph = phaseResult{seq: seq, found: fd, stop: stop}
		}
		ph.seconds = time.Since(phaseStart)
		explored += ph.seconds
		rep.Phases++
		rep.Steps += ph.seq.Len()
		e.steps.Store(int64(rep.Steps)) // the steps drawn but not sent are not counted
		if ph.found == nil {
			rep.StoppedBy = ph.stop.reason
			break
		}
		e.finding(ctx, ph, explored)
		if rep.StoppedBy = e.stopAfterFinding(ctx, explored); rep.StoppedBy != "" {
			break
		}
	}
	for i := range rep.Findings {
		rep.Findings[i].Seen = r.known[rep.Findings[i].Cause].Load()
	}
	rep.Seconds = explored.Seconds()
	rep.Requests = r.requests() - rep.PostRequests
	rep.Created = e.creates.used.Load()
	rep.Throttled = r.throttled()
	if h := r.sess.Halted(); h != nil {
		rep.CannotJudge = h.Error()
	}
	cov := r.sess.Coverage()
	rep.Coverage = &cov
	if rep.Seconds > 0 {
		rep.RequestsPerSecond = float64(rep.Requests) / rep.Seconds
	}
	return rep, nil
}

// exploration is a run's state between its phases.
type exploration struct {
	r       *runner
	cfg     Config
	rep     *Report
	creates *budget // the exploration's creates, over all phases
	steps   atomic.Int64
	// untouched says that the store is still as it started, empty (Config.EmptyStore): nothing
	// was created in it yet.
	untouched bool
}

// finding makes the finding of a phase: shrunk and replayed unless the run was interrupted,
// and its cause known from now on.
func (e *exploration) finding(ctx context.Context, ph phaseResult, explored time.Duration) {
	found, seq := ph.found, ph.seq
	fd := Finding{Violation: *found.v, Worker: found.worker, Step: found.index,
		AfterSeconds:  (explored - ph.seconds + found.after).Seconds(),
		AfterRequests: found.requests - e.rep.PostRequests, Original: seq.Size(), Shrunk: seq.normal(), Trace: found.trace}
	if ctx.Err() == nil {
		changed := e.creates.used.Load()
		if e.cfg.Fresh == nil {
			changed += e.rep.PostCreated // shrinking and the replays of earlier findings created there too
		}
		e.shrink(ctx, &fd, found, changed)
		e.untouched = e.untouched && (e.cfg.Fresh != nil || e.rep.PostCreated == 0)
	}
	fd.Class = classOf(fd.Replays, fd.ReplaysFailed, fd.ClassNote != "")
	e.rep.Findings = append(e.rep.Findings, fd)
	n := &atomic.Int64{}
	n.Store(1)
	e.r.known[fd.Cause] = n
}

// stopAfterFinding is why the run stops after a finding, "" when it goes on.
func (e *exploration) stopAfterFinding(ctx context.Context, explored time.Duration) string {
	switch {
	case ctx.Err() != nil:
		return StopInterrupt
	case len(e.rep.Findings) >= e.cfg.MaxFindings:
		return StopMaxFindings
	case e.r.sess.Halted() != nil:
		return StopCannotJudge
	case e.cfg.Steps > 0 && e.steps.Load() >= int64(e.cfg.Steps):
		return StopSteps
	case e.cfg.Duration > 0 && explored >= e.cfg.Duration:
		return StopDuration
	}
	return ""
}

// shrink shrinks the sequence of fd, replays the shrunk one to class it and, when the store
// had changed (explored: the animals created in it so far), plays it once more on a fresh
// store; the report adds up the requests and creates this took.
func (e *exploration) shrink(ctx context.Context, fd *Finding, found *found, explored int64) {
	r, cfg, rep := e.r, e.cfg, e.rep
	post := &budget{max: int64(cfg.MaxCreates)}
	before := r.requests()
	shrinkStart := time.Now()
	s := &shrinker{ctx: ctx, r: r, cfg: cfg, creates: post, rule: fd.Rule, trace: fd.Trace, history: []Sequence{fd.Shrunk}}
	s.shrink(fd.Shrunk, found.serial)
	fd.ShrinkRuns, fd.Trace = s.runs, s.trace
	fd.ShrinkSeconds = time.Since(shrinkStart).Seconds()
	shrinkCreated := post.used.Load()
	post = &budget{max: int64(cfg.MaxCreates)} // the replays get a budget of their own
	s.creates = post
	var res replayResult
	fd.Shrunk, res, fd.ClassNote = s.settle(cfg.Replays)
	fd.Replays, fd.ReplaysFailed, fd.ShrunkViolation = res.runs, res.failed, res.violation
	if res.trace != nil {
		fd.Trace = res.trace
	}
	postCreated := shrinkCreated + post.used.Load()
	// Without a fresh target for each run, shrinking and the replays met the store as the
	// exploration (and the runs before) left it: the sequence may need that state.
	if cfg.Fresh == nil && explored+postCreated > 0 {
		fd.StateChanged = true
		post = &budget{max: int64(cfg.MaxCreates)}
		fd.FreshStore = freshCheck(ctx, r, cfg, post, fd.Shrunk)
		postCreated += post.used.Load()
	}
	rep.PostRequests += r.requests() - before
	rep.PostCreated += postCreated
}

// FreshCheck is how the shrunk sequence of a finding went when played once more after a
// reset of the target.
type FreshCheck struct {
	// Made says that the target was reset and the sequence played; Reason says why not.
	Made       bool       `json:"made"`
	Reproduced bool       `json:"reproduced"`
	Violation  *Violation `json:"violation,omitempty"`
	Reason     string     `json:"reason,omitempty"`
}

// Line says how the check went, for a person.
func (c *FreshCheck) Line() string {
	switch {
	case c == nil:
		return ""
	case !c.Made:
		return "the fresh-store check could not be made: " + c.Reason
	case c.Reproduced:
		return "on a fresh store (after POST " + exchange.ResetPath + "): reproduced"
	}
	return "on a fresh store (after POST " + exchange.ResetPath + "): not reproduced; the finding needs state the exploration left behind"
}

// freshCheck resets the target and plays seq once, as on a fresh target (the same first
// request first).
func freshCheck(ctx context.Context, r *runner, cfg Config, creates *budget, seq Sequence) *FreshCheck {
	if ctx.Err() != nil {
		return &FreshCheck{Reason: "interrupted"}
	}
	if cfg.AdminKey == "" {
		return &FreshCheck{Reason: "no admin key to reset the target with (POST " + exchange.ResetPath + ")"}
	}
	if err := r.sess.ResetStore(ctx, cfg.AdminKey); err != nil {
		return &FreshCheck{Reason: err.Error()}
	}
	own := *r
	own.fresh = func() (exchange.Target, func(), error) { return r.t, func() {}, nil } // reset already
	res := replay(ctx, &own, creates, seq, 1)
	if res.err != nil {
		return &FreshCheck{Reason: "after the reset: " + res.err.Error()}
	}
	return &FreshCheck{Made: true, Reproduced: res.failed > 0, Violation: res.violation}
}

// preflight sends the first request, a listing, and judges it as worker 0's first step
// against a model of its own (on a store that starts empty, it is the one listing certain
// to come before any create; Run keeps the violation only then). No answer or a 401 means
// the run cannot be made (the error).
func (r *runner) preflight(ctx context.Context) (Exchange, *Violation, error) {
	op := r.f.ByID[opList]
	ex, v, err := r.exec(ctx, state{newModel(r.f, 0), &budget{}}, newWorker(0), 0, Step{Op: opList})
	switch {
	case err != nil && errors.Is(err, exchange.ErrCannotJudge):
		ex.fill()
		return ex, nil, fmt.Errorf("%w: %s", exchange.ErrUnreachable, err)
	case err != nil:
		return ex, nil, err
	case ex.Error != "":
		return ex, nil, fmt.Errorf("%w: %s", exchange.ErrUnreachable, ex.Error)
	case ex.Status == http.StatusUnauthorized:
		return ex, nil, fmt.Errorf("%w (401 to %s %s)", exchange.ErrKeyRefused, op.Method, op.Path)
	}
	return ex, v, nil
}

// found is the first violation of a phase of a cause not known before.
type found struct {
	v             *Violation
	worker, index int
	after         time.Duration // since the phase started
	requests      int64
	trace         []Exchange
	serial        []Sequence // the exploration's steps one at a time, in the order they were sent, answered, creates first
}

type stopInfo struct {
	reason     string
	sentCreate bool // a createPet step was sent
}

// phaseSpec is what a phase shares with the run: its number, the budget of creates and the
// count of steps of all phases, and whether the model knows every animal of the store (see
// model.all). A nil budget or count is the phase's own.
type phaseSpec struct {
	n       int
	creates *budget
	steps   *atomic.Int64
	all     bool
}

// phaseResult is what a phase sent, what it found, why it stopped, and how long it took.
type phaseResult struct {
	seq     Sequence
	found   *found
	stop    stopInfo
	seconds time.Duration
}

// Reasons a run stops.
const (
	StopDuration  = "duration"
	StopSteps     = "steps"
	StopInterrupt = "interrupt"
	// StopMaxFindings: Config.MaxFindings distinct findings were made.
	StopMaxFindings = "max findings"
	// StopRecurring: MaxRecurring steps in a row met only faults found before.
	StopRecurring = "recurring"
	// StopCannotJudge: the target asked to come back later beyond the wait budget, or
	// stopped answering (Report.CannotJudge says which).
	StopCannotJudge = "cannot judge"
	// StopFinding ends a phase (not the run): a violation of a cause not met before.
	StopFinding = "finding"
)

// explorePhase runs the workers with freshly drawn steps and returns what they sent. It is
// long because the workers' loop and the stop that follows share the phase's state by
// closure (the sequence, when each step was sent and answered, the step each worker had in
// flight when a finding cancelled the run); split, each part would take all of it.
func explorePhase(ctx context.Context, r *runner, cfg Config, ph phaseSpec) (Sequence, *found, stopInfo) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timeUp, recurring, sentCreate atomic.Bool
	if cfg.Duration > 0 {
		t := time.AfterFunc(cfg.Duration, func() { timeUp.Store(true); cancel() })
		defer t.Stop()
	}
	m := newModel(r.f, r.o.lag)
	m.all = ph.all
	creates, steps := ph.creates, ph.steps
	if creates == nil {
		creates = &budget{max: int64(cfg.MaxCreates)}
	}
	if steps == nil {
		steps = &atomic.Int64{}
	}
	var known atomic.Int64 // steps in a row that met only a known cause
	var once sync.Once
	var first *found
	start := time.Now()
	seq := Sequence{Workers: make([][]Step, cfg.Workers)}
	// order[w][i] is when worker w's step i was sent, counted over all workers: shrinking
	// tries the steps of all workers one at a time in that order.
	order := make([][]int64, cfg.Workers)
	ended := make([][]int64, cfg.Workers) // when its answer was read
	// cut[w] is worker w's step in flight when a finding cancelled the run: it may have
	// reached the target and changed what the failing step saw, so the sequence keeps it.
	type inFlight struct {
		st       Step
		sent, at int64
	}
	cut := make([]*inFlight, cfg.Workers)
	var sent atomic.Int64
	var wg sync.WaitGroup
	for n := range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, w := newGenerator(r.f, r.ops, phaseSeed(cfg.Seed, ph.n), n), newWorker(n)
			if m.all {
				g.absent = m.absent
			}
			for i := 0; ctx.Err() == nil; i++ {
				if cfg.Steps > 0 && steps.Add(1) > int64(cfg.Steps) {
					return
				}
				st := g.next(creates.used.Load() < creates.max)
				if st.Op == opCreate {
					sentCreate.Store(true)
				}
				at := sent.Add(1)
				ex, v, err := r.exec(ctx, state{m, creates}, w, i, st)
				if err != nil {
					if err != errBudget { // cancelled; a create the budget no longer allowed was not sent
						cut[n] = &inFlight{st, at, sent.Add(1)}
					}
					return
				}
				seq.Workers[n] = append(seq.Workers[n], st)
				order[n] = append(order[n], at)
				ended[n] = append(ended[n], sent.Add(1))
				switch {
				case v == nil && ex.Skipped == "":
					known.Store(0)
				case v == nil: // not sent: nothing judged
				case r.known.met(v.Cause): // counted on its finding; the phase goes on
					if known.Add(1) >= MaxRecurring {
						recurring.Store(true)
						cancel()
					}
				default:
					ex.fill()
					once.Do(func() {
						first = &found{v: v, worker: n, index: i, after: time.Since(start), requests: r.requests(), trace: []Exchange{ex}}
						cancel()
					})
					return
				}
			}
		}()
	}
	wg.Wait()
	info := stopInfo{sentCreate: sentCreate.Load()}
	switch {
	case first != nil:
		info.reason = StopFinding
		for n, c := range cut {
			if c != nil {
				seq.Workers[n], order[n], ended[n] = append(seq.Workers[n], c.st), append(order[n], c.sent), append(ended[n], c.at)
			}
		}
		seq.Timeline = timeline(seq, order, ended)
		// Concurrent steps have no one order: a create sent after a listing can still be
		// stored before the listing reads the store. Both orders are tried, and creates first.
		byStart := serial(seq, order)
		first.serial = []Sequence{byStart, serial(seq, ended), createsFirst(byStart)}
	case r.sess.Halted() != nil:
		info.reason = StopCannotJudge
	case recurring.Load():
		info.reason = StopRecurring
	case timeUp.Load():
		info.reason = StopDuration
	case cfg.Steps > 0 && steps.Load() >= int64(cfg.Steps):
		info.reason = StopSteps
	default:
		info.reason = StopInterrupt
	}
	return seq, first, info
}

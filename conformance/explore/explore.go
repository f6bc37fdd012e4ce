package explore

import (
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
	// Duration and Steps bound the exploration (zero: no bound; at least one must be set).
	// Steps counts the steps of all workers.
	Duration time.Duration
	Steps    int
	// MaxCreates bounds the animals the exploration creates; shrinking and the replays have
	// a budget of the same size each.
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
	return nil
}

// Run explores the target until a bound is reached, a finding is made or ctx is cancelled;
// a finding is then shrunk and replayed. The report says what ran in every case. The error
// is set only when the run could not be made.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	f, err := factsOf(cfg.Doc, cfg.Facts, cfg.Now)
	if err != nil {
		return nil, err
	}
	r, err := newRunner(cfg.Target, f, sessionOptions{timeout: cfg.Timeout, rate: cfg.Rate, workers: cfg.Workers, maxWait: cfg.MaxWait}, cfg.Fresh)
	if err != nil {
		return nil, err
	}
	if err := r.preflight(ctx); err != nil {
		return nil, err
	}
	rep := &Report{Provenance: cfg.Provenance, Target: r.sess.Target(), Seed: cfg.Seed, Workers: cfg.Workers,
		Bounds:  Bounds{Duration: cfg.Duration.String(), Steps: cfg.Steps, MaxCreates: cfg.MaxCreates, Rate: cfg.Rate, Lag: cfg.Lag.String()},
		GetGone: f.GetGone}
	rep.Provenance.Seed = cfg.Seed
	if rep.Provenance.Harness == "" {
		rep.Provenance.Harness = buildinfo.Read().String()
	}
	if !cfg.Now.IsZero() {
		rep.Now = cfg.Now.Format(time.RFC3339)
	}
	start := time.Now()
	seq, found, stop := explorePhase(ctx, r, cfg)
	rep.Seconds = time.Since(start).Seconds()
	rep.Requests = r.requests()
	rep.Steps = seq.Len()
	rep.Created = stop.created
	rep.Throttled = r.throttled()
	rep.StoppedBy = stop.reason
	if h := r.sess.Halted(); h != nil {
		rep.CannotJudge = h.Error()
	}
	cov := r.sess.Coverage()
	rep.Coverage = &cov
	if rep.Seconds > 0 {
		rep.RequestsPerSecond = float64(rep.Requests) / rep.Seconds
	}
	if found == nil {
		return rep, nil
	}
	fd := Finding{Violation: *found.v, Worker: found.worker, Step: found.index, AfterSeconds: found.after.Seconds(),
		AfterRequests: found.requests, Original: seq.Size(), Shrunk: seq.normal(), Trace: found.trace}
	if ctx.Err() == nil {
		shrinkFinding(ctx, r, cfg, rep, &fd, found, stop.created)
	}
	fd.Class = classOf(fd.Replays, fd.ReplaysFailed, fd.ClassNote != "")
	rep.Findings = append(rep.Findings, fd)
	return rep, nil
}

// shrinkFinding shrinks the sequence of fd, replays the shrunk one to class it and, when the
// store had changed (explored: the animals the exploration created), plays it once more on
// a fresh store; rep counts the requests and creates this took.
func shrinkFinding(ctx context.Context, r *runner, cfg Config, rep *Report, fd *Finding, found *found, explored int64) {
	post := &budget{max: int64(cfg.MaxCreates)}
	before := r.requests()
	shrinkStart := time.Now()
	s := shrink(ctx, r, cfg, post, fd.Shrunk, found.serial, fd.Violation, fd.Trace)
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
	rep.PostRequests = r.requests() - before
	rep.PostCreated = postCreated
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
	if err := r.reset(ctx, cfg.AdminKey); err != nil {
		return &FreshCheck{Reason: err.Error()}
	}
	own := *r
	own.fresh = func() (exchange.Target, func(), error) { return r.t, func() {}, nil } // reset already
	res := replay(ctx, &own, cfg.Lag, creates, seq, 1)
	if res.err != nil {
		return &FreshCheck{Reason: "after the reset: " + res.err.Error()}
	}
	return &FreshCheck{Made: true, Reproduced: res.failed > 0, Violation: res.violation}
}

// preflight asks for a listing: no answer or a 401 means the run cannot be made.
func (r *runner) preflight(ctx context.Context) error {
	var ex Exchange
	op := r.f.ByID[opList]
	a, err := r.send(ctx, &ex, op.Method, op.Path, Step{Op: opList})
	ex.fill()
	switch {
	case err != nil && errors.Is(err, exchange.ErrCannotJudge):
		return fmt.Errorf("%w: %s", exchange.ErrUnreachable, err)
	case err != nil:
		return err
	case ex.Error != "":
		return fmt.Errorf("%w: %s", exchange.ErrUnreachable, ex.Error)
	case a.status == http.StatusUnauthorized:
		return fmt.Errorf("%w (401 to %s %s)", exchange.ErrKeyRefused, op.Method, op.Path)
	}
	return nil
}

// found is the first violation of a phase.
type found struct {
	v             *Violation
	worker, index int
	after         time.Duration
	requests      int64
	trace         []Exchange
	serial        []Sequence // the exploration's steps one at a time, in the order they were sent, answered, creates first
}

type stopInfo struct {
	reason  string
	created int64
}

// Reasons a run stops.
const (
	StopDuration  = "duration"
	StopSteps     = "steps"
	StopFinding   = "finding"
	StopInterrupt = "interrupt"
	// StopCannotJudge: the target asked to come back later beyond the wait budget, or
	// stopped answering (Report.CannotJudge says which).
	StopCannotJudge = "cannot judge"
)

// explorePhase runs the workers with freshly drawn steps and returns what they sent. It is
// long because the workers' loop and the stop that follows share the phase's state by
// closure (the sequence, when each step was sent and answered, the step each worker had in
// flight when a finding cancelled the run); split, each part would take all of it.
func explorePhase(ctx context.Context, r *runner, cfg Config) (Sequence, *found, stopInfo) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timeUp atomic.Bool
	if cfg.Duration > 0 {
		t := time.AfterFunc(cfg.Duration, func() { timeUp.Store(true); cancel() })
		defer t.Stop()
	}
	m := newModel(r.f, cfg.Lag)
	creates := &budget{max: int64(cfg.MaxCreates)}
	var steps atomic.Int64
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
			g, w := newGenerator(r.f, cfg.Seed, n), newWorker(n)
			for i := 0; ctx.Err() == nil; i++ {
				if cfg.Steps > 0 && steps.Add(1) > int64(cfg.Steps) {
					return
				}
				st := g.next(creates.used.Load() < creates.max)
				at := sent.Add(1)
				ex, v, err := r.exec(ctx, m, creates, w, i, st)
				if err != nil {
					if err != errBudget { // cancelled; a create the budget no longer allowed was not sent
						cut[n] = &inFlight{st, at, sent.Add(1)}
					}
					return
				}
				seq.Workers[n] = append(seq.Workers[n], st)
				order[n] = append(order[n], at)
				ended[n] = append(ended[n], sent.Add(1))
				if v != nil {
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
	info := stopInfo{created: creates.used.Load()}
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
	case timeUp.Load():
		info.reason = StopDuration
	case cfg.Steps > 0 && steps.Load() >= int64(cfg.Steps):
		info.reason = StopSteps
	default:
		info.reason = StopInterrupt
	}
	return seq, first, info
}

// Package mutants is the evidence that the conformance harness catches faulty servers. Each
// mutant is the unmodified reference server behind a middleware that injects one realistic
// fault (a wrong default, an error body in text/plain, a key that is never compared), with
// the rules that must notice it. Run starts the mutant on a loopback port, runs the whole
// catalogue against it and says whether the fault was caught.
package mutants

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// Key is the API key every mutant's server accepts and the harness sends.
const Key = "mutants-key-3f9a"

// Clock is the time of every run, on the server and in the harness alike: before getPet's
// removal date, so that the deprecated operation is still there.
var Clock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Mutant is the reference server with exactly one deliberate deviation.
type Mutant struct {
	// Name is kebab-case, unique, "<area>-<fault>".
	Name string
	// Fault says in one sentence how the server deviates.
	Fault string
	// Catch are the rules named for the fault: each of them fails (or, Inconclusive, ends
	// in Error), measured.
	Catch []string
	// AlsoFails are the other rules that fail against the mutant, measured: consequences of
	// the fault (a listing broken for every rule that lists, an Error record broken for
	// every rule that reads one). With Catch and AlsoErrors, the exact set of rules that do
	// not pass: TestMutants fails on a rule that fails without being listed, and on a
	// listed rule that does not fail.
	AlsoFails []string
	// AlsoErrors are the other rules that end in Error (could not be judged), measured.
	AlsoErrors []string
	// Wrap injects the fault around the unmodified reference server.
	Wrap func(http.Handler) http.Handler
	// Config adjusts the reference server (a seed, a clock); nil keeps the defaults.
	Config func(*reference.Config)
	// Options adjusts the harness run (strict mode, a later clock).
	Options func(*conformance.Options)
	// Client adjusts the harness's HTTP client (one that gives up on a hang at once: kit.Hang).
	Client func(*http.Client) *http.Client
	// Inconclusive marks a transport fault (a hang, a reset): the rule that meets it reports
	// Error, which fails the run, so an Error of a Catch rule counts as caught.
	Inconclusive bool
	// Gap, when set, says that no rule catches this mutant yet and which rule would: the
	// mutant stays in the catalogue (a surviving mutant is information), the tests expect
	// it to survive, and the table counts it as missed. Remove it once the rule is there.
	Gap string
}

// Outcome is the result of running the catalogue against one mutant.
type Outcome struct {
	Mutant Mutant
	Report *conformance.Report
	// Caught are the rules of Mutant.Catch that failed.
	Caught []string
	// Also are the other rules that failed or could not be evaluated.
	Also []string
}

// Killed reports whether the harness caught the mutant: the run is not conforming and one
// of the rules named for the fault failed.
func (o Outcome) Killed() bool { return !o.Report.Conforming() && len(o.Caught) > 0 }

// Detected reports whether the run is not conforming at all, whichever rule said so.
func (o Outcome) Detected() bool { return !o.Report.Conforming() }

// Plain is the unmutated reference server, the control of the experiment.
var Plain = Mutant{Name: "reference", Fault: "none: the unmodified reference server"}

// factsByDoc holds each description's facts, read once for every mutant run against it.
var factsByDoc sync.Map // *openapi3.T → *spec.Facts

func factsOf(doc *openapi3.T) (*spec.Facts, error) {
	if f, ok := factsByDoc.Load(doc); ok {
		return f.(*spec.Facts), nil
	}
	f, err := spec.ReadFacts(doc)
	if err != nil {
		return nil, err
	}
	actual, _ := factsByDoc.LoadOrStore(doc, f)
	return actual.(*spec.Facts), nil
}

// Run starts m on a loopback port, runs the conformance catalogue against it (without the
// rules matched by skip) and returns the outcome.
func Run(ctx context.Context, doc *openapi3.T, m Mutant, skip ...string) (Outcome, error) {
	base, err := spec.BasePath(doc)
	if err != nil {
		return Outcome{}, err
	}
	cfg := reference.Config{Spec: doc, APIKeys: []string{Key}, Now: func() time.Time { return Clock }}
	if m.Config != nil {
		m.Config(&cfg)
	}
	h, err := reference.NewServer(cfg)
	if err != nil {
		return Outcome{}, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	if m.Wrap != nil {
		h = m.Wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	defer srv.Close()
	f, err := factsOf(doc)
	if err != nil {
		return Outcome{}, err
	}
	// One worker per run: RunAll runs mutants side by side already, and a run's verdicts do
	// not depend on its workers (conformance's TestWorkersDoNotChangeTheReport).
	// A mutant answers at once or never, so waiting for an animal to show up or for a 429 to
	// pass is counted, not slept: a mutant that hides what it stores fails at the same point,
	// without ten seconds of real waiting.
	opts := conformance.Options{Spec: doc, Facts: f, Now: Clock, Skip: skip, Workers: 1, Wait: countOnly}
	if m.Options != nil {
		m.Options(&opts)
	}
	client := srv.Client()
	if m.Client != nil {
		client = m.Client(client)
	}
	rep, err := conformance.Run(ctx, conformance.Target{BaseURL: srv.URL + base, APIKey: Key, Client: client}, opts)
	if err != nil {
		return Outcome{}, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	o := Outcome{Mutant: m, Report: rep}
	for _, res := range rep.Results {
		switch {
		case (res.Status == conformance.Fail || m.Inconclusive && res.Status == conformance.Error) && slices.Contains(m.Catch, res.ID):
			o.Caught = append(o.Caught, res.ID)
		case res.Status == conformance.Fail || res.Status == conformance.Error:
			o.Also = append(o.Also, res.ID)
		}
	}
	return o, nil
}

// RunAll runs every mutant, workers at a time, and returns the outcomes in catalogue order.
func RunAll(ctx context.Context, doc *openapi3.T, ms []Mutant, workers int, skip ...string) ([]Outcome, error) {
	out := make([]Outcome, len(ms))
	errs := make([]error, len(ms))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = Run(ctx, doc, m, skip...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Score counts the mutants killed (a Gap mutant that is caught counts too) out of all.
func Score(outcomes []Outcome) (killed, total int) {
	for _, o := range outcomes {
		if o.Killed() {
			killed++
		}
	}
	return killed, len(outcomes)
}

// countOnly is a wait that returns at once, unless ctx has ended.
func countOnly(ctx context.Context, _ time.Duration) error { return ctx.Err() }

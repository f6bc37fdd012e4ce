package conformance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/buildinfo"
	"github.com/petstore/petstore/spec"
)

// Target is the service under test (see exchange.Target: run, explore and replay share it).
type Target = exchange.Target

// Options select and tune a run. The zero value runs every rule against spec.Load().
type Options struct {
	// Spec is the description the rules are read from; nil means spec.Load().
	Spec *openapi3.T
	// Facts are Spec's facts when the caller has read them already (spec.ReadFacts); nil,
	// or facts of another description, means they are read here.
	Facts *spec.Facts
	// Only keeps the rules whose ID matches one of these patterns; Skip drops those that
	// match one of these. A pattern is a path.Match glob on the ID ("auth/*", "*/limit-*"),
	// an ID prefix ("listPets"), or a glob on the part after the slash ("*-www-*").
	Only, Skip []string
	// Strict counts Should failures and failures of unstable operations as failures.
	Strict bool
	// ReadOnly sends only GET and HEAD requests: the rules and cases that need another
	// method are not run, and the report says which.
	ReadOnly bool
	// Keep leaves the animals the run created; otherwise, when the spec has an operation
	// that deletes an animal by id, the run removes them at the end.
	Keep bool
	// Now is the run's clock, which decides whether removed operations are gone; zero
	// means time.Now().
	Now time.Time
	// Timeout bounds each request; zero means 10 seconds.
	Timeout time.Duration
	// Waivers turn the failures and warnings of the rules they name into Waived while in
	// force; an expired one fails the run. Each must name a rule of the catalogue.
	Waivers []Waiver
	// MinCoverage fails the run when it exercised less than this percentage of the
	// documented operation × status pairs; zero means no minimum.
	MinCoverage float64
	// Seed drives the generated cases (names, random combinations); zero picks one from the
	// clock, which the report records.
	Seed uint64
	// Fuzz adds this many random combinations of variants, shrunk when they fail.
	Fuzz int
	// Strength is how many other variants the combinations with a rejected key hold
	// together, every t-tuple covered (1 to 3); zero is 2, or 3 with Fuzz.
	Strength int
	// NoKeyElsewhere leaves out the cases that offer the real key outside the Authorization
	// header (a query string, a cookie, another field), which proxies and logs on the way may
	// keep; the report counts them as not sent.
	NoKeyElsewhere bool
	// Deep sends the deeper setting (--depth deep, docs/anatomy.md): the anatomy's deep
	// values, and every rejected form of the key combined with every other variant instead
	// of the two kinds of missing key (as Fuzz's strength does too).
	Deep bool
	// MaxCreates caps the animals the run creates; cases that would create more are
	// skipped and counted. Zero means DefaultMaxCreates.
	MaxCreates int
	// Headers are added to every request (a gateway's key or routing header); they do not
	// replace a header a rule sets.
	Headers http.Header
	// FailFast stops the run at the first Must rule that fails or errs; the rules after it
	// are skipped with the reason.
	FailFast bool
	// Progress, if set, is called before each rule runs with its position (from 1) and ID.
	Progress func(n, total int, id string)
	// Workers is how many requests are in flight at once, from rules and generated cases
	// running side by side; zero means DefaultWorkers. A rule's own requests stay in order,
	// and the report is in catalogue order whatever order the rules finish in.
	Workers int
	// Rate caps the requests per second of the whole run (0: no cap), for a shared staging.
	Rate float64
	// MaxWait bounds the time the run waits in all for a target that answers 429 or 503 and
	// asks to come back later; beyond it the target cannot be judged. Zero means a minute.
	MaxWait time.Duration
	// Provenance, if set, is recorded in the report (a command passes its flags, the key
	// masked, and the sha256 of the spec file it read); the harness version, the seed and a
	// missing spec hash are filled in.
	Provenance *report.Provenance
	// Rules, when set, are run instead of the catalogue (conformance pact verify runs a
	// consumer contract's interactions); Only, Skip and the waivers apply to them.
	Rules []Rule
	// Finished, if set, is called with each rule's result once it is final (waivers
	// applied), in catalogue order, one call at a time: n counts from 1 to total.
	Finished func(n, total int, res Result)

	// Wait sleeps d between retries and re-lists, or ends early with ctx; nil means a real
	// sleep. A test against an in-process server makes it instant: the run still counts
	// what it would have waited against its bounds, so it gives up at the same point.
	Wait func(ctx context.Context, d time.Duration) error
}

// DefaultWorkers is how many requests are in flight at once when Options.Workers is zero:
// enough that the default run (about 700 requests) ends within 3 s against a staging server
// 50 ms away (make latency: 5.6 s at 8, 3.5 s at 16, 2.8 s at 24 on 2026-11-27), and few
// beside what a service meant for many clients takes. A shared staging that wants less gets
// --workers or --rate.
const DefaultWorkers = 24

// ErrKeyRefused is wrapped by Run's error when the target answers 401 to the run's own
// authenticated listing: the key is wrong or missing, so no rule could be judged.
var ErrKeyRefused = exchange.ErrKeyRefused

// ErrUnreachable is wrapped by Run's error when the target cannot be reached at all.
var ErrUnreachable = exchange.ErrUnreachable

// ErrCancelled is Run's error when its context ends first (Ctrl-C, a CI job's SIGTERM):
// a partial run says nothing about the target.
var ErrCancelled = errors.New("run cancelled")

// ErrCannotJudge is wrapped by Run's error when the target could not be judged to the end:
// it answered 503 or 429 beyond --max-wait, or stopped answering.
var ErrCannotJudge = exchange.ErrCannotJudge

// Run runs the selected rules against target and returns the report. The error is for a
// run that could not be made (bad options, unreachable target) or made to the end (the run
// interrupted: ErrCancelled; the target no longer judgeable: ErrCannotJudge). In the last
// two cases the report is returned too: it holds every rule judged before that point, the
// others marked not judged, and its Verdict is CannotJudge. A non-conforming target is a
// report whose Verdict says so, and no error.
func Run(ctx context.Context, target Target, opts Options) (*Report, error) {
	r, err := newRunner(ctx, target, opts)
	if ctx.Err() != nil {
		return nil, ErrCancelled
	}
	if err != nil {
		return nil, err
	}
	r.runAll(nil)
	rep := r.finish()
	return rep, r.stopped()
}

// stopped is why the run did not go to its end (ErrCancelled, or the session's
// CannotJudgeError), or nil.
func (r *runner) stopped() error {
	if err := r.sess.Halted(); err != nil {
		return fmt.Errorf("conformance: %w", err)
	}
	if r.parent.Err() != nil {
		return ErrCancelled
	}
	return nil
}

// stopPhrase says in words why the rules from here on are not judged.
func (r *runner) stopPhrase() string {
	if err := r.sess.Halted(); err != nil {
		return err.Error()
	}
	return "the run was interrupted"
}

type runner struct {
	// ctx ends when parent does or when the target can no longer be judged.
	ctx, parent context.Context
	cancel      context.CancelCauseFunc
	opts        Options
	rules       []Rule
	facts       *spec.Facts
	sess        *exchange.Session
	fixture     *Fixture
	prepErr     string // why preparation failed, for the rules that needed it
	// listErr: the listing answered wrongly, and the fixture holds the animals preparation
	// created instead; the rules that need what the listing shows run unprepared.
	listErr string
	// empty is the first listing preparation made that held no animal.
	empty     *cases.Listing
	emptyOnce sync.Once
	report    *Report
	start     time.Time
	// waitedInVain: a generated case waited in vain for an animal it created.
	waitedInVain atomic.Bool
	// claimed is the room under --max-creates that running rules and cases hold.
	claimed atomic.Int64
}

func newRunner(ctx context.Context, target Target, opts Options) (*runner, error) {
	start := time.Now()
	var prov report.Provenance
	if opts.Provenance != nil {
		prov = *opts.Provenance
	}
	if opts.Spec == nil {
		doc, err := spec.Load()
		if err != nil {
			return nil, err
		}
		opts.Spec = doc
		prov.SpecSHA256 = cmp.Or(prov.SpecSHA256, report.SpecSHA256(spec.Bytes()))
	}
	if prov.SpecSHA256 == "" {
		// A description passed as a value: the sha256 of its JSON form.
		if data, err := opts.Spec.MarshalJSON(); err == nil {
			prov.SpecSHA256 = report.SpecSHA256(data)
		}
	}
	prov.Harness = cmp.Or(prov.Harness, buildinfo.Read().String())
	if opts.Now.IsZero() {
		opts.Now = start
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Wait == nil {
		opts.Wait = exchange.Sleep
	}
	f := opts.Facts
	if f == nil || f.Doc != opts.Spec {
		var err error
		if f, err = spec.ReadFacts(opts.Spec); err != nil {
			return nil, err
		}
	}
	if opts.Seed == 0 {
		opts.Seed = uint64(start.UnixNano())
	}
	if opts.MaxCreates <= 0 {
		opts.MaxCreates = DefaultMaxCreates
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Rate < 0 {
		return nil, fmt.Errorf("conformance: --rate %g: want requests per second, 0 (no cap) or more", opts.Rate)
	}
	if opts.Fuzz < 0 {
		return nil, fmt.Errorf("conformance: --fuzz %d: want a number of combinations, 0 or more", opts.Fuzz)
	}
	all := opts.Rules
	if all == nil {
		all = rules.All(f)
	}
	if opts.Fuzz > 0 && opts.Rules == nil {
		all = append(all, rules.Fuzz(f, opts.Fuzz)...)
	}
	rules, err := Select(all, opts.Only, opts.Skip)
	if err != nil {
		return nil, err
	}
	if err := checkWaivers(all, opts.Waivers); err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	sess, err := exchange.New(exchange.Config{BaseURL: target.BaseURL, APIKey: target.APIKey, Client: target.Client,
		Timeout: opts.Timeout, Headers: opts.Headers, Wait: opts.Wait, Facts: f, Rate: opts.Rate, Workers: opts.Workers,
		ReadOnly: opts.ReadOnly, MaxWait: opts.MaxWait, Halted: cancel})
	if err != nil {
		cancel(nil)
		return nil, err
	}
	r := &runner{ctx: ctx, parent: parent, cancel: cancel, opts: opts, rules: rules, facts: f, sess: sess, start: start,
		report: &Report{
			Target:       sess.Target(),
			SpecTitle:    opts.Spec.Info.Title,
			SpecVersion:  opts.Spec.Info.Version,
			Started:      start.UTC(),
			Clock:        opts.Now.UTC(),
			Strict:       opts.Strict,
			ReadOnly:     opts.ReadOnly,
			KeyElsewhere: !opts.NoKeyElsewhere && offersKeyElsewhere(rules),
			Seed:         opts.Seed,
			Fuzz:         opts.Fuzz,
			MaxCreates:   opts.MaxCreates,
			Provenance:   withSeed(prov, opts.Seed),
		}}
	if err := r.prepare(); err != nil && r.sess.Halted() == nil {
		return nil, err
	}
	// A target that cannot be judged from the start (a wrong base path, unavailable, silent)
	// still gets a report: every rule not judged, with the reason, and what was sent.
	return r, nil
}

// offersKeyElsewhere: among rules is a family that offers the key outside the Authorization
// header (the key's cases, and --fuzz's random combinations of them).
func offersKeyElsewhere(rules []Rule) bool {
	return slices.ContainsFunc(rules, func(r Rule) bool {
		return strings.HasSuffix(r.ID, "/cases-auth") || strings.HasSuffix(r.ID, "/cases-fuzz")
	})
}

package conformance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/internal/buildinfo"
	"github.com/petstore/petstore/internal/cli"

	"github.com/gavv/httpexpect/v2"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/coverage"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
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
	// Finished, if set, is called with each rule's result once it is final (waivers
	// applied), in catalogue order, one call at a time: n counts from 1 to total.
	Finished func(n, total int, res Result)

	// Wait sleeps d between retries and re-lists, or ends early with ctx; nil means a real
	// sleep. A test against an in-process server makes it instant: the run still counts
	// what it would have waited against its bounds, so it gives up at the same point.
	Wait func(ctx context.Context, d time.Duration) error
}

// DefaultWorkers is how many rules run at once when Options.Workers is zero: as many
// connections as a browser opens to one host, which any service meant for clients takes in
// its stride, and enough to hide a round trip of 50 ms (a staging server in another region).
// A shared staging that wants less gets --workers 1 or --rate.
const DefaultWorkers = 8

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

// runAll runs the selected rules on Options.Workers workers and appends their results to
// the report in catalogue order, whatever order they finish in. The rules that create
// nothing run first, the others once those have finished. Each result is passed to
// Options.Finished and then to each (if not nil), in catalogue order, one at a time. With
// FailFast, the first Must rule that fails or errs stops the dispatch, and every rule after
// it is reported skipped, even one that had started.
func (r *runner) runAll(each func(res Result)) {
	n := len(r.rules)
	results := make([]Result, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	var stop atomic.Bool
	var callbacks sync.Mutex // Progress and Finished are called one at a time
	sem := make(chan struct{}, r.opts.Workers)
	go func() {
		// The rules that create nothing judge the prepared store before the rules that
		// write change it (a store whose listing lags behind writes shows what it held).
		var order []int
		for _, phase := range []bool{false, true} {
			for i, rule := range r.rules {
				if rule.Writes() == phase {
					order = append(order, i)
				}
			}
		}
		var dispatched sync.WaitGroup // the rules started so far
		for k, i := range order {
			rule := r.rules[i]
			if k > 0 && rule.Writes() && !r.rules[order[k-1]].Writes() {
				dispatched.Wait()
			}
			sem <- struct{}{}
			if stop.Load() || r.ctx.Err() != nil {
				<-sem
				close(done[i])
				continue
			}
			if r.opts.Progress != nil {
				callbacks.Lock()
				r.opts.Progress(i+1, n, rule.ID)
				callbacks.Unlock()
			}
			dispatched.Add(1)
			go func() {
				defer func() { <-sem; close(done[i]); dispatched.Done() }()
				results[i] = r.run(rule)
			}()
		}
	}()
	stoppedAt := ""
	for i, rule := range r.rules {
		<-done[i]
		res := results[i]
		if res.ID == "" {
			// Never started: the run was interrupted, or the target became unjudgeable.
			res = Result{ID: rule.ID, Section: rule.Section, Severity: rule.Severity, Title: rule.Title, Status: Skip,
				Reason: "not judged: " + r.stopPhrase()}
		}
		if stoppedAt != "" {
			res = Result{ID: rule.ID, Section: rule.Section, Severity: rule.Severity, Level: rule.Severity, Title: rule.Title, Status: Skip,
				Reason: "not run: --fail-fast stopped the run after " + stoppedAt}
		}
		r.report.Results = append(r.report.Results, res)
		callbacks.Lock()
		if r.opts.Finished != nil {
			r.opts.Finished(i+1, n, res)
		}
		if each != nil {
			each(res)
		}
		callbacks.Unlock()
		if stoppedAt == "" && r.opts.FailFast && rule.Severity == Must && (res.Status == Fail || res.Status == Error) {
			stoppedAt = rule.ID
			stop.Store(true)
		}
	}
}

// NotRunReport is the report of a run that could not be made (an unreachable target, a
// refused key, a base URL without the version segment, a cancelled run), so that a CI job
// that asked for reports still has them, with the reason.
func NotRunReport(target Target, opts Options, reason error) *Report {
	red := exchange.NewRedactor(target.APIKey)
	now := time.Now().UTC()
	rep := &Report{Target: red.Text(target.BaseURL), Started: now, Clock: cmp.Or(opts.Now, now).UTC(),
		Strict: opts.Strict, ReadOnly: opts.ReadOnly, Seed: opts.Seed, Fuzz: opts.Fuzz,
		MaxCreates: cmp.Or(opts.MaxCreates, DefaultMaxCreates), MinCoverage: opts.MinCoverage, Results: []Result{}}
	if u, err := url.Parse(target.BaseURL); err == nil && u.Host != "" {
		rep.Target = red.URL(u)
	}
	doc := opts.Spec
	if doc == nil {
		doc, _ = spec.Load()
	}
	if doc != nil {
		rep.SpecTitle, rep.SpecVersion = doc.Info.Title, doc.Info.Version
		if cov, err := coverage.New(doc); err == nil {
			rep.Coverage = cov.Snapshot()
		}
	}
	rep.GateFailures = []GateFailure{{Gate: "run", Message: red.Text(strings.TrimPrefix(reason.Error(), "conformance: "))}}
	rep.Tally()
	rep.Verdict = NotRun
	return rep
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
	report      *Report
	start       time.Time
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
	all := rules.All(f)
	if opts.Fuzz > 0 {
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
			Target:      sess.Target(),
			SpecTitle:   opts.Spec.Info.Title,
			SpecVersion: opts.Spec.Info.Version,
			Started:     start.UTC(),
			Clock:       opts.Now.UTC(),
			Strict:      opts.Strict,
			ReadOnly:    opts.ReadOnly,
			Seed:        opts.Seed,
			Fuzz:        opts.Fuzz,
			MaxCreates:  opts.MaxCreates,
			Provenance:  withSeed(prov, opts.Seed),
		}}
	if err := r.prepare(); err != nil && r.sess.Halted() == nil {
		return nil, err
	}
	// A target that cannot be judged from the start (a wrong base path, unavailable, silent)
	// still gets a report: every rule not judged, with the reason, and what was sent.
	return r, nil
}

// Select returns the rules that match only (all if only is empty) and not skip. A pattern
// that matches no rule of rules is an error, whether in only or in skip: a typo ("eror/*")
// would otherwise run everything, or skip nothing, in silence.
func Select(rules []Rule, only, skip []string) ([]Rule, error) {
	for _, set := range []struct {
		flag     string
		patterns []string
	}{{"--only", only}, {"--skip", skip}} {
		for _, p := range set.patterns {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("conformance: bad pattern %q: %w", p, err)
			}
			if !slices.ContainsFunc(rules, func(r Rule) bool { return matchAny([]string{p}, r.ID) }) {
				return nil, fmt.Errorf("conformance: no rule matches %s %q (conformance list shows the IDs)", set.flag, p)
			}
		}
	}
	var out []Rule
	for _, r := range rules {
		if (len(only) == 0 || matchAny(only, r.ID)) && !matchAny(skip, r.ID) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("conformance: no rule matches --only %q --skip %q", only, skip)
	}
	return out, nil
}

// matchAny reports whether a pattern matches id: as a glob on the whole ID, as the ID's
// prefix ("errors" selects errors/*), or, for a pattern without a slash, as a glob on the
// slug ("*-www-*" selects auth/listPets-www-authenticate).
func matchAny(patterns []string, id string) bool {
	_, slug, _ := strings.Cut(id, "/")
	for _, p := range patterns {
		if ok, _ := path.Match(p, id); ok || strings.HasPrefix(id, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
		if ok, _ := path.Match(p, slug); ok && !strings.Contains(p, "/") {
			return true
		}
	}
	return false
}

// notJudged says what a read-only run left unjudged because it sends only GET and HEAD: the
// rules it did not run for that reason and the generated cases it did not send.
func (r *runner) notJudged() []string {
	if !r.opts.ReadOnly {
		return nil
	}
	var ids []string
	cases := 0
	for i, res := range r.report.Results {
		switch {
		case res.Status == Skip && r.rules[i].Creates:
			ids = append(ids, res.ID)
		case res.CasesSkipped > 0:
			cases += res.CasesSkipped
		}
	}
	var parts []string
	if len(ids) > 0 {
		shown := ids[:min(len(ids), 4)]
		more := ""
		if len(ids) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
		}
		parts = append(parts, fmt.Sprintf("%s not run (%s%s)", cli.Plural(len(ids), "rule"), strings.Join(shown, ", "), more))
	}
	if cases > 0 {
		parts = append(parts, fmt.Sprintf("%s not sent", cli.Plural(cases, "generated case")))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{strings.Join(parts, " and ") + ": they send other methods than GET and HEAD"}
}

// skipReason says why rule does not run in this run, or "".
func (r *runner) skipReason(rule Rule) string {
	if rule.Creates && r.opts.ReadOnly {
		return "creates animals (or would, on a non-conforming target), and the run is read-only"
	}
	if op, ok := r.facts.ByID[rule.Op]; ok {
		day := op.Sunset.Format(time.DateOnly)
		clock := r.opts.Now.UTC().Format(time.RFC3339)
		switch gone := op.Gone(r.opts.Now); {
		case rule.Gone && op.Sunset.IsZero():
			return fmt.Sprintf("%s has no removal date", op.ID)
		case rule.Gone && !gone:
			return fmt.Sprintf("runs on and after %s, the removal date of %s; the run's clock is %s", day, op.ID, clock)
		case !rule.Gone && gone:
			return fmt.Sprintf("%s was removed on %s; the run's clock is %s", op.ID, day, clock)
		}
	}
	if reason := r.unmet(rule.Needs); reason != "" {
		return reason
	}
	return ""
}

// inapplicable reports whether rule does not apply at the run's clock: about an operation
// after its removal date, or about its removal before that date (or with none).
func (r *runner) inapplicable(rule Rule) bool {
	op, ok := r.facts.ByID[rule.Op]
	if !ok {
		return false
	}
	return rule.Gone != op.Gone(r.opts.Now)
}

// run runs one rule and returns its result.
func (r *runner) run(rule Rule) (res Result) {
	defer func(start time.Time) { res.DurationMS = float64(time.Since(start).Microseconds()) / 1000 }(time.Now())
	res = Result{ID: rule.ID, Section: rule.Section, Severity: rule.Severity, Level: rule.Severity, Title: rule.Title}
	if op, ok := r.facts.ByID[rule.Op]; ok {
		res.Stability = op.Stability
	}
	if reason := r.skipReason(rule); reason != "" {
		res.Status, res.Reason, res.Inapplicable = Skip, reason, r.inapplicable(rule)
		return res
	}
	// When preparation failed, a rule that needed animals still runs on what the store
	// holds: what its requests show without the fixture (at most the limit, the filter
	// exact, Error bodies) is judged; if that shows no fault, the rule could not be judged.
	unprepared := r.prepErr != "" && (rule.Needs != Needs{})
	// A hand-written rule creates at most two animals: it starts only if both fit.
	if rule.Creates {
		release := r.reserve(2)
		if release == nil {
			res.Status, res.Reason = Skip, fmt.Sprintf("creates animals, and the run has created %d of its --max-creates %d", r.sess.Created(), r.opts.MaxCreates)
			return res
		}
		defer release()
	}
	rec := exchange.NewRecorder(r.sess.Redact)
	var skipped, panicked, skipWhy string
	if rule.Family != nil {
		out := rule.Family.Run(r.caseEnv(), caseSender{rec, r.sess})
		skipped, panicked = out.Skip, out.Panicked
		res.Cases, res.CasesSkipped, skipWhy = out.Ran, out.Skipped, out.SkipWhy
	} else {
		skipped, panicked = rules.Execute(rule, r.newCheck(rule, rec, !unprepared))
	}
	res.Failures, res.Exchanges = rec.Results()
	for i := range res.Failures {
		res.Failures[i].Level = res.Failures[i].Level.Weaker(rule.Severity)
	}
	if len(res.Failures) > 0 {
		res.Level, _ = report.Strongest(res.Failures)
	}
	if skipped == "" && res.Cases == 0 && res.CasesSkipped > 0 {
		skipped = "no case could be sent: " + skipWhy
	}
	if why := rec.NotSent(); why != "" && skipped == "" {
		skipped = "not sent: " + why
	}
	switch {
	case panicked != "":
		res.Status, res.Reason = Error, "the check panicked: "+r.sess.Redact(panicked)
	case r.ctx.Err() != nil && len(res.Failures) == 0:
		// Stopped while the rule ran, before it showed a fault: not judged.
		res.Status, res.Reason = Skip, "not judged: "+r.stopPhrase()
	case !rec.Answered():
		// Refused, reset or timed out says nothing about conformance; Error still makes
		// the run not conforming, so a target that never answers does not pass.
		res.Status, res.Reason = Error, rec.NoAnswer()
	case len(res.Failures) > 0:
		res.Status, res.Reason = r.failStatus(res)
		if unprepared {
			res.Reason += " (judged without the animals it needed: preparation failed: " + r.prepErr + ")"
		}
	case unprepared:
		res.Status, res.Reason = Error, "preparation failed: "+r.prepErr
	case skipped != "":
		res.Status, res.Reason = Skip, skipped
	default:
		res.Status = Pass
	}
	if res.Status == Pass && res.CasesSkipped > 0 {
		res.Reason = fmt.Sprintf("%s not sent: %s", cli.Plural(res.CasesSkipped, "case"), skipWhy)
	}
	if res.Status == Pass || res.Status == Skip {
		res.Exchanges = nil
	} else {
		keepExchanges(&res)
	}
	waive(&res, r.opts, waiverClock(r.opts, r.start))
	return res
}

// failStatus weighs a failed rule by the strongest level of its failures (each already the
// weaker of its own and the rule's): MUST fails, SHOULD warns unless strict, ADVISORY warns
// even when strict, and an operation marked unstable only warns unless strict. The reason
// leads with the first failure of that level.
func (r *runner) failStatus(res Result) (Status, string) {
	level, first := report.Strongest(res.Failures)
	f := res.Failures[first]
	msg := f.Message
	if c := f.Case; c != "" {
		msg += " (case: " + c + ")"
		if n := len(res.Failures); n > 1 {
			msg += ", and " + cli.Plural(n-1, "more failure")
		}
	}
	switch {
	case level == Advisory:
		return Warn, "ADVISORY: " + msg
	case r.opts.Strict:
		return Fail, msg
	case res.Stability != "":
		return Warn, res.Stability + ": " + msg
	case level == Should:
		return Warn, "SHOULD: " + msg
	}
	return Fail, msg
}

func (r *runner) newCheck(rule Rule, rec *exchange.Recorder, prepared bool) *Check {
	anon := httpexpect.WithConfig(httpexpect.Config{
		TestName: rule.ID,
		BaseURL:  r.sess.BaseURL(),
		Client: httpexpect.ClientFunc(func(req *http.Request) (*http.Response, error) {
			// httpexpect's WithJSON adds "; charset=utf-8", a parameter a service may refuse
			// (the document names the media type only); the cases send it on purpose.
			if req.Header.Get("Content-Type") == "application/json; charset=utf-8" {
				req.Header.Set("Content-Type", "application/json")
			}
			return r.sess.Do(rec, rule.Open, req)
		}),
		AssertionHandler: assertionHandler{rec: rec},
		Context:          r.ctx,
	})
	key := r.sess.Key()
	auth := anon.Builder(func(req *httpexpect.Request) { req.WithHeader("Authorization", report.CredBearer.Value(key)) })
	return rules.NewCheck(rules.Env{Clients: rules.Clients{Anon: anon, Auth: auth}, Ctx: r.ctx, Now: r.opts.Now, Prepared: prepared,
		Fixture: r.fixture, BaseURL: r.sess.BaseURL(), Key: key, Wait: r.opts.Wait, Recorder: rec})
}

// caseEnv is what the generated cases of a family run with: the fixture and the run's
// budget, which its families share.
func (r *runner) caseEnv() cases.Env {
	return cases.Env{Ctx: r.ctx, Now: r.opts.Now, BaseURL: r.sess.BaseURL(), Key: r.sess.Key(), Wait: r.opts.Wait,
		Fixture: rules.CaseFixture(r.facts, r.fixture),
		Budget: cases.Budget{Seed: r.opts.Seed, Workers: r.opts.Workers, ReadOnly: r.opts.ReadOnly,
			MaxCreates: r.opts.MaxCreates, Reserve: r.reserve, WaitedInVain: &r.waitedInVain}}
}

func withSeed(p report.Provenance, seed uint64) report.Provenance {
	p.Seed = seed
	return p
}

// reserve claims room for n more animals under --max-creates while a rule or case runs:
// the animals created so far and the claims in flight stay within the cap, however many
// workers create at once. It returns nil when there is no room.
func (r *runner) reserve(n int) (release func()) {
	for {
		held := r.claimed.Load()
		if r.sess.Created()+held+int64(n) > int64(r.opts.MaxCreates) {
			return nil
		}
		if r.claimed.CompareAndSwap(held, held+int64(n)) {
			return func() { r.claimed.Add(-int64(n)) }
		}
	}
}

// caseSender sends a family's cases through the session, recorded into the rule's recorder.
type caseSender struct {
	*exchange.Recorder
	sess *exchange.Session
}

func (s caseSender) Send(req *http.Request, open bool) (*http.Response, error) {
	return s.sess.Do(s.Recorder, open, req)
}

func (s caseSender) Fork() (cases.Sender, func()) {
	sub := s.Recorder.Scratch()
	return caseSender{sub, s.sess}, func() { s.Recorder.Absorb(sub) }
}

// keepExchanges cuts a failed rule's exchanges to exchange.MaxExchanges: the last ones, or, when a
// rule of many requests (a case family) failed early, the ones its failures point at.
func keepExchanges(res *Result) {
	if len(res.Exchanges) <= exchange.MaxExchanges {
		return
	}
	keep := map[int]int{}
	var kept []Exchange
	for _, f := range res.Failures {
		if _, ok := keep[f.Exchange]; !ok && f.Exchange >= 0 && len(kept) < exchange.MaxExchanges {
			keep[f.Exchange] = len(kept)
			kept = append(kept, res.Exchanges[f.Exchange])
		}
	}
	if len(kept) == 0 {
		n := len(res.Exchanges)
		res.Exchanges = res.Exchanges[n-exchange.MaxExchanges:]
		for i := range res.Failures {
			res.Failures[i].Exchange -= n - exchange.MaxExchanges
		}
		return
	}
	for i, f := range res.Failures {
		if j, ok := keep[f.Exchange]; ok {
			res.Failures[i].Exchange = j
		} else {
			res.Failures[i].Exchange = -1
		}
	}
	res.Exchanges = kept
}

func (r *runner) finish() *Report {
	r.cleanUp()
	r.report.AnimalsCreated = int(r.sess.Created())
	r.report.Requests = int(r.sess.Requests())
	r.report.DurationMS = float64(time.Since(r.start).Microseconds()) / 1000
	r.report.Coverage = r.sess.Coverage()
	r.report.NotJudged = r.notJudged()
	r.report.ConnectionCloses = r.sess.Closes()
	answers, waited := r.sess.WaitedOut()
	r.report.WaitedOut, r.report.WaitedMS = int(answers), float64(waited.Microseconds())/1000
	r.report.Resent = int(r.sess.Resent())
	applyGates(r.report, r.opts, waiverClock(r.opts, r.start))
	r.report.Tally()
	if r.stopped() != nil {
		why := r.stopPhrase()
		if n := r.report.Counts.Fail; n > 0 {
			why += fmt.Sprintf("; %s failed before that (see the report)", cli.Plural(n, "rule"))
		}
		r.report.GateFailures = append(r.report.GateFailures, GateFailure{Gate: "run", Message: why})
		r.report.Tally()
		r.report.Verdict = CannotJudge
		return r.report
	}
	if c := r.report.Counts; c.Total > 0 && c.Skip == c.Total {
		// A run that judged nothing has no verdict, for the library as for the command.
		what := fmt.Sprintf("all %d selected rules were skipped", c.Total)
		if c.Total == 1 {
			what = "the 1 selected rule was skipped"
		}
		r.report.GateFailures = append(r.report.GateFailures, GateFailure{Gate: "run",
			Message: fmt.Sprintf("no rule could be judged: %s (%s)", what, r.report.Results[0].Reason)})
		r.report.Tally()
		r.report.Verdict = NotRun
	}
	return r.report
}

package conformance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gavv/httpexpect/v2"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/coverage"
	"github.com/petstore/petstore/spec"
)

// Target is the service under test.
type Target struct {
	// BaseURL ends with the version segment, e.g. http://127.0.0.1:8080/v1.
	BaseURL string
	// APIKey is sent as the bearer token. It never appears in a report.
	APIKey string
	// Client sends the requests; nil means NewClient with Options.Timeout. Whichever it is,
	// the run follows no redirect and caps response headers at 64 KiB.
	Client *http.Client
}

// Options select and tune a run. The zero value runs every rule against spec.Load().
type Options struct {
	// Spec is the description the rules are read from; nil means spec.Load().
	Spec *openapi3.T
	// Only keeps the rules whose ID matches one of these patterns; Skip drops those that
	// match one of these. A pattern is a path.Match glob on the ID ("auth/*", "*/limit-*"),
	// an ID prefix ("listPets"), or a glob on the part after the slash ("*-www-*").
	Only, Skip []string
	// Strict counts Should failures and failures of unstable operations as failures.
	Strict bool
	// ReadOnly runs only the rules that create nothing, and creates no animals.
	ReadOnly bool
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

	// wait sleeps between retries; nil means a real sleep. Tests make it instant.
	wait func(context.Context, time.Duration) error
}

// DefaultTimeout bounds each request when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// ErrKeyRefused is wrapped by Run's error when the target answers 401 to the run's own
// authenticated listing: the key is wrong or missing, so no rule could be judged.
var ErrKeyRefused = errors.New("the target refused the API key")

// ErrUnreachable is wrapped by Run's error when the target cannot be reached at all.
var ErrUnreachable = errors.New("target unreachable")

// ErrCancelled is Run's error when its context ends first (Ctrl-C, a CI job's SIGTERM):
// a partial run says nothing about the target.
var ErrCancelled = errors.New("run cancelled")

// Run runs the selected rules against target and returns the report. The error is for a
// run that could not be made (bad options, unreachable target); a non-conforming target is
// a report whose Verdict says so.
func Run(ctx context.Context, target Target, opts Options) (*Report, error) {
	r, err := newRunner(ctx, target, opts)
	if ctx.Err() != nil {
		return nil, ErrCancelled
	}
	if err != nil {
		return nil, err
	}
	for i, rule := range r.rules {
		if opts.Progress != nil {
			opts.Progress(i+1, len(r.rules), rule.ID)
		}
		res := r.run(rule)
		if ctx.Err() != nil {
			return nil, ErrCancelled
		}
		r.report.Results = append(r.report.Results, res)
		if opts.FailFast && rule.Severity == Must && (res.Status == Fail || res.Status == Error) {
			for _, rest := range r.rules[i+1:] {
				r.report.Results = append(r.report.Results, Result{ID: rest.ID, Section: rest.Section, Severity: rest.Severity,
					Title: rest.Title, Status: Skip, Reason: "not run: --fail-fast stopped the run after " + rule.ID})
			}
			break
		}
	}
	return r.finish(), nil
}

// NotRun is the verdict of a run that could not be made (exit 2): the report has no results,
// and its one gate failure, "run", says why.
const NotRun = "could not be made"

// NotRunReport is the report of a run that could not be made (an unreachable target, a
// refused key, a base URL without the version segment, a cancelled run), so that a CI job
// that asked for reports still has them, with the reason.
func NotRunReport(target Target, opts Options, reason error) *Report {
	red := newRedactor(target.APIKey)
	now := time.Now().UTC()
	rep := &Report{Target: red.text(target.BaseURL), Started: now, Clock: cmp.Or(opts.Now, now).UTC(),
		Strict: opts.Strict, ReadOnly: opts.ReadOnly, Seed: opts.Seed, Fuzz: opts.Fuzz,
		MaxCreates: cmp.Or(opts.MaxCreates, DefaultMaxCreates), MinCoverage: opts.MinCoverage, Results: []Result{}}
	if u, err := url.Parse(target.BaseURL); err == nil && u.Host != "" {
		rep.Target = red.url(u)
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
	rep.GateFailures = []GateFailure{{Gate: "run", Message: red.text(strings.TrimPrefix(reason.Error(), "conformance: "))}}
	rep.tally()
	rep.Verdict = NotRun
	return rep
}

type runner struct {
	ctx     context.Context
	opts    Options
	rules   []Rule
	facts   *facts
	sess    *session
	fixture *Fixture
	prepErr string // why preparation failed, for the rules that needed it
	report  *Report
	start   time.Time
	// waitedInVain: a generated case waited in vain for an animal it created.
	waitedInVain atomic.Bool
}

func newRunner(ctx context.Context, target Target, opts Options) (*runner, error) {
	start := time.Now()
	if opts.Spec == nil {
		doc, err := spec.Load()
		if err != nil {
			return nil, err
		}
		opts.Spec = doc
	}
	if opts.Now.IsZero() {
		opts.Now = start
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.wait == nil {
		opts.wait = sleep
	}
	f, err := readFacts(opts.Spec)
	if err != nil {
		return nil, err
	}
	if opts.Seed == 0 {
		opts.Seed = uint64(start.UnixNano())
	}
	if opts.MaxCreates <= 0 {
		opts.MaxCreates = DefaultMaxCreates
	}
	if opts.Fuzz < 0 {
		return nil, fmt.Errorf("conformance: --fuzz %d: want a number of combinations, 0 or more", opts.Fuzz)
	}
	all, err := All(opts.Spec)
	if err != nil {
		return nil, err
	}
	if opts.Fuzz > 0 {
		all = append(all, fuzzRules(f, opts.Fuzz)...)
	}
	rules, err := Select(all, opts.Only, opts.Skip)
	if err != nil {
		return nil, err
	}
	if err := checkWaivers(all, opts.Waivers); err != nil {
		return nil, err
	}
	sess, err := newSession(target, opts)
	if err != nil {
		return nil, err
	}
	r := &runner{ctx: ctx, opts: opts, rules: rules, facts: f, sess: sess, start: start,
		report: &Report{
			Target:      sess.red.url(sess.base),
			SpecTitle:   opts.Spec.Info.Title,
			SpecVersion: opts.Spec.Info.Version,
			Started:     start.UTC(),
			Clock:       opts.Now.UTC(),
			Strict:      opts.Strict,
			ReadOnly:    opts.ReadOnly,
			Seed:        opts.Seed,
			Fuzz:        opts.Fuzz,
			MaxCreates:  opts.MaxCreates,
		}}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	return r, nil
}

func newSession(target Target, opts Options) (*session, error) {
	base, err := url.Parse(strings.TrimSuffix(target.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("conformance: base URL %q: want http(s)://host[:port]/path", target.BaseURL)
	}
	v, err := spec.NewValidator(opts.Spec)
	if err != nil {
		return nil, err
	}
	specBase, err := spec.BasePath(opts.Spec)
	if err != nil {
		return nil, err
	}
	red := newRedactor(target.APIKey)
	if err := checkVersionSegment(base, specBase, red); err != nil {
		return nil, err
	}
	errSchema := opts.Spec.Components.Schemas["Error"]
	if errSchema == nil || errSchema.Value == nil {
		return nil, errors.New("conformance: the spec has no Error schema")
	}
	cov, err := coverage.New(opts.Spec)
	if err != nil {
		return nil, err
	}
	client := target.Client
	if client == nil {
		client, _ = NewClient(ClientOptions{Timeout: opts.Timeout}) // no file to read: no error
	}
	// Paths are appended to baseURL; a query string of the base URL (a gateway's code) goes
	// on every request instead (session.withBaseQuery).
	bare := *base
	bare.RawQuery, bare.ForceQuery = "", false
	return &session{client: harden(client), timeout: opts.Timeout, base: base, baseURL: bare.String(),
		key: target.APIKey, red: red, headers: opts.Headers, wait: opts.wait, specBase: specBase, validator: v, errSchema: errSchema, coverage: cov}, nil
}

// ErrBaseURL is wrapped by Run's error when the base URL does not end with the spec's
// version segment: every rule would fail for that one reason.
var ErrBaseURL = errors.New("base URL does not end with the version segment")

var versionSegment = regexp.MustCompile(`^v[0-9]+$`)

// checkVersionSegment refuses a base URL whose path does not end with the spec's base path
// ("/v1"), and suggests the URL that does: the last segment replaced when it is another
// version ("/v2"), else the base path appended.
func checkVersionSegment(base *url.URL, specBase string, red *redactor) error {
	p := strings.TrimSuffix(base.Path, "/")
	if specBase == "" || strings.HasSuffix(p, specBase) {
		return nil
	}
	if versionSegment.MatchString(path.Base(p)) {
		p = path.Dir(p)
	}
	fixed := *base
	fixed.Path, fixed.RawPath = strings.TrimSuffix(p, "/")+specBase, ""
	return fmt.Errorf("conformance: %w %s: the base URL %s has path %q; did you mean %s?", ErrBaseURL, specBase,
		red.url(base), cmp.Or(base.Path, "/"), red.url(&fixed))
}

// Select returns the rules that match only (all if only is empty) and not skip.
func Select(rules []Rule, only, skip []string) ([]Rule, error) {
	for _, p := range append(append([]string(nil), only...), skip...) {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("conformance: bad pattern %q: %w", p, err)
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

// skipReason says why rule does not run in this run, or "".
func (r *runner) skipReason(rule Rule) string {
	if rule.Creates && r.opts.ReadOnly {
		return "creates animals (or would, on a non-conforming target) and the run is read-only"
	}
	// A hand-written rule creates at most two animals: it starts only if both fit.
	if n := r.sess.created.Load(); rule.Creates && n+2 > int64(r.opts.MaxCreates) {
		return fmt.Sprintf("creates animals, and the run has created %d of its --max-creates %d", n, r.opts.MaxCreates)
	}
	if op, ok := r.facts.byID[rule.Op]; ok {
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

// run runs one rule and returns its result.
func (r *runner) run(rule Rule) Result {
	res := Result{ID: rule.ID, Section: rule.Section, Severity: rule.Severity, Title: rule.Title}
	if op, ok := r.facts.byID[rule.Op]; ok {
		res.Stability = op.Stability
	}
	if reason := r.skipReason(rule); reason != "" {
		res.Status, res.Reason = Skip, reason
		return res
	}
	if r.prepErr != "" && (rule.Needs != Needs{}) {
		res.Status, res.Reason = Error, "preparation failed: "+r.prepErr
		return res
	}
	rec := &recorder{redact: r.sess.redact}
	check := r.newCheck(rule, rec)
	skipped, panicked := r.execute(rule, check)
	res.Failures, res.Exchanges = rec.failures, rec.exchanges
	res.Cases, res.CasesSkipped = check.cases.ran, check.cases.skipped
	if skipped == "" && res.Cases == 0 && res.CasesSkipped > 0 {
		skipped = "no case could be sent: " + check.cases.skipWhy
	}
	switch {
	case panicked != "":
		res.Status, res.Reason = Error, "the check panicked: "+r.sess.redact(panicked)
	case rec.noAnswer != "":
		// Refused, reset or timed out says nothing about conformance; Error still makes
		// the run not conforming, so a target that never answers does not pass.
		res.Status, res.Reason = Error, rec.noAnswer
	case len(res.Failures) > 0:
		res.Status, res.Reason = r.failStatus(rule, res)
	case skipped != "":
		res.Status, res.Reason = Skip, skipped
	default:
		res.Status = Pass
	}
	if res.Status == Pass && res.CasesSkipped > 0 {
		res.Reason = fmt.Sprintf("%d cases not sent: %s", res.CasesSkipped, check.cases.skipWhy)
	}
	if res.Status == Pass || res.Status == Skip {
		res.Exchanges = nil
	} else {
		keepExchanges(&res)
	}
	waive(&res, r.opts, waiverClock(r.opts, r.start))
	return res
}

// failStatus weighs a failed rule: Must fails, Should warns unless strict, Info warns, and
// an operation marked unstable only warns unless strict.
func (r *runner) failStatus(rule Rule, res Result) (Status, string) {
	msg := res.Failures[0].Message
	if c := res.Failures[0].Case; c != "" {
		msg += " (case: " + c + ")"
		if n := len(res.Failures); n > 1 {
			msg += fmt.Sprintf(", and %d more failures", n-1)
		}
	}
	switch {
	case rule.Severity == Info:
		return Warn, "INFO: " + msg
	case r.opts.Strict:
		return Fail, msg
	case res.Stability != "":
		return Warn, res.Stability + ": " + msg
	case rule.Severity == Should:
		return Warn, "SHOULD: " + msg
	}
	return Fail, msg
}

func (r *runner) execute(rule Rule, c *Check) (skipped, panicked string) {
	defer func() {
		if v := recover(); v != nil {
			if s, ok := v.(skipSignal); ok {
				skipped = s.reason
				return
			}
			panicked = fmt.Sprint(v)
		}
	}()
	rule.Check(c)
	return "", ""
}

func (r *runner) newCheck(rule Rule, rec *recorder) *Check {
	anon := httpexpect.WithConfig(httpexpect.Config{
		TestName: rule.ID,
		BaseURL:  r.sess.baseURL,
		Client: httpexpect.ClientFunc(func(req *http.Request) (*http.Response, error) {
			// httpexpect's WithJSON adds "; charset=utf-8", a parameter a service may refuse
			// (the document names the media type only); the cases send it on purpose.
			if req.Header.Get("Content-Type") == "application/json; charset=utf-8" {
				req.Header.Set("Content-Type", "application/json")
			}
			return r.sess.do(rec, rule.Open, req)
		}),
		AssertionHandler: assertionHandler{rec: rec},
		Context:          r.ctx,
	})
	key := r.sess.key
	auth := anon.Builder(func(req *httpexpect.Request) { req.WithHeader("Authorization", credBearer.value(key)) })
	return &Check{Clients: Clients{Anon: anon, Auth: auth}, Ctx: r.ctx, Now: r.opts.Now,
		Fixture: r.fixture, BaseURL: r.sess.baseURL, rec: rec, key: key, wait: r.opts.wait,
		send: func(rec *recorder, req *http.Request, open bool) (*http.Response, error) {
			return r.sess.do(rec, open, req)
		},
		cases: &caseState{seed: r.opts.Seed, readOnly: r.opts.ReadOnly, maxCreates: r.opts.MaxCreates, created: r.sess.created.Load,
			create:       r.facts.byID[opCreate],
			waitedInVain: &r.waitedInVain}}
}

// keepExchanges cuts a failed rule's exchanges to maxExchanges: the last ones, or, when a
// rule of many requests (a case family) failed early, the ones its failures point at.
func keepExchanges(res *Result) {
	if len(res.Exchanges) <= maxExchanges {
		return
	}
	keep := map[int]int{}
	var kept []Exchange
	for _, f := range res.Failures {
		if _, ok := keep[f.Exchange]; !ok && f.Exchange >= 0 && len(kept) < maxExchanges {
			keep[f.Exchange] = len(kept)
			kept = append(kept, res.Exchanges[f.Exchange])
		}
	}
	if len(kept) == 0 {
		n := len(res.Exchanges)
		res.Exchanges = res.Exchanges[n-maxExchanges:]
		for i := range res.Failures {
			res.Failures[i].Exchange -= n - maxExchanges
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
	r.report.AnimalsCreated = int(r.sess.created.Load())
	r.report.Requests = int(r.sess.requests.Load())
	r.report.DurationMS = float64(time.Since(r.start).Microseconds()) / 1000
	r.report.Coverage = r.sess.coverage.Snapshot()
	applyGates(r.report, r.opts, waiverClock(r.opts, r.start))
	r.report.tally()
	return r.report
}

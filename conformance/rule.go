package conformance

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gavv/httpexpect/v2"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/words"
)

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
	// When preparation failed (or a listing whose animals it needs answered wrongly), a rule
	// that needed animals still runs on what the store holds: what its requests show without
	// the fixture (at most the limit, the filter exact, Error bodies) is judged; if that shows
	// no fault, the rule could not be judged.
	why := r.unprepared(rule.Needs)
	unprepared := why != ""
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
	out := rules.Execute(rule, rules.NewCheck(r.env(!unprepared), r.clients(rule, rec), caseSender{rec, r.sess}))
	skipped, panicked := out.Skip, out.Panicked
	res.Cases, res.CasesSkipped = out.Ran, out.Skipped
	// A failing answer that came after another request's on its connection is sent again
	// alone before its request is blamed.
	rec.Confirm(r.ctx, r.reserve)
	// The exchanges are written (redacted, with their curl lines) only for a rule that
	// does not pass: most rules pass, and theirs are never shown.
	res.Failures = rec.Failures()
	for i := range res.Failures {
		res.Failures[i].Level = res.Failures[i].Level.Weaker(rule.Severity)
	}
	if len(res.Failures) > 0 {
		res.Level, _ = report.Strongest(res.Failures)
	}
	if skipped == "" && res.Cases == 0 && res.CasesSkipped > 0 {
		skipped = "no case could be sent: " + out.SkipWhy
	}
	if why := rec.NotSent(); why != "" && skipped == "" {
		skipped = "not sent: " + why
	}
	switch {
	case panicked != "":
		res.Status, res.Reason = Error, "the check panicked: "+r.sess.Redact(panicked)
	case r.ctx.Err() != nil && len(res.Failures) == 0:
		// Stopped while the rule ran, before it showed a fault: not judged.
		res.Status, res.Reason, res.NotRun = Skip, "not judged: "+r.stopPhrase(), true
	case !rec.Answered():
		// Refused, reset or timed out says nothing about conformance; Error still makes
		// the run not conforming, so a target that never answers does not pass.
		res.Status, res.Reason = Error, rec.NoAnswer()
	case len(res.Failures) > 0:
		res.Status, res.Reason = r.failStatus(res)
		if unprepared {
			res.Reason += " (judged without the animals it needed: " + why + ")"
		}
	case unprepared:
		res.Status, res.Reason = Error, why
	case skipped != "":
		res.Status, res.Reason = Skip, skipped
	default:
		res.Status = Pass
	}
	if res.Status == Pass && res.CasesSkipped > 0 {
		res.Reason = fmt.Sprintf("%s not sent: %s", words.Plural(res.CasesSkipped, "case"), out.SkipWhy)
	}
	if res.Status != Pass && res.Status != Skip {
		res.Failures, res.Exchanges = rec.Results()
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
			msg += ", and " + words.Plural(n-1, "more failure")
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

// clients are the httpexpect clients of rule's checks, which send through the session and
// record into rec.
func (r *runner) clients(rule Rule, rec *exchange.Recorder) rules.Clients {
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
	return rules.Clients{Anon: anon, Auth: auth}
}

// env is what a rule runs with: the fixture (prepared says it holds what the rule needs)
// and the run's budget, which its families share.
func (r *runner) env(prepared bool) cases.Env {
	return cases.Env{Ctx: r.ctx, Now: r.opts.Now, BaseURL: r.sess.BaseURL(), Key: r.sess.Key(), Wait: r.opts.Wait,
		Fixture: rules.Furnished(r.facts, r.fixture), Prepared: prepared,
		Budget: cases.Budget{Seed: r.opts.Seed, Strength: strength(r.opts), Depth: depth(r.opts), NoKeyElsewhere: r.opts.NoKeyElsewhere, Workers: r.opts.Workers, ReadOnly: r.opts.ReadOnly,
			MaxCreates: r.opts.MaxCreates, Reserve: r.reserve, WaitedInVain: &r.waitedInVain}}
}

// strength is how many of a request's parts the auth family's combinations vary together:
// as asked, else every pair, or every triple under --fuzz.
func strength(o Options) int {
	if o.Strength > 0 {
		return o.Strength
	}
	if o.Fuzz > 0 {
		return cases.FuzzStrength
	}
	return cases.DefaultStrength
}

// depth is how much of the request space the cases send: deeper with --depth deep.
func depth(o Options) cases.Depth {
	if o.Deep {
		return cases.DepthDeep
	}
	return cases.DepthDefault
}

// caseSender sends a rule's requests through the session, recorded into the rule's recorder.
type caseSender struct {
	*exchange.Recorder
	sess *exchange.Session
}

// keepExchanges cuts a failed rule's exchanges to exchange.MaxExchanges: the last ones, or, when a
// rule of many requests (a case family) failed, the ones its failures point at. Every failure
// keeps its exchange, so that each has its curl line: beyond MaxExchanges, an exchange is kept
// without its response body (marked cut).
func keepExchanges(res *Result) {
	if len(res.Exchanges) <= exchange.MaxExchanges {
		return
	}
	keep := map[int]int{}
	var kept []Exchange
	for _, f := range res.Failures {
		if _, ok := keep[f.Exchange]; ok || f.Exchange < 0 || f.Exchange >= len(res.Exchanges) {
			continue
		}
		keep[f.Exchange] = len(kept)
		ex := res.Exchanges[f.Exchange]
		if len(kept) >= exchange.MaxExchanges && ex.Response != nil && ex.Response.Body != "" {
			slim := *ex.Response
			slim.Body, slim.Truncated = "", true
			ex.Response = &slim
		}
		kept = append(kept, ex)
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

func (s caseSender) Send(ctx context.Context, req cases.Request, open bool) (*http.Response, error) {
	resp, _, err := s.sess.Exchange(ctx, s.Recorder, open, req)
	return resp, err
}

func (s caseSender) Fork() (cases.Sender, func()) {
	sub := s.Recorder.Scratch()
	return caseSender{sub, s.sess}, func() { s.Recorder.Absorb(sub) }
}

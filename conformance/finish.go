package conformance

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/coverage"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/spec"
)

// NotRunReport is the report of a run that could not be made (an unreachable target, a
// refused key, a base URL without the version segment, a cancelled run), so that a CI job
// that asked for reports still has them, with the reason.
func NotRunReport(target Target, opts Options, reason error) *Report {
	red := exchange.Secrets{BaseURL: target.BaseURL, APIKey: target.APIKey, Headers: opts.Headers}.Redactor()
	now := time.Now().UTC()
	rep := &Report{Target: red.Text(target.BaseURL), Started: now, Clock: cmp.Or(opts.Now, now).UTC(),
		Strict: opts.Strict, ReadOnly: opts.ReadOnly, KeyElsewhere: !opts.NoKeyElsewhere, Seed: opts.Seed, Fuzz: opts.Fuzz,
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

func withSeed(p report.Provenance, seed uint64) report.Provenance {
	p.Seed = seed
	return p
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
			why += fmt.Sprintf("; %s failed before that (see the report)", words.Plural(n, "rule"))
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

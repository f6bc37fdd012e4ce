package cases

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
)

// Sender is where a family sends and records: the runner gives one per family, over its
// session (conformance/exchange), so the cases' requests are capped, validated against the
// spec and redacted as every other request is.
type Sender interface {
	// Send sends req (built by the session for its target and key), recorded and validated
	// against the spec; open accepts any 4xx status with an Error body (a case the document
	// leaves open).
	Send(ctx context.Context, req Request, open bool) (*http.Response, error)
	// Fork returns an empty Sender over the same session, and merge, which appends what the
	// fork recorded to this one: a case records on its own, and shrinking tries candidates
	// without reporting them.
	Fork() (fork Sender, merge func())
	// Fail records f against the latest exchange, FailAt against exchange i.
	Fail(f report.Failure)
	FailAt(f report.Failure, i int)
	// SetCase makes later failures carry a case's words, section, verdict and reasoning;
	// empty words end the case.
	SetCase(words, section, verdict, reason string)
	// Strongest is the strongest level of the failures so far (ok false: none).
	Strongest() (level report.Severity, ok bool)
	FailureCount() int
	ExchangeCount() int
	// Answered reports whether every request so far got an answer.
	Answered() bool
	// NotSent is why the latest request was kept from the target, and forgets it; "" if
	// it went.
	NotSent() string
}

// run is one family's run, or one case's within it (fork).
type run struct {
	Env
	fam *Family
	to  Sender
	// The counts of the case or family, merged as cases finish.
	ran, skipped int
	skipWhy      string
	// lastStatus is the status of the latest case's answer (0: none).
	lastStatus int
	// notSent is why the latest case was not sent although it was allowed to be.
	notSent string
	// sent is the name of the case this fork sent, after shrinking.
	sent string
	// refusal is the create this fork's case sent and the service refused (refused.go);
	// refused gathers the family's, in the order merged.
	refusal *refusal
	refused []refusal
	// alone holds the status each single variant that failed got, by case name: what a
	// combination holding a rejected key is compared with.
	alone map[string]int
	// probed says the family has looked once for a record a create refused with a 5xx left
	// behind (leftUnservable): shared by the forks.
	probed *atomic.Bool
}

// Run sends every case of f on up to the budget's workers, judges each answer by its case's
// verdict, and records the failures, tagged with their cases, to to.
func (f *Family) Run(env Env, to Sender) (out Outcome) {
	r := &run{Env: env, fam: f, to: to, probed: new(atomic.Bool)}
	defer func() {
		if v := recover(); v != nil {
			out.Panicked = fmt.Sprint(v)
		}
		out.Ran, out.Skipped, out.SkipWhy = r.ran, r.skipped, r.skipWhy
	}()
	if f.knownAnimal && len(env.Fixture.Pets) < 1 {
		return Outcome{Skip: "the store shows fewer than 1 animals, and preparation failed"}
	}
	ks := f.draw(r.generator(), env.Budget.Seed)
	var probes []probe
	// The single variants go first, then the combinations. One that holds a rejected key
	// whose single variant failed (which never happens on a conforming service) is judged
	// against that key's answer: the same status is that finding, reported once, another
	// status is a finding of its own; where the key alone got a success, the service does
	// not check it, and whatever the combination gets repeats that finding, so it is not sent.
	singles, combos := splitCombinations(ks, f.around)
	r.alone = map[string]int{}
	send := func(part []Case) {
		for _, o := range r.runCases(part) {
			if part[o.index].RangeProbe {
				probes = append(probes, probe{part[o.index], o.lastStatus, o.lastExchange})
			}
			if o.failed && o.lastStatus != 0 {
				r.alone[part[o.index].Name] = o.lastStatus
			}
		}
	}
	send(singles)
	if len(combos) > 0 && r.to.Answered() {
		rest := slices.DeleteFunc(slices.Clone(combos), func(k Case) bool {
			return slices.ContainsFunc(keyAnswers(k, r.alone), func(st int) bool { return st/100 == 2 })
		})
		if n := len(combos) - len(rest); n > 0 {
			r.skipped += n
			r.skipWhy = "a combination holding a key that alone got a success (the key is not checked) repeats that finding"
		}
		send(rest)
	}
	r.judgeRange(probes)
	r.checkRefused(r.refused)
	return out
}

// splitCombinations parts ks into the single variants and, for a family whose combinations
// are shrunk around a rejected key (auth), those combinations.
func splitCombinations(ks []Case, around bool) (singles, combos []Case) {
	if !around {
		return ks, nil
	}
	for _, k := range ks {
		if len(k.Mutations()) > 1 && k.Mutations()[0].Part == "auth" {
			combos = append(combos, k)
		} else {
			singles = append(singles, k)
		}
	}
	return singles, combos
}

// keyAnswers are the statuses that the rejected key k holds (and the key offered elsewhere
// too) got as single variants, of those that failed alone.
func keyAnswers(k Case, alone map[string]int) []int {
	var out []int
	for _, m := range k.Mutations() {
		name := m.Name
		switch m.Part {
		case "auth":
		case "auth.elsewhere":
			name = "key-in-" + strings.TrimPrefix(m.Name, "also-")
		default:
			continue
		}
		if st := alone[name]; st != 0 {
			out = append(out, st)
		}
	}
	return out
}

// fork is a copy of r for one case: its own recorder and counts, the same settings.
func (r *run) fork() (*run, func()) {
	to, merge := r.to.Fork()
	return &run{Env: r.Env, fam: r.fam, to: to, alone: r.alone, probed: r.probed}, merge
}

// caseOutcome is what one case showed, once merged into the family's recorder.
type caseOutcome struct {
	index        int
	lastStatus   int // the status of the case's last answer (0: none)
	lastExchange int // the index, in the family's recorder, of the case's last exchange
	failed       bool
}

// runCases sends ks on up to the run's workers at once, each case's own requests in order,
// and merges what each showed into the family's recorder in the order of ks, so that the
// report does not depend on timing. After a case the target did not answer, no further
// case is sent or reported: the rule is then inconclusive, and sending the rest would only
// wait out more timeouts. It returns the outcomes of the cases merged.
func (r *run) runCases(ks []Case) []caseOutcome {
	type result struct {
		sub      *run
		merge    func()
		panicked any // what a case's goroutine panicked with, raised again in the family's
		done     chan struct{}
	}
	results := make([]result, len(ks))
	for i := range results {
		results[i].done = make(chan struct{})
	}
	var halt atomic.Bool
	sem := make(chan struct{}, max(r.Budget.Workers, 1))
	go func() {
		for i, k := range ks {
			sem <- struct{}{}
			if halt.Load() || r.Ctx.Err() != nil {
				<-sem
				close(results[i].done)
				continue
			}
			go func() {
				defer func() { <-sem; close(results[i].done) }()
				defer func() {
					if v := recover(); v != nil {
						results[i].panicked = v
						halt.Store(true)
					}
				}()
				sub, merge := r.fork()
				if !sub.runCase(k) {
					halt.Store(true)
				}
				results[i].sub, results[i].merge = sub, merge
			}()
		}
	}()
	var out []caseOutcome
	stopped := false
	// A combination shrunk to a case reported before (the rejected key alone, say) is the
	// same finding: it counts as sent, and the report names it once.
	reported := map[string]bool{}
	for i := range results {
		<-results[i].done
		if v := results[i].panicked; v != nil && !stopped {
			panic(v) // Run reports it, as for a check that panics in the rule's goroutine
		}
		sub := results[i].sub
		if stopped || sub == nil {
			stopped = true
			continue
		}
		if reported[sub.sent] && sub.sent != ks[i].Name {
			r.ran += sub.ran
			stopped = !sub.to.Answered()
			continue
		}
		reported[sub.sent] = true
		results[i].merge()
		if f := sub.refusal; f != nil {
			f.exchange = r.to.ExchangeCount() - 1
			r.refused = append(r.refused, *f)
		}
		r.ran += sub.ran
		if sub.skipped > 0 {
			r.skipped += sub.skipped
			r.skipWhy = sub.skipWhy
		}
		out = append(out, caseOutcome{index: i, lastStatus: sub.lastStatus, lastExchange: r.to.ExchangeCount() - 1,
			failed: sub.to.FailureCount() > 0})
		stopped = !sub.to.Answered()
	}
	return out
}

// runCase sends one case and judges the answer; a failing random combination is shrunk
// first and reported as its smallest failing form. It returns false when the target gave
// no answer: the rule is then inconclusive, and sending the rest would only wait out more
// timeouts.
func (r *run) runCase(k Case) bool {
	if r.Budget.NoKeyElsewhere && k.Request.KeyAt.In != "" {
		r.skipped++
		r.skipWhy = "--no-key-elsewhere: the key is not offered outside the Authorization header, so whether the service takes it there is not judged"
		return true
	}
	release, why := r.mayCreate(k.Creates)
	if release == nil {
		r.skipped++
		r.skipWhy = why
		return true
	}
	defer release()

	r.to.SetCase(k.Words, k.Section, k.Verdict.String(), k.Reason)
	defer r.to.SetCase("", "", "", "")
	if r.fam.shrink && len(k.Mutations()) > 1 {
		// Sent once on a fork: a combination that passes is merged as it is (most do), one
		// that fails is shrunk, and its smallest failing form is what the case reports.
		sub, merge := r.fork()
		sub.to.SetCase(k.Words, k.Section, k.Verdict.String(), k.Reason)
		sub.judgeCase(k)
		level, failed := sub.to.Strongest()
		if !failed {
			r.notSent = cmp.Or(sub.to.NotSent(), sub.notSent)
			merge()
			r.lastStatus, r.sent, r.refusal = sub.lastStatus, k.Name, sub.refusal
			return r.account()
		}
		got, alone := sub.lastStatus, keyAnswers(k, r.alone)
		if slices.Contains(alone, got) {
			// The answer its rejected key got alone: that finding, which the single
			// variant reports; the combination is counted as sent, not reported again.
			r.sent = k.Name
			return r.account()
		}
		k = r.shrunk(k, level, got)
		if len(alone) > 0 {
			k.Words += fmt.Sprintf(" (alone, the key got %s: this is another answer)", report.StatusText(alone[0]))
		}
		r.to.SetCase(k.Words, k.Section, k.Verdict.String(), k.Reason)
	}
	r.sent = k.Name
	r.judgeCase(k)
	return r.account()
}

// account counts the case just judged: not sent (and why), or sent; it returns false when
// the target gave no answer.
func (r *run) account() bool {
	if why := cmp.Or(r.to.NotSent(), r.notSent); why != "" {
		r.notSent = ""
		r.skipped++
		r.skipWhy = why
		return true
	}
	r.ran++
	return r.to.Answered()
}

// shrunk is k, which failed at level with an answer of status got, as its smallest failing
// form, its words saying what it was shrunk from. A combination built around a rejected key
// shrinks only to forms that get the same status: a part answered before the key names
// itself in the status it gets, and a smaller form answered otherwise is another finding.
func (r *run) shrunk(k Case, level report.Severity, got int) Case {
	// A smaller form must fail as strongly: dropping a rejected field from a body that also
	// holds bytes that are not UTF-8 must not turn a MUST into a SHOULD.
	shrink := Shrink
	if r.fam.around {
		shrink = ShrinkAround
	}
	small := shrink(k, func(cand Case) bool {
		if st, ok := r.alone[cand.Name]; ok && r.fam.around {
			return st == got // a single variant that failed alone: its answer is known
		}
		release, _ := r.mayCreate(cand.Creates)
		if release == nil {
			return false
		}
		defer release()
		failed, lvl, st := r.probe(cand)
		return failed && lvl <= level && (!r.fam.around || st == got)
	})
	if len(small.Mutations()) < len(k.Mutations()) {
		small.Words += fmt.Sprintf(" (shrunk from %d variants: %s)", len(k.Mutations()), k.Words)
	}
	return small
}

// probe judges k on a fork that is never merged, and reports whether it failed, the
// strongest level it failed at, and the status it got (0: none).
func (r *run) probe(k Case) (bool, report.Severity, int) {
	sub, _ := r.fork()
	sub.judgeCase(k)
	level, failed := sub.to.Strongest()
	return failed, level, sub.lastStatus
}

// mayCreate returns the release of the room a case that creates claims (a no-op for one
// that does not), or nil and why the case may not be sent.
func (r *run) mayCreate(creates bool) (release func(), why string) {
	switch {
	case !creates:
		return func() {}, ""
	case r.Budget.ReadOnly:
		return nil, "the run is read-only and the case may create an animal"
	}
	if release = r.Budget.Reserve(1); release == nil {
		return nil, fmt.Sprintf("the run has created %d animals, its --max-creates", r.Budget.MaxCreates)
	}
	return release, ""
}

// generator builds the cases' valid requests from the fixture: a categoryId a listed
// animal has, a listed animal's id, ids no listed animal has, and names drawn from the
// run's seed (so that a seed sends the same requests).
func (r *run) generator() *Generator {
	// The names are the seed's and the run clock's: a seed sends the same requests at one
	// clock (--now, a test), and two runs of one seed against one store still send names
	// of their own, so that a refused create is never found by another run's animal.
	rng := rand.New(rand.NewPCG(r.Budget.Seed^uint64(r.Now.UnixNano()), hash(r.fam.stream)))
	base := Base{Reference: r.Fixture.Reference, Name: func() string { return RandomName(rng.IntN) }}
	seen := judge.IDSet(r.Fixture.Pets)
	if len(r.Fixture.Pets) > 0 {
		base.KnownID, _ = judge.IDOf(r.Fixture.Pets[0])
		base.Taken, _ = r.Fixture.Pets[0]["name"].(string)
	}
	for _, id := range []string{"9223372036854775807", "0", "-1", "9007199254740993"} {
		if !seen[id] {
			base.Unknown = append(base.Unknown, id)
		}
	}
	return New(base).Combinations(r.Budget.Seed, cmp.Or(r.Budget.Strength, DefaultStrength)).Deep(r.Budget.Depth)
}

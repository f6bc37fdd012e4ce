package exchange

import (
	"sync"

	"github.com/petstore/petstore/conformance/report"
)

// Recorder collects one rule's failures and exchanges. It is safe for concurrent use.
type Recorder struct {
	mu        sync.Mutex
	redact    func(string) string
	failures  []report.Failure
	exchanges []report.Exchange
	// answered are the exchanges recorded after exchanges and not yet written for a report:
	// an exchange is redacted and its curl line written when it is first read (Results),
	// and most never are.
	answered []answeredExchange
	// noAnswer is why the latest request got no response (refused, reset, timed out): the
	// rule is then inconclusive, not failed.
	noAnswer string
	// notSent is why the guard kept the latest request from the target, until read.
	notSent string
	// accounted: the latest request's failure to get a whole answer is recorded as a
	// finding already (a dropped connection, a body cut short).
	accounted bool
	// tag is the generated case being judged, if any: its failures carry its words.
	tag *caseTag
}

// caseTag is what a failure recorded during a generated case carries.
type caseTag struct{ words, section, verdict, reason string }

// NewRecorder returns a recorder whose texts pass through redact.
func NewRecorder(redact func(string) string) *Recorder { return &Recorder{redact: redact} }

// Scratch returns an empty recorder that redacts as r does: shrinking tries candidates
// without reporting them.
func (r *Recorder) Scratch() *Recorder { return NewRecorder(r.redact) }

// SetCase makes the failures recorded from now on carry a generated case's words, section,
// verdict and reasoning; empty words end the case.
func (r *Recorder) SetCase(words, section, verdict, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tag = nil
	if words != "" {
		r.tag = &caseTag{words, section, verdict, reason}
	}
}

// NotSent is why the guard kept the latest request from the target ("" if it went), and
// forgets it: a case that was not sent is counted as such once.
func (r *Recorder) NotSent() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	why := r.notSent
	r.notSent = ""
	return why
}

// Accounted reports whether the latest request's want of an answer is said already: the
// guard kept it from the target (without forgetting it, as NotSent does), or its dropped
// connection or cut body is a finding recorded.
func (r *Recorder) Accounted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.notSent != "" || r.accounted
}

// Answered reports whether every request so far got an answer.
func (r *Recorder) Answered() bool { return r.NoAnswer() == "" }

// NoAnswer is why the latest request got no response, or "".
func (r *Recorder) NoAnswer() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.noAnswer
}

// FailAt records f against the exchange with index i (a failure judged later than its
// exchange).
func (r *Recorder) FailAt(f report.Failure, i int) {
	r.Fail(f)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures[len(r.failures)-1].Exchange = i
}

// ExchangeCount is the number of exchanges recorded so far.
func (r *Recorder) ExchangeCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count()
}

func (r *Recorder) count() int { return len(r.exchanges) + len(r.answered) }

// build writes the exchanges recorded but not yet written, in order. r.mu is held.
func (r *Recorder) build() {
	for i := range r.answered {
		r.exchanges = append(r.exchanges, r.answered[i].build())
	}
	r.answered = nil
}

// Fail records f against the latest exchange, which is the one an assertion concerns:
// checks are sequential.
func (r *Recorder) Fail(f report.Failure) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f.Message, f.Expected, f.Actual = r.redact(f.Message), r.redact(f.Expected), r.redact(f.Actual)
	f.Exchange = r.count() - 1
	if r.tag != nil {
		f.Case, f.CaseSection, f.Verdict, f.Reasoning = r.redact(r.tag.words), r.tag.section, r.tag.verdict, r.tag.reason
	}
	r.failures = append(r.failures, f)
}

func (r *Recorder) add(ex report.Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.accounted = false
	r.build()
	r.exchanges = append(r.exchanges, ex)
}

// addAnswered records an exchange that got its answer, to be written when it is read.
func (r *Recorder) addAnswered(a answeredExchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.accounted = false
	r.answered = append(r.answered, a)
}

// Strongest is the strongest level of the failures recorded so far; ok is false when there
// are none.
func (r *Recorder) Strongest() (level report.Severity, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	level, i := report.Strongest(r.failures)
	return level, i >= 0
}

// Results returns what was recorded.
func (r *Recorder) Results() ([]report.Failure, []report.Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.build()
	return r.failures, r.exchanges
}

// Failures returns the failures recorded, without writing the exchanges for a report.
func (r *Recorder) Failures() []report.Failure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures
}

// FailureCount is the number of failures recorded so far.
func (r *Recorder) FailureCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failures)
}

// Absorb appends what src recorded to r, its failures pointing at their exchanges' new
// places; a request src got no answer to is then r's too. src must be an *exchange.Recorder
// no one records into any more (a generated case's, merged in order).
func (r *Recorder) Absorb(s *Recorder) {
	s.mu.Lock()
	failures, built, lazy := s.failures, s.exchanges, s.answered
	s.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	// src's exchanges go after r's in order, and stay unwritten until a report reads them:
	// most cases pass, and their exchanges are never read.
	offset := r.count()
	for i := range built {
		r.answered = append(r.answered, answeredExchange{done: &built[i]})
	}
	r.answered = append(r.answered, lazy...)
	for _, f := range failures {
		if f.Exchange >= 0 {
			f.Exchange += offset
		}
		r.failures = append(r.failures, f)
	}
	if na := s.NoAnswer(); na != "" {
		r.noAnswer = na
	}
}

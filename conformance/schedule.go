package conformance

import (
	"sync"
	"sync/atomic"
)

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
				NotRun: true, Reason: "not judged: " + r.stopPhrase()}
		}
		if stoppedAt != "" {
			res = Result{ID: rule.ID, Section: rule.Section, Severity: rule.Severity, Level: rule.Severity, Title: rule.Title, Status: Skip,
				NotRun: true, Reason: "not run: --fail-fast stopped the run after " + stoppedAt}
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

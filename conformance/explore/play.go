package explore

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// merge orders the exchanges of all workers by the time they were sent, filled.
func merge(traces [][]Exchange) []Exchange {
	var out []Exchange
	for _, t := range traces {
		out = append(out, t...)
	}
	for i := range out {
		out[i].fill()
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

// onFresh is r on a fresh target (r.fresh), sent the exploration's first request; stop
// closes it and the target.
func (r *runner) onFresh(ctx context.Context) (_ *runner, stop func(), err error) {
	t, stopTarget, err := r.fresh()
	if err != nil {
		return nil, nil, fmt.Errorf("a fresh target: %w", err)
	}
	own := *r
	if err := own.open(t); err != nil {
		stopTarget()
		return nil, nil, fmt.Errorf("a fresh target: %w", err)
	}
	stop = func() { own.done(r.c); stopTarget() }
	// The same first request as the exploration's, so that a fault that counts requests
	// meets the steps at the same counts.
	if _, _, err := own.preflight(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return &own, stop, nil
}

// play runs a fixed sequence with a fresh model by its timeline (see Sequence.Timeline):
// each step is sent when the events before its send are done, so a step waits for the
// answers that came before it and overlaps the steps it overlapped. It stops at the first
// violation of a cause not known (r.known: the other findings of the run); err is set when the sequence could not be run to its end or to a finding.
// Shrinking, the replays of a finding and conformance replay all run sequences here.
func play(ctx context.Context, r *runner, creates *budget, seq Sequence) (*found, []Exchange, error) {
	if r.fresh != nil {
		own, stop, err := r.onFresh(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer stop()
		r = own
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := state{newModel(r.f, r.o.lag), creates}
	var once sync.Once
	var first *found
	var firstErr error
	n := len(seq.Workers)
	workers, next, traces := make([]*worker, n), make([]int, n), make([][]Exchange, n)
	answered := make([]chan struct{}, n) // closed when the worker's step in flight is answered
	for w := range workers {
		workers[w] = newWorker(w)
	}
	run := func(w, i int) {
		ex, v, err := r.exec(ctx, s, workers[w], i, seq.Workers[w][i])
		if err != nil {
			once.Do(func() { firstErr = err; cancel() })
			return
		}
		traces[w] = append(traces[w], ex)
		if v != nil && r.known[v.Cause] == nil {
			once.Do(func() { first = &found{v: v, worker: w, index: i}; cancel() })
		}
	}
	var wg sync.WaitGroup
	events := seq.schedule()
	for k := 0; k < len(events) && ctx.Err() == nil; k++ {
		e := events[k]
		i := next[e.Worker]
		switch {
		case e.Answer:
			<-answered[e.Worker]
		case k+1 < len(events) && events[k+1] == Event{Worker: e.Worker, Answer: true}:
			run(e.Worker, i) // nothing overlaps it
			next[e.Worker]++
			k++
		default:
			done := make(chan struct{})
			answered[e.Worker] = done
			next[e.Worker]++
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(done)
				run(e.Worker, i)
			}()
		}
	}
	wg.Wait()
	if first != nil {
		return first, merge(traces), nil
	}
	return nil, merge(traces), firstErr
}

type replayResult struct {
	runs, failed int
	trace        []Exchange // of the first failing run
	violation    *Violation
	err          error
}

// replay runs seq times times and counts the runs that meet a violation (of any rule: a
// replay against a changed service may fail differently). It is how conformance replay runs
// a replay file, and how a shrunk finding is confirmed and classified before its file is
// written.
func replay(ctx context.Context, r *runner, creates *budget, seq Sequence, times int) replayResult {
	var res replayResult
	for range times {
		fd, trace, err := play(ctx, r, creates, seq)
		if err != nil {
			res.err = err
			break
		}
		res.runs++
		if fd != nil {
			res.failed++
			if res.trace == nil {
				res.trace, res.violation = trace, fd.v
			}
		}
	}
	return res
}

// Classes of a finding, from its replays.
const (
	Deterministic = "deterministic"
	Intermittent  = "intermittent"
	NotReproduced = "not reproduced"
	NotReplayed   = "not replayed"
)

// classOf classifies failed of runs replays; intermittent says that the fault is known to be
// intermittent (a race, or a shorter form passed some replays) even if every replay failed.
func classOf(runs, failed int, intermittent bool) string {
	switch {
	case runs == 0:
		return NotReplayed
	case failed == runs && !intermittent:
		return Deterministic
	case failed > 0:
		return Intermittent
	}
	return NotReproduced
}

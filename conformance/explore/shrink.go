package explore

import (
	"context"
	"math"
	"slices"
	"time"
)

// Shrinking. Every candidate runs the way conformance replay runs a replay file (play: a
// fresh target when there is one, the exploration's first request, the workers by the
// candidate's timeline), so what fails here fails there.
//
// The shrinker first looks for a form of the failing sequence that fails again: its steps one
// at a time (in the order sent, in the order answered, creates first), else the workers by
// their timeline. Run once more, a form that fails again makes the fault deterministic, and a
// candidate is kept only when it fails on each of confirmRuns runs; else a candidate is kept
// when it fails in one of intermittentTries runs. The order: one worker alone, all in one,
// fewer workers, fewer steps (halves, quarters, ... as in delta debugging), simpler inputs,
// fewer steps again, each part within Config.ShrinkTime and the budget of creates; settle
// then confirms the result with the replays.

const (
	confirmRuns       = 2
	intermittentTries = 3
	// maxRepeated bounds the steps of a sequence that settle repeats to make an intermittent
	// fault show on most runs.
	maxRepeated = 256
)

type shrinker struct {
	ctx      context.Context
	r        *runner
	cfg      Config
	creates  *budget
	rule     string    // the violation the candidates must meet ("" any, then the first met)
	deadline time.Time // zero: none but ctx's
	runs     int
	trace    []Exchange // of the latest failing candidate
	history  []Sequence // the exploration's sequence, then the candidates kept, longest first
	spent    bool       // the budget of creates ran out
	// deterministic: the first form that failed again failed on its next run too.
	deterministic bool
	// race: the fault needs concurrency (the steps one at a time, run to their end, never met
	// it; the timeline did).
	race bool
}

// shrink keeps the candidates on the way from seq, the exploration's sequence (the first of
// s.history), to the smallest; serial are its forms one step at a time.
func (s *shrinker) shrink(seq Sequence, serial []Sequence) {
	cfg := s.cfg
	// The form to start from: the steps one at a time (no concurrency needed), else the
	// timeline as it ran, with the violation found, else with any (the timeline can meet the
	// fault as another violation: racing ids answered twice rather than an animal
	// overwritten). The first pass runs each form one step at a time once, to its failure or
	// its end, bounded by ctx alone: a fault that needs no concurrency then always gets a
	// sequence that fails every time, however slow the machine; later passes and the timeline
	// have Config.ShrinkTime.
	var start Sequence
	if len(seq.Workers) > 1 {
		for pass := 0; pass < intermittentTries && start.Len() == 0; pass++ {
			if pass == 1 {
				s.deadline = time.Now().Add(cfg.ShrinkTime)
			}
			for _, form := range serial {
				if s.failing(form, 1, 1) {
					start = form
					s.history = append(s.history, form)
					break
				}
			}
		}
	}
	if s.deadline.IsZero() {
		s.deadline = time.Now().Add(cfg.ShrinkTime)
	}
	if start.Len() == 0 {
		cut := s.done() // the forms one step at a time were cut short
		for _, rule := range []string{s.rule, ""} {
			if s.rule = rule; s.failing(seq, 1, intermittentTries) {
				start = seq
				break
			}
		}
		s.race = start.Len() > 0 && len(seq.Workers) > 1 && !cut
	}
	if start.Len() == 0 {
		return // nothing fails again: settle replays the exploration's sequence
	}
	s.deadline = time.Now().Add(cfg.ShrinkTime) // shrinking proper
	s.deterministic = s.run(start)
	seq = start
	seq = s.workers(seq)
	seq = s.steps(seq)
	simpler := s.inputs(seq)
	if simpler.Len() > 0 && !equalSeq(simpler, seq) {
		s.steps(simpler)
	}
}

// settle replays the kept candidates, shortest first, the way conformance replay runs a
// replay file, and returns the first whose replays fail on every run (a deterministic fault)
// or on at least three in four (an intermittent one or a race), so that the sequence
// reported and written to the replay file reproduces within a few replays. An intermittent
// fault can shrink to a sequence too short to fail again (one request in twenty answered 500
// shrinks to one step): then longer candidates are tried (within Config.ShrinkTime), and when
// none fails often enough, the one that failed most is repeated until it does. note, when
// set, says why the fault is intermittent although the sequence may have failed every replay.
func (s *shrinker) settle(replays int) (Sequence, replayResult, string) {
	if replays <= 0 {
		return s.history[len(s.history)-1], replayResult{}, ""
	}
	deadline := time.Now().Add(s.cfg.ShrinkTime)
	mostly := func(res replayResult) bool { return res.failed > 0 && res.failed*4 >= res.runs*3 }
	enough := mostly
	if s.deterministic && !s.race {
		enough = func(res replayResult) bool { return res.failed > 0 && res.failed == res.runs }
	}
	type tried struct {
		seq Sequence
		res replayResult
	}
	best := tried{res: replayResult{failed: -1}} // the most failures; of those, the shortest
	flaky := false                               // a candidate, each of which had failed, passed a replay
	try := func(cand Sequence) tried {
		t := tried{cand, replay(s.ctx, s.r, s.creates, cand, replays)}
		flaky = flaky || t.res.failed < t.res.runs
		if t.res.failed > best.res.failed {
			best = t
		}
		return t
	}
	noted := func(t tried) (Sequence, replayResult, string) {
		switch {
		case s.race:
			return t.seq, t.res, raceNote
		case flaky && t.res.failed == t.res.runs:
			return t.seq, t.res, flakyNote
		}
		return t.seq, t.res, ""
	}
	for i := len(s.history) - 1; i >= 0 && !time.Now().After(deadline); i-- {
		if i < len(s.history)-1 && equalSeq(s.history[i], s.history[i+1]) {
			continue
		}
		if t := try(s.history[i]); t.res.err != nil || enough(t.res) {
			return noted(t)
		}
	}
	// Repetition is bounded by maxRepeated, not by the time: it is what makes the file written
	// reproduce. It starts from the factor that the rate seen says is enough.
	base, n := best.seq, 2
	if rate := float64(best.res.failed) / float64(best.res.runs); rate > 0 {
		for 1-math.Pow(1-rate, float64(n)) < 0.9 {
			n *= 2
		}
	}
	for ; !mostly(best.res) && base.Len()*n <= max(maxRepeated, base.Len()); n *= 2 {
		if t := try(base.repeated(n)); t.res.err != nil {
			return noted(t)
		}
	}
	return noted(best)
}

// Why a finding is intermittent although its sequence may have failed every replay.
const (
	raceNote  = "a race: it failed only with its workers' steps overlapping"
	flakyNote = "a shorter or the same sequence passed some replays"
)

func (s *shrinker) done() bool {
	return s.spent || s.ctx.Err() != nil || !s.deadline.IsZero() && time.Now().After(s.deadline)
}

// fails says whether cand fails reliably enough to be kept (see the top of the file), and
// keeps it.
func (s *shrinker) fails(cand Sequence) bool {
	need, tries := 1, intermittentTries
	if s.deterministic {
		need, tries = confirmRuns, confirmRuns
	}
	if !s.failing(cand, need, tries) {
		return false
	}
	s.history = append(s.history, cand)
	return true
}

// failing runs cand up to tries times and says whether need runs met the rule's violation;
// a run that passes after one that failed ends it (false), and so does any run that passes
// when the fault is deterministic.
func (s *shrinker) failing(cand Sequence, need, tries int) bool {
	if cand.Len() == 0 {
		return false
	}
	failed := 0
	for range tries {
		if s.done() {
			return false
		}
		if s.run(cand) {
			if failed++; failed == need {
				return true
			}
		} else if failed > 0 || s.deterministic {
			return false
		}
	}
	return false
}

// run plays cand once and says whether it met the rule's violation.
func (s *shrinker) run(cand Sequence) bool {
	ctx := s.ctx
	if !s.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, s.deadline)
		defer cancel()
	}
	fd, trace, err := play(ctx, s.r, s.creates, cand)
	s.runs++
	if err == errBudget {
		s.spent = true
	}
	if fd != nil && (fd.v.Rule == s.rule || s.rule == "") {
		s.rule, s.trace = fd.v.Rule, trace
		return true
	}
	return false
}

// workers tries each worker alone, all workers merged into one, then each worker left out.
func (s *shrinker) workers(seq Sequence) Sequence {
	if len(seq.Workers) == 1 {
		return seq
	}
	for w := range seq.Workers {
		if cand := seq.alone(w); s.fails(cand) {
			return cand
		}
	}
	if cand := seq.merged(); s.fails(cand) {
		return cand
	}
	for w := 0; w < len(seq.Workers) && len(seq.Workers) > 1 && !s.done(); {
		if cand := seq.withoutWorker(w); s.fails(cand) {
			seq = cand
			continue
		}
		w++
	}
	return seq
}

// steps removes chunks of each worker's steps, halving the chunk size down to one step. A
// worker whose steps all go leaves the sequence; the next one takes its number.
func (s *shrinker) steps(seq Sequence) Sequence {
	for w := 0; w < len(seq.Workers); w++ {
	sizes:
		for size := max(len(seq.Workers[w])/2, 1); size >= 1 && !s.done(); size /= 2 {
			for i := 0; i < len(seq.Workers[w]) && !s.done(); {
				cand := seq.without(w, i, i+size)
				if cand.Len() < seq.Len() && s.fails(cand) {
					gone := len(cand.Workers) < len(seq.Workers)
					seq = cand
					if gone {
						w--
						break sizes
					}
					continue
				}
				i += size
			}
		}
	}
	return seq
}

// inputs tries each step with simpler inputs, as its operation gives them (listPets without
// its parameters, createPet with a one-letter name, category 1 and no status).
func (s *shrinker) inputs(seq Sequence) Sequence {
	for w := range seq.Workers {
		for i := 0; i < len(seq.Workers[w]) && !s.done(); {
			changed := false
			st := seq.Workers[w][i]
			for _, st := range s.r.ops.byID[st.Op].simpler(st) {
				if cand := seq.withStep(w, i, st); s.fails(cand) {
					seq, changed = cand, true
					break // the next simplification starts from this one
				}
			}
			if !changed {
				i++
			}
		}
	}
	return seq
}

func equalSeq(a, b Sequence) bool {
	if len(a.Workers) != len(b.Workers) || !slices.Equal(a.schedule(), b.schedule()) {
		return false
	}
	for w := range a.Workers {
		if len(a.Workers[w]) != len(b.Workers[w]) {
			return false
		}
		for i := range a.Workers[w] {
			if a.Workers[w][i].String() != b.Workers[w][i].String() {
				return false
			}
		}
	}
	return true
}

package explore

import (
	"context"
	"time"
)

// Shrinking. A candidate is kept when it still meets a violation of the same rule in one of
// shrinkTries runs (an intermittent fault needs more than one chance). The order: all steps
// in one worker in the order they were sent (or answered), else one worker alone, then fewer workers, then fewer steps (halves, quarters, ... single steps, as in
// delta debugging), then simpler inputs, then fewer steps again. Shrinking stops when
// Config.ShrinkTime is spent or the budget of creates runs out, and keeps the smallest
// failing sequence found so far.

const shrinkTries = 2

type shrinker struct {
	ctx      context.Context
	r        *runner
	cfg      Config
	creates  *budget
	rule     string
	deadline time.Time
	runs     int
	trace    []Exchange // of the latest failing candidate
	history  []Sequence // the failing candidates kept, longest first
	spent    bool       // the budget of creates ran out
}

// shrink returns the smallest failing sequence it found and the failing candidates on the
// way to it, longest first (seq itself first).
func shrink(ctx context.Context, r *runner, cfg Config, creates *budget, seq Sequence, linear []Sequence, v Violation, trace []Exchange) *shrinker {
	s := &shrinker{ctx: ctx, r: r, cfg: cfg, creates: creates, rule: v.Rule, deadline: time.Now().Add(cfg.ShrinkTime), trace: trace,
		history: []Sequence{seq}}
	for _, l := range linear {
		if len(seq.Workers) > 1 && s.fails(l) {
			seq = l // no concurrency needed
			break
		}
	}
	seq = s.workers(seq)
	seq = s.steps(seq)
	simpler := s.inputs(seq)
	if simpler.Len() > 0 && !equalSeq(simpler, seq) {
		s.steps(simpler)
	}
	return s
}

// settle replays the shrunk sequence to classify it. An intermittent fault can shrink to a
// sequence too short to fail again (one request in twenty answered 500 shrinks to one or two
// steps); then the candidates before it are tried, shortest first, until one fails in at
// least a third of its replays, so that the sequence reported and written to the replay
// file reproduces.
func (s *shrinker) settle(replays int) (Sequence, replayResult) {
	var res replayResult
	deadline := time.Now().Add(s.cfg.ShrinkTime)
	for i := len(s.history) - 1; i >= 0; i-- {
		res = replay(s.ctx, s.r, s.cfg, s.creates, s.history[i], s.rule, replays)
		if res.failed*3 >= res.runs && res.failed > 0 || res.err != nil || time.Now().After(deadline) || i == 0 {
			return s.history[i], res
		}
	}
	return s.history[0], res
}

func (s *shrinker) done() bool {
	return s.spent || s.ctx.Err() != nil || time.Now().After(s.deadline)
}

// fails runs cand up to shrinkTries times and says whether it met the rule's violation.
func (s *shrinker) fails(cand Sequence) bool {
	if cand.Len() == 0 {
		return false
	}
	for range shrinkTries {
		if s.done() {
			return false
		}
		ctx, cancel := context.WithDeadline(s.ctx, s.deadline)
		fd, trace, err := play(ctx, s.r, s.cfg.Lag, s.creates, cand)
		cancel()
		s.runs++
		if err == errBudget {
			s.spent = true
		}
		if fd != nil && fd.v.Rule == s.rule {
			s.trace = trace
			s.history = append(s.history, cand)
			return true
		}
	}
	return false
}

// workers tries each worker alone, then each worker left out.
func (s *shrinker) workers(seq Sequence) Sequence {
	if len(seq.Workers) == 1 {
		return seq
	}
	for w := range seq.Workers {
		if cand := (Sequence{Workers: [][]Step{seq.Workers[w]}}); s.fails(cand) {
			return cand
		}
	}
	for w := 0; w < len(seq.Workers) && len(seq.Workers) > 1; {
		cand := Sequence{Workers: append(append([][]Step{}, seq.Workers[:w]...), seq.Workers[w+1:]...)}
		if s.fails(cand) {
			seq = cand
			continue
		}
		w++
	}
	return seq
}

// steps removes chunks of each worker's steps, halving the chunk size down to one step.
func (s *shrinker) steps(seq Sequence) Sequence {
	for w := range seq.Workers {
		for size := max(len(seq.Workers[w])/2, 1); size >= 1 && !s.done(); size /= 2 {
			for i := 0; i < len(seq.Workers[w]) && !s.done(); {
				cand := seq.without(w, i, i+size)
				if cand.Len() < seq.Len() && s.fails(cand) {
					seq = cand
					continue
				}
				i += size
			}
		}
	}
	return seq
}

// inputs tries each step with simpler inputs: listPets without its parameters, createPet
// with a one-letter name, category 1 and no status.
func (s *shrinker) inputs(seq Sequence) Sequence {
	for w := range seq.Workers {
		for i := 0; i < len(seq.Workers[w]) && !s.done(); {
			changed := false
			for _, st := range simpler(seq.Workers[w][i]) {
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

// simpler lists simpler forms of st, each one change away.
func simpler(st Step) []Step {
	var out []Step
	switch st.Op {
	case opList:
		if st.Limit != nil {
			c := st
			c.Limit = nil
			out = append(out, c)
		}
		if st.Status != nil {
			c := st
			c.Status = nil
			out = append(out, c)
		}
	case opCreate:
		p, ok := parseSent(st.Body)
		if !ok {
			return nil
		}
		status := ""
		if p.hasStatus {
			status = p.status
		}
		for _, body := range []string{newPetBody("a", p.category, status), newPetBody(p.name, "1", status), newPetBody(p.name, p.category, "")} {
			if body != st.Body {
				c := st
				c.Body = body
				out = append(out, c)
			}
		}
	}
	return out
}

func equalSeq(a, b Sequence) bool {
	if len(a.Workers) != len(b.Workers) {
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

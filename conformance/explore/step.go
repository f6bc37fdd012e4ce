package explore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

// Step is one request of a worker's sequence, as data: a replay file is a list of them per
// worker. Ids a step refers to are resolved when it runs, from what the same worker's earlier
// steps received, so a sequence means the same against any server.
type Step struct {
	// Op is the operationId: listPets, createPet, getPet, or a DELETE of one animal a spec
	// adds (see operationsOf).
	Op string `json:"op"`
	// Auth is how the key is sent: "" the key, "none" no Authorization header, "wrong" a
	// bearer token that is not the key.
	Auth string `json:"auth,omitempty"`
	// Limit and Status are listPets' query parameters as sent (nil: absent).
	Limit  *string `json:"limit,omitempty"`
	Status *string `json:"status,omitempty"`
	// Body is createPet's request body, byte for byte.
	Body string `json:"body,omitempty"`
	// The id of an operation on one animal (getPet's petId) is one of: Ref, the id answered
	// to this worker's createPet step number Ref; Listed, the animal at that position (modulo
	// the length) of this worker's latest non-empty listing; ID, this text as sent. An
	// operation that may change the animal (a DELETE) takes only Ref: the run's own animals.
	Ref    *int   `json:"ref,omitempty"`
	Listed *int   `json:"listed,omitempty"`
	ID     string `json:"id,omitempty"`
}

// Auth values of a Step.
const (
	authNone  = "none"
	authWrong = "wrong"
)

// Sequence is what every worker sent, in order: Workers[w] is worker w's steps.
//
// Timeline is the schedule of a sequence of several workers, so that a replay interleaves
// the workers the way the run that failed did: it lists, in the order they happened, each
// step's send ("send w2": worker 2 sends its next step) and the arrival of its answer
// ("answer w2"). A replay sends a step when the events before it are done: every answer
// that had arrived before it was sent is in first (a barrier), and steps that overlapped
// overlap again. One worker needs no timeline; several workers without one run in
// lockstep (step k of every worker sent together, then step k+1 once all are answered).
type Sequence struct {
	Workers  [][]Step `json:"workers"`
	Timeline Timeline `json:"timeline,omitempty"`
}

// Timeline is the sends and answers of a sequence's steps, in order.
type Timeline []Event

// Event is a worker sending its next step, or its answer arriving.
type Event struct {
	Worker int
	Answer bool
}

func (e Event) String() string {
	if e.Answer {
		return fmt.Sprintf("answer w%d", e.Worker)
	}
	return fmt.Sprintf("send w%d", e.Worker)
}

// MarshalText writes an event as a timeline of a replay file lists it: "send w0", "answer w0".
func (e Event) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (e *Event) UnmarshalText(b []byte) error {
	kind, w, _ := strings.Cut(string(b), " w")
	n, err := strconv.Atoi(w)
	if err != nil || n < 0 || kind != "send" && kind != "answer" || strconv.Itoa(n) != w {
		return fmt.Errorf("timeline event %q is neither \"send wN\" nor \"answer wN\"", b)
	}
	*e = Event{Worker: n, Answer: kind == "answer"}
	return nil
}

// Len is the number of steps of all workers.
func (s Sequence) Len() int {
	n := 0
	for _, w := range s.Workers {
		n += len(w)
	}
	return n
}

// Size is "N steps" or "W workers, N steps".
func (s Sequence) Size() string {
	if len(s.Workers) == 1 {
		return words.Plural(s.Len(), "step")
	}
	return words.Plural(len(s.Workers), "worker") + ", " + words.Plural(s.Len(), "step")
}

// String is the step in one line, the way the text report lists a sequence: its operation,
// then what its fields send.
func (s Step) String() string {
	var b strings.Builder
	b.WriteString(s.Op)
	var q []string
	if s.Limit != nil {
		q = append(q, "limit="+*s.Limit)
	}
	if s.Status != nil {
		q = append(q, "status="+*s.Status)
	}
	if len(q) > 0 {
		b.WriteString(" ?" + strings.Join(q, "&"))
	}
	switch {
	case s.Op == opCreate:
		b.WriteString(" " + s.Body)
	case s.Ref != nil:
		fmt.Fprintf(&b, " (id of step #%d)", *s.Ref)
	case s.Listed != nil:
		fmt.Fprintf(&b, " (listed animal %d)", *s.Listed)
	case s.ID != "":
		b.WriteString(" " + s.ID)
	}
	if s.Auth != "" {
		b.WriteString(" [key: " + s.Auth + "]")
	}
	return b.String()
}

// without returns the sequence without worker w's steps from..to-1. Later steps that refer to
// a removed createPet step are removed too; references past the cut are renumbered, and the
// removed steps leave the timeline.
func (s Sequence) without(w, from, to int) Sequence {
	out := Sequence{Workers: slices.Clone(s.Workers)}
	steps := s.Workers[w]
	kept := make([]Step, 0, len(steps))
	newIndex := make([]int, len(steps)) // -1: removed
	for i, st := range steps {
		if i >= from && i < to || st.Ref != nil && newIndex[*st.Ref] < 0 {
			newIndex[i] = -1
			continue
		}
		if st.Ref != nil {
			r := newIndex[*st.Ref]
			st.Ref = &r
		}
		newIndex[i] = len(kept)
		kept = append(kept, st)
	}
	out.Workers[w] = kept
	if len(s.Workers) > 1 {
		var sent, answered int // worker w's events met so far: step i's send and answer are its i-th
		for _, e := range s.schedule() {
			if e.Worker == w {
				i := &sent
				if e.Answer {
					i = &answered
				}
				*i++
				if newIndex[*i-1] < 0 {
					continue
				}
			}
			out.Timeline = append(out.Timeline, e)
		}
	}
	return out.normal()
}

// withoutWorker returns the sequence without worker w (the later workers renumbered).
func (s Sequence) withoutWorker(w int) Sequence { return s.without(w, 0, len(s.Workers[w])) }

// merged is the sequence as one worker: the steps of all workers in the order of their
// sends, references renumbered. A getPet by position then reads the latest listing of any
// worker, so it is a candidate like any other, kept only if it still fails.
func (s Sequence) merged() Sequence {
	next := make([]int, len(s.Workers))
	index := make([][]int, len(s.Workers)) // worker w's step i -> its place in the one worker
	var out []Step
	for _, e := range s.schedule() {
		if e.Answer {
			continue
		}
		st := s.Workers[e.Worker][next[e.Worker]]
		if st.Ref != nil {
			st.Ref = ptr(index[e.Worker][*st.Ref])
		}
		index[e.Worker] = append(index[e.Worker], len(out))
		next[e.Worker]++
		out = append(out, st)
	}
	return Sequence{Workers: [][]Step{out}}
}

// alone is worker w's steps as a sequence of one worker.
func (s Sequence) alone(w int) Sequence { return Sequence{Workers: [][]Step{s.Workers[w]}} }

// normal drops the workers without steps (renumbering the rest in the timeline); one worker
// keeps no timeline.
func (s Sequence) normal() Sequence {
	renum := make([]int, len(s.Workers))
	var workers [][]Step
	for w, steps := range s.Workers {
		renum[w] = len(workers)
		if len(steps) > 0 {
			workers = append(workers, steps)
		}
	}
	out := Sequence{Workers: workers}
	if len(workers) > 1 {
		for _, e := range s.Timeline {
			if len(s.Workers[e.Worker]) > 0 {
				out.Timeline = append(out.Timeline, Event{Worker: renum[e.Worker], Answer: e.Answer})
			}
		}
	}
	return out
}

// schedule is the timeline the sequence runs by: its own, else each step of one worker sent
// when the one before it is answered, and several workers in lockstep.
func (s Sequence) schedule() Timeline {
	if len(s.Workers) > 1 && len(s.Timeline) > 0 {
		return s.Timeline
	}
	var t Timeline
	for k := 0; ; k++ {
		var sends, answers Timeline
		for w, steps := range s.Workers {
			if k < len(steps) {
				sends = append(sends, Event{Worker: w})
				answers = append(answers, Event{Worker: w, Answer: true})
			}
		}
		if len(sends) == 0 {
			return t
		}
		t = append(append(t, sends...), answers...)
	}
}

// repeated is the sequence run n times over by the same workers: each worker's steps n
// times (references renumbered to the copy's own createPet steps), and the timeline n
// times. An intermittent fault that a short sequence meets on few runs meets it on more.
func (s Sequence) repeated(n int) Sequence {
	out := Sequence{Workers: make([][]Step, len(s.Workers))}
	for w, steps := range s.Workers {
		for k := range n {
			for _, st := range steps {
				if st.Ref != nil {
					st.Ref = ptr(*st.Ref + k*len(steps))
				}
				out.Workers[w] = append(out.Workers[w], st)
			}
		}
	}
	if len(s.Workers) > 1 {
		for range n {
			out.Timeline = append(out.Timeline, s.schedule()...)
		}
	}
	return out
}

// checkTimeline says whether t sends every step of workers once and has every answer
// arrive after its send and before the worker's next send.
func checkTimeline(t Timeline, workers [][]Step) error {
	sent := make([]int, len(workers))
	waiting := make([]bool, len(workers)) // sent, not answered yet
	for i, e := range t {
		switch {
		case e.Worker >= len(workers):
			return fmt.Errorf("event %d (%s): no worker %d", i, e, e.Worker)
		case e.Answer && !waiting[e.Worker]:
			return fmt.Errorf("event %d (%s): no step of worker %d was sent", i, e, e.Worker)
		case !e.Answer && waiting[e.Worker]:
			return fmt.Errorf("event %d (%s): worker %d's step before is not answered", i, e, e.Worker)
		case !e.Answer:
			sent[e.Worker]++
		}
		waiting[e.Worker] = !e.Answer
	}
	for w, n := range sent {
		switch {
		case n != len(workers[w]):
			return fmt.Errorf("it sends %d steps of worker %d, which has %d", n, w, len(workers[w]))
		case waiting[w]:
			return fmt.Errorf("worker %d's last step is never answered", w)
		}
	}
	return nil
}

// withStep returns the sequence with worker w's step i replaced.
func (s Sequence) withStep(w, i int, st Step) Sequence {
	out := Sequence{Workers: slices.Clone(s.Workers), Timeline: s.Timeline}
	out.Workers[w] = slices.Clone(s.Workers[w])
	out.Workers[w][i] = st
	return out
}

func ptr[T any](v T) *T { return &v }

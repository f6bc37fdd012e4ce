package explore

import "sort"

// timeline is the schedule of the steps as they ran: their sends and answers in the order of
// the counts sent and answered (one count for the sends and answers of all workers).
func timeline(seq Sequence, sent, answered [][]int64) Timeline {
	type at struct {
		n int64
		e Event
	}
	var all []at
	for w, steps := range seq.Workers {
		for i := range steps {
			all = append(all, at{sent[w][i], Event{Worker: w}}, at{answered[w][i], Event{Worker: w, Answer: true}})
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].n < all[b].n })
	t := make(Timeline, len(all))
	for i, a := range all {
		t[i] = a.e
	}
	return t
}

// serial is seq with its steps one at a time, in the order of at (a count per step): each
// worker keeps its steps, and with them the ids it was answered and its latest listing (which
// a getPet by position reads), but no step overlaps another.
func serial(seq Sequence, at [][]int64) Sequence {
	type pos struct{ w, i int }
	var all []pos
	for w, steps := range seq.Workers {
		for i := range steps {
			all = append(all, pos{w, i})
		}
	}
	sort.Slice(all, func(a, b int) bool { return at[all[a].w][all[a].i] < at[all[b].w][all[b].i] })
	out := Sequence{Workers: seq.Workers}
	for _, p := range all {
		out.Timeline = append(out.Timeline, Event{Worker: p.w}, Event{Worker: p.w, Answer: true})
	}
	return out.normal()
}

// createsFirst runs the createPet steps of a sequence whose steps run one at a time before
// the others, each group in its order (each worker's steps reordered, its references
// renumbered): every animal is then stored before any read that might have seen it.
func createsFirst(seq Sequence) Sequence {
	out := Sequence{Workers: make([][]Step, len(seq.Workers))}
	for w, steps := range seq.Workers {
		index := make([]int, len(steps))
		for pass := range 2 {
			for i, st := range steps {
				if (st.Op == opCreate) == (pass == 0) {
					index[i] = len(out.Workers[w])
					out.Workers[w] = append(out.Workers[w], st)
				}
			}
		}
		for i, st := range out.Workers[w] {
			if st.Ref != nil {
				out.Workers[w][i].Ref = ptr(index[*st.Ref])
			}
		}
	}
	var sends []Event // of the creates, then of the rest
	for pass := range 2 {
		next := make([]int, len(seq.Workers))
		for _, e := range seq.schedule() {
			if !e.Answer {
				if (seq.Workers[e.Worker][next[e.Worker]].Op == opCreate) == (pass == 0) {
					sends = append(sends, e)
				}
				next[e.Worker]++
			}
		}
	}
	for _, e := range sends {
		out.Timeline = append(out.Timeline, e, Event{Worker: e.Worker, Answer: true})
	}
	return out.normal()
}

package explore

import (
	"fmt"
	"strings"
)

// Step is one request of a worker's sequence, as data: a replay file is a list of them per
// worker. Ids a step refers to are resolved when it runs, from what the same worker's earlier
// steps received, so a sequence means the same against any server.
type Step struct {
	// Op is the operationId: listPets, createPet or getPet.
	Op string `json:"op"`
	// Auth is how the key is sent: "" the key, "none" no Authorization header, "wrong" a
	// bearer token that is not the key.
	Auth string `json:"auth,omitempty"`
	// Limit and Status are listPets' query parameters as sent (nil: absent).
	Limit  *string `json:"limit,omitempty"`
	Status *string `json:"status,omitempty"`
	// Body is createPet's request body, byte for byte.
	Body string `json:"body,omitempty"`
	// getPet's petId is one of: Ref, the id answered to this worker's createPet step number
	// Ref; Listed, the animal at that position (modulo the length) of this worker's latest
	// non-empty listing; ID, this text as sent.
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
type Sequence struct {
	Workers [][]Step `json:"workers"`
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
		return plural(s.Len(), "step")
	}
	return plural(len(s.Workers), "worker") + ", " + plural(s.Len(), "step")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// String is the step in one line, the way the text report lists a sequence.
func (s Step) String() string {
	var b strings.Builder
	b.WriteString(s.Op)
	switch s.Op {
	case opList:
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
	case opCreate:
		b.WriteString(" " + s.Body)
	case opGet:
		switch {
		case s.Ref != nil:
			fmt.Fprintf(&b, " (id of step #%d)", *s.Ref)
		case s.Listed != nil:
			fmt.Fprintf(&b, " (listed animal %d)", *s.Listed)
		default:
			b.WriteString(" " + s.ID)
		}
	}
	if s.Auth != "" {
		b.WriteString(" [key: " + s.Auth + "]")
	}
	return b.String()
}

// without returns the sequence without worker w's steps from..to-1. Later steps that refer to
// a removed createPet step are removed too; references past the cut are renumbered.
func (s Sequence) without(w, from, to int) Sequence {
	out := Sequence{Workers: make([][]Step, len(s.Workers))}
	copy(out.Workers, s.Workers)
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
	return out
}

// withStep returns the sequence with worker w's step i replaced.
func (s Sequence) withStep(w, i int, st Step) Sequence {
	out := Sequence{Workers: make([][]Step, len(s.Workers))}
	copy(out.Workers, s.Workers)
	out.Workers[w] = append([]Step(nil), s.Workers[w]...)
	out.Workers[w][i] = st
	return out
}

func ptr[T any](v T) *T { return &v }

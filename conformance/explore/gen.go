package explore

import (
	"math/rand/v2"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/spec"
)

// Generation. Each worker draws its steps from its own PCG stream (the run's seed, the phase
// and the worker's number), so a seed and a worker count give the same steps in the same
// order whatever the target answers; only the budget of creates (shared by the workers) can
// turn a createPet into a listPets, and on a store that started empty what the model knows
// can change the status a listing filters by (absent).

// generator draws one worker's steps.
type generator struct {
	f   *spec.Facts
	ops operations
	// mayCreate says whether the budget allows the step drawn to be a createPet.
	mayCreate bool
	rng       *rand.Rand
	worker    int
	n         int   // steps drawn
	creates   []int // indexes of the plain createPet steps drawn, for references (getPet's, a delete's)
	// absent, when set, lists the statuses the model knows no animal has; a listing filtered
	// by a status then asks for each of them once (asked), an answer that must be empty.
	absent func() []string
	asked  map[string]bool
}

func newGenerator(f *spec.Facts, ops operations, seed uint64, worker int) *generator {
	return &generator{f: f, ops: ops, rng: rand.New(rand.NewPCG(seed, uint64(worker)+1)), worker: worker}
}

// phaseSeed is the seed of a phase's steps: the run's for the first, another for each later
// one, so that a phase after a finding does not send the steps that met it again.
func phaseSeed(seed uint64, phase int) uint64 { return seed ^ uint64(phase)*0x9e3779b97f4a7c15 }

// next draws the next step; mayCreate says whether the budget allows a createPet. The
// operations share the draws in their order (operations.order); one that has no step to
// draw passes it to the next.
func (g *generator) next(mayCreate bool) Step {
	g.mayCreate = mayCreate
	r, from := g.rng.IntN(100), 0
	for bound := 0; from < len(g.ops.order)-1; from++ {
		if bound += g.ops.shares[from]; r < bound {
			break
		}
	}
	var st Step
	for i, ok := from, false; !ok; i++ {
		st, ok = g.ops.order[i%len(g.ops.order)].draw(g)
	}
	if g.rng.IntN(100) < 4 {
		st.Auth = []string{authNone, authWrong}[g.rng.IntN(2)]
	}
	if st.Op == opCreate && st.Auth == "" && (createOp{g.f}).verdict(st) == cases.Accept {
		g.creates = append(g.creates, g.n)
	}
	g.n++
	return st
}

func (g *generator) status() string { return g.f.Statuses[g.rng.IntN(len(g.f.Statuses))] }

// emptyStatus is a status no animal has that the worker has not filtered by yet, if the model
// knows one.
func (g *generator) emptyStatus() (string, bool) {
	if g.absent == nil {
		return "", false
	}
	for _, s := range g.absent() {
		if !g.asked[s] {
			if g.asked == nil {
				g.asked = map[string]bool{}
			}
			g.asked[s] = true
			return s, true
		}
	}
	return "", false
}

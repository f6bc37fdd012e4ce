package explore

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/petstore/petstore/spec"
)

// Generation. Each worker draws its steps from its own PCG stream (the run's seed, the phase
// and the worker's number), so a seed and a worker count give the same steps in the same
// order whatever the target answers; only the budget of creates (shared by the workers) can
// turn a createPet into a listPets, and on a store that started empty what the model knows
// can change the status a listing filters by (absent).

// generator draws one worker's steps.
type generator struct {
	f       *Facts
	rng     *rand.Rand
	worker  int
	n       int   // steps drawn
	creates []int // indexes of the plain createPet steps drawn, for getPet references
	// absent, when set, lists the statuses the model knows no animal has; a listing filtered
	// by a status then asks for each of them once (asked), an answer that must be empty.
	absent func() []string
	asked  map[string]bool
}

func newGenerator(f *Facts, seed uint64, worker int) *generator {
	return &generator{f: f, rng: rand.New(rand.NewPCG(seed, uint64(worker)+1)), worker: worker}
}

// phaseSeed is the seed of a phase's steps: the run's for the first, another for each later
// one, so that a phase after a finding does not send the steps that met it again.
func phaseSeed(seed uint64, phase int) uint64 { return seed ^ uint64(phase)*0x9e3779b97f4a7c15 }

// next draws the next step; mayCreate says whether the budget allows a createPet.
func (g *generator) next(mayCreate bool) Step {
	var st Step
	r := g.rng.IntN(100)
	switch {
	case r < 30 && mayCreate:
		st = g.create()
	case r < 30, r < 65:
		st = g.list()
	default:
		st = g.get()
	}
	if g.rng.IntN(100) < 4 {
		st.Auth = []string{authNone, authWrong}[g.rng.IntN(2)]
	}
	if st.Op == opCreate && st.Auth == "" && g.f.classify(st.Body) == accept {
		g.creates = append(g.creates, g.n)
	}
	g.n++
	return st
}

func (g *generator) list() Step {
	st := Step{Op: opList}
	lim := g.f.Limit
	switch r := g.rng.IntN(100); {
	case r < 30:
	case r < 60:
		st.Limit = ptr(strconv.FormatInt(lim.Min+g.rng.Int64N(min(10, lim.Max-lim.Min+1)), 10))
	case r < 88:
		st.Limit = ptr(strconv.FormatInt(lim.Min+g.rng.Int64N(lim.Max-lim.Min+1), 10))
	default:
		bad := []string{strconv.FormatInt(lim.Min-1, 10), strconv.FormatInt(lim.Max+1, 10), "-1", "abc", "1.5", ""}
		st.Limit = ptr(bad[g.rng.IntN(len(bad))])
	}
	switch r := g.rng.IntN(100); {
	case r < 45:
	case r < 95:
		st.Status = ptr(g.status())
		if s, ok := g.emptyStatus(); ok {
			st.Status = &s
		}
	default:
		bad := []string{"unknown", strings.ToUpper(g.status()), ""}
		st.Status = ptr(bad[g.rng.IntN(len(bad))])
	}
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

func (g *generator) get() Step {
	st := Step{Op: opGet}
	switch r := g.rng.IntN(100); {
	case r < 55 && len(g.creates) > 0:
		// Recent animals more often than old ones, but old ones too: they must stay.
		i := len(g.creates) - 1 - int(g.rng.ExpFloat64()*float64(len(g.creates))/3)%len(g.creates)
		st.Ref = ptr(g.creates[i])
	case r < 75:
		st.Listed = ptr(g.rng.IntN(int(g.f.Limit.Max)))
	case r < 92:
		// An id no one is likely to have handed out.
		st.ID = strconv.FormatInt(1<<40+g.rng.Int64N(1<<50), 10)
	default:
		bad := []string{"abc", "0", "-1", "1.5", "99999999999999999999", "%20"}
		st.ID = bad[g.rng.IntN(len(bad))]
	}
	return st
}

func (g *generator) create() Step {
	name := fmt.Sprintf("explore-w%d-%d-%04x", g.worker, g.n, g.rng.IntN(1<<16))
	category := strconv.Itoa(1 + g.rng.IntN(10))
	status := ""
	if g.rng.IntN(100) < 70 || spec.IsRequired(g.f.NewPet, fieldStatus) { // left out only where the spec lets it be
		status = g.status()
	}
	switch r := g.rng.IntN(100); {
	case r < 75:
	case r < 85: // valid, but where the document is silent on what a service may refuse
		exotic := []string{"Café 🐈 " + name, strings.Repeat("n", 150), `quote " and \ backslash`, " " + name}
		cats := []string{"0", "-7", "9007199254740993", "9223372036854775807", "1000000"}
		if g.rng.IntN(2) == 0 {
			name = exotic[g.rng.IntN(len(exotic))]
		} else {
			category = cats[g.rng.IntN(len(cats))]
		}
	default: // invalid: the document requires a 400
		bad := []string{
			`{"categoryId":1}`, `{"name":"x"}`, `{"name":5,"categoryId":1}`, `{"name":null,"categoryId":1}`,
			`{"name":"x","categoryId":"1"}`, `{"name":"x","categoryId":1.5}`,
			`{"name":"x","categoryId":1,"status":"unknown"}`, `{"name":"x","categoryId":1,"status":""}`,
			`[]`, `null`, `"x"`, `{`, ``,
		}
		return Step{Op: opCreate, Body: bad[g.rng.IntN(len(bad))]}
	}
	return Step{Op: opCreate, Body: newPetBody(name, category, status)}
}

// newPetBody is a NewPet with the fields in the document's order; category is JSON number
// text, status "" leaves the field out.
func newPetBody(name, category, status string) string {
	b, _ := json.Marshal(name)
	s := `{"` + fieldName + `":` + string(b) + `,"` + fieldCategory + `":` + category
	if status != "" {
		b, _ = json.Marshal(status)
		s += `,"` + fieldStatus + `":` + string(b)
	}
	return s + "}"
}

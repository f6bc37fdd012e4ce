package explore

import (
	"net/http"
	"strconv"
	"time"

	"github.com/petstore/petstore/spec"
)

// getOp is getPet: an animal the worker created, one of its latest listing, an id no one is
// likely to have, or no int64 id. Its answer is that animal as the model knows it, or a 404
// for one it does not know or knows removed.
type getOp struct{ f *spec.Facts }

func (o getOp) draw(g *generator) (Step, bool) {
	st := Step{Op: opGet}
	r := g.rng.IntN(100)
	if r < 55 {
		if st.Ref = g.pickOwn(); st.Ref != nil {
			return st, true
		}
	}
	switch {
	case r < 75:
		st.Listed = ptr(g.rng.IntN(int(o.f.Limit.Max)))
	case r < 92:
		// An id no one is likely to have handed out.
		st.ID = strconv.FormatInt(1<<40+g.rng.Int64N(1<<50), 10)
	default:
		bad := []string{"abc", "0", "-1", "1.5", "99999999999999999999", "%20"}
		st.ID = bad[g.rng.IntN(len(bad))]
	}
	return st, true
}

// judge judges the animal asked for, or a 404 within the allowed lag.
func (o getOp) judge(a *judging) (time.Duration, *Violation) {
	if !isID(a.id) {
		if a.status/100 == 2 {
			return 0, violation(ruleGetNotID, "getPet %q, which is no int64 id, answered %d", a.id, a.status)
		}
		return 0, nil
	}
	switch a.status {
	case http.StatusOK:
		obj, _ := decodeObject(a.body)
		got, _ := fromObject(obj)
		if got.id != a.id {
			return 0, violation(ruleGetUnknown, "getPet %s answered the animal with id %s", a.id, got.id)
		}
		return a.m.seen(got, a)
	case http.StatusNotFound:
		return a.lost(rulePersist, "getPet", 0)
	default:
		return 0, violation(ruleGetUnknown, "getPet %s answered %d, neither 200 nor 404", a.id, a.status)
	}
}

func (getOp) simpler(Step) []Step { return nil }

// isID says whether id is an int64 written the one way an int64 is written.
func isID(id string) bool {
	_, err := strconv.ParseInt(id, 10, 64)
	return err == nil && canonicalInt(id) == id
}

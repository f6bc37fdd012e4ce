package explore

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// listOp is listPets, with a limit and a status filter, sometimes invalid. Its answer holds at
// most the limit, only the status asked for, no id twice, each animal as the model knows it.
type listOp struct{ f *spec.Facts }

const listShare = 35 // of the draws, in percent

func (o listOp) draw(g *generator) (Step, bool) {
	st := Step{Op: opList}
	lim := o.f.Limit
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
	return st, true
}

// judge judges what the query asked for, and the animals listed.
func (o listOp) judge(a *judging) (time.Duration, *Violation) {
	_, query, _ := strings.Cut(a.rel, "?")
	asked := judge.ListingAsked(o.f, query)
	if a.status != http.StatusOK {
		if asked.Valid {
			return 0, violation(ruleListArray, "listPets with valid parameters answered %d, not 200", a.status)
		}
		return 0, nil
	}
	pets, fs := read(asked, a.body)
	if len(fs) > 0 {
		rule := ruleListQuery
		if fs[0].Message == judge.OtherStatus && len(asked.Statuses) == 1 {
			rule = ruleListStatus(asked.Statuses[0])
		}
		return 0, violation(rule, "listPets?%s answered %s, not %s", query, fs[0].Actual, fs[0].Expected)
	}
	if wait, v := a.m.listed(pets, a); wait > 0 || v != nil {
		return wait, v
	}
	if len(pets) > 0 {
		a.w.lastList = a.w.lastList[:0]
		for _, p := range pets {
			a.w.lastList = append(a.w.lastList, p.id)
		}
	}
	return 0, nil
}

// read reads the animals of a listing and judges them against what was asked.
func read(asked judge.Listing, body []byte) ([]pet, []report.Failure) {
	var objs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	_ = dec.Decode(&objs) // the spec validation checked the shape
	pets := make([]pet, 0, len(objs))
	for _, o := range objs {
		p, _ := fromObject(o)
		pets = append(pets, p)
	}
	return pets, asked.Judge(objs)
}

// simpler leaves out the limit, or the status.
func (listOp) simpler(st Step) []Step {
	var out []Step
	noLimit, noStatus := st, st
	if noLimit.Limit, noStatus.Status = nil, nil; st.Limit != nil {
		out = append(out, noLimit)
	}
	if st.Status != nil {
		out = append(out, noStatus)
	}
	return out
}

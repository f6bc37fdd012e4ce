package explore

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/spec"
)

// createOp is createPet: plain NewPets, some the document is silent on, some invalid. Its answer follows
// the body's verdict (cases.BodyVerdict, the generator's): 201 for Accept, 400 for Reject; a
// created animal holds what was sent, with a new id.
type createOp struct{ f *spec.Facts }

const createShare = 30 // of the draws, in percent

func (o createOp) draw(g *generator) (Step, bool) {
	if !g.mayCreate {
		return Step{}, false
	}
	name := fmt.Sprintf("explore-w%d-%d-%04x", g.worker, g.n, g.rng.IntN(1<<16))
	category := strconv.Itoa(1 + g.rng.IntN(10))
	status := ""
	if g.rng.IntN(100) < 70 || spec.IsRequired(o.f.NewPet, fieldStatus) { // left out only where the spec lets it be
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
		bad := []string{`{"categoryId":1}`, `{"name":"x"}`, `{"name":5,"categoryId":1}`, `{"name":null,"categoryId":1}`,
			`{"name":"x","categoryId":"1"}`, `{"name":"x","categoryId":1.5}`, `{"name":"x","categoryId":1,"status":"unknown"}`,
			`{"name":"x","categoryId":1,"status":""}`, `[]`, `null`, `"x"`, `{`, ``}
		return Step{Op: opCreate, Body: bad[g.rng.IntN(len(bad))]}, true
	}
	return Step{Op: opCreate, Body: newPetBody(name, category, status)}, true
}

// verdict is what the document says of the step's body.
func (o createOp) verdict(st Step) cases.Verdict {
	return cases.BodyVerdict(o.f.NewPet, []byte(st.Body))
}

// judge judges the verdict of the body, and the created animal.
func (o createOp) judge(a *judging) (time.Duration, *Violation) {
	switch verdict := o.verdict(a.st); {
	case verdict == cases.Accept && a.status != http.StatusCreated:
		return 0, violation(ruleCreateValid, "createPet with a valid body answered %d, not 201: %s", a.status, keep(a.r.sess.Redact(string(a.body))))
	case verdict == cases.Reject && a.status != http.StatusBadRequest:
		return 0, violation(ruleCreateReject, "createPet with an invalid body answered %d, not 400", a.status)
	case a.status != http.StatusCreated:
		return 0, nil
	}
	obj, _ := decodeObject(a.body)
	if fs := judge.Stored(sentFields(o.f, a.st.Body), obj, "the created Pet"); len(fs) > 0 {
		v := violation(ruleCreateValid, "createPet answered 201: %s: want %s, got %s", fs[0].Message, fs[0].Expected, fs[0].Actual)
		v.detail = detailOf(fs[0])
		return 0, v
	}
	got, _ := fromObject(obj)
	if v := a.m.created(got, a.at, a.where()); v != nil {
		return 0, v
	}
	a.w.ids[a.i] = got.id
	return 0, nil
}

// simpler tries a one-letter name, category 1, and no status.
func (createOp) simpler(st Step) []Step {
	obj, _ := decodeObject([]byte(st.Body))
	p, ok := fromObject(obj)
	if !ok {
		return nil
	}
	var out []Step // p.status is "" when the body has none
	for _, body := range []string{newPetBody("a", p.category, p.status), newPetBody(p.name, "1", p.status), newPetBody(p.name, p.category, "")} {
		if body != st.Body {
			c := st
			c.Body = body
			out = append(out, c)
		}
	}
	return out
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

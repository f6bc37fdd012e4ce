package cases

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// A refused write leaves nothing behind: a create the service answered with anything but a
// success must not have added the animal (4.2: the 201 is the animal added; 7: an error
// answers the request instead). No verdict of a case can see that, whatever part of the
// request the service refused it for, so every family that creates gathers the names of its
// refused creates and looks for them in the store once its cases are sent.

// refusal is a create the service refused: the fresh name it sent, and what was answered.
type refusal struct {
	name, words, section string
	status               int
	exchange             int // in the family's recorder
}

// refusedCreate notes k's answer got when k would have created an animal of a fresh name.
func (r *run) refusedCreate(k Case, got int) {
	if k.Op != spec.OpCreate || k.Request.Method != http.MethodPost || got/100 == 2 || k.Request.Body == nil {
		return
	}
	for _, want := range k.Request.Body.Wants()["name"] {
		if name, err := strconv.Unquote(want); err == nil && strings.HasPrefix(name, NamePrefix) && len(name) > len(NamePrefix)+3 && !r.listedName(name) {
			r.refusal = &refusal{name: name, words: k.Words, section: k.Section, status: got}
			return
		}
	}
}

// listedName: an animal the store showed before the cases has this name (a case may send one
// on purpose), so finding it later proves nothing.
func (r *run) listedName(name string) bool {
	for _, p := range r.Fixture.Pets {
		if p["name"] == name {
			return true
		}
	}
	return false
}

// checkRefused lists the store, unfiltered and by each status value at the largest limit,
// and fails every refused create whose animal is listed. A store larger than the listings
// show may hide one: what is found is a finding, what is not is no proof.
func (r *run) checkRefused(refused []refusal) {
	if len(refused) == 0 {
		return
	}
	byName := map[string][]refusal{}
	for _, f := range refused {
		byName[f.name] = append(byName[f.name], f)
	}
	list := r.fam.facts.ByID[spec.OpList]
	filters := []string{""}
	for _, p := range list.Op.Parameters {
		if s := p.Value.Schema; p.Value.In == "query" && s != nil && s.Value != nil && len(s.Value.Enum) > 0 {
			for _, e := range s.Value.Enum {
				filters = append(filters, p.Value.Name+"="+fmt.Sprint(e))
			}
		}
	}
	for _, filter := range filters {
		q := []Param{{Name: "limit", Value: strconv.FormatInt(r.fam.facts.Limit.Max, 10)}}
		if name, value, ok := strings.Cut(filter, "="); ok {
			q = append(q, Param{Name: name, Value: value})
		}
		// On a fork never merged: the listings are the oracle's own look, not the family's
		// cases, and what they break of the spec is the listing rules' to judge.
		look, _ := r.fork()
		req := Request{Method: list.Method, Path: list.Path, Query: q, Auth: AuthKey}
		resp, err := look.to.Send(r.Ctx, req, true)
		if err == nil && filter == "" && resp.StatusCode >= 500 && r.Fixture.Listed {
			r.brokenListing(refused, req, resp.StatusCode)
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			continue
		}
		var pets []map[string]any
		if judge.Decode(readAll(resp), &pets) != nil {
			continue
		}
		listing := req.Method + " " + req.Path + "?" + req.RawQuery()
		for _, pet := range pets {
			name, _ := pet["name"].(string)
			for _, f := range byName[name] {
				id, _ := judge.IDOf(pet)
				r.to.SetCase(f.words, f.section, "refused write", "")
				r.to.FailAt(report.Failure{Message: fmt.Sprintf(
					"a refused create left an animal behind: answered %s, yet %s lists animal %s of the name it sent; "+
						"an error adds no animal (4.2, 7)", report.StatusText(f.status), listing, id),
					Expected: "no animal of the name " + f.name, Actual: "animal " + id + " listed"}, f.exchange)
			}
			delete(byName, name)
		}
	}
	r.to.SetCase("", "", "", "")
}

// brokenListing: the listing answered 200 when preparation made it, and a 5xx once the
// family's creates were refused. A create refused with a 5xx is the first suspect: a service
// that stores what it cannot serve (a record without a name, say) and then fails the write's
// answer fails every listing that holds it. The first such refusal is blamed, as one finding;
// a refusal with a 4xx is not, and with none the listing's fault is the listing rules' to judge.
// On a run of several workers another family's write may have broken it first: the case
// blamed is then still a create answered with a 5xx, a fault of its own.
func (r *run) brokenListing(refused []refusal, req Request, status int) {
	for _, f := range refused {
		if f.status < 500 {
			continue
		}
		r.to.SetCase(f.words, f.section, "refused write", "")
		r.to.FailAt(report.Failure{Message: fmt.Sprintf(
			"a refused create broke the listing: answered %s, and then %s answered %s where it answered 200 OK before the cases; "+
				"an error adds nothing (4.1, 4.2, 7)", report.StatusText(f.status), req.Method+" "+req.Path+"?"+req.RawQuery(), report.StatusText(status)),
			Expected: "the listing still answered 200 OK", Actual: report.StatusText(status)}, f.exchange)
		return
	}
}

package cases

import (
	"fmt"
	"math/big"
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
	if got >= 500 && len(k.Mutations()) <= 1 {
		r.leftUnservable(got) // a variant alone: a combination may be judged on a fork that is dropped
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

// leftUnservable looks, once per family, for a record the create just refused with a 5xx
// left behind that the service cannot serve: a store that keeps a body it could not read (a
// text/plain body parsed as a string and stored without its fields, zoo/FINDINGS.md glue-5)
// fails every later read of it (glue-6), and the record has no name to be found by. Where ids
// are handed out in order it holds one of the ids just before the next animal's: the oracle
// creates one animal of its own (room under --max-creates allowing) and reads the ids before
// it, as many as the cases sent beside this one may have taken (two per worker, at most 16)
// and none an animal preparation saw. A 5xx there, where getPet serves the new animal, is
// blamed on the refused create; 404s, animals, or ids out of order show nothing.
func (r *run) leftUnservable(got int) {
	// The ids known before the cases: a store listed, or the animals preparation created.
	known := r.Fixture.Listed || len(r.Fixture.Pets) > 0
	if r.Budget.ReadOnly || r.Fixture.NewPet == nil || !known || !r.probed.CompareAndSwap(false, true) {
		return
	}
	release := r.Budget.Reserve(1)
	if release == nil {
		return
	}
	defer release()
	look, _ := r.fork() // the oracle's own requests: what they break of the spec is not this case's
	id, err := look.ownAnimal()
	n, ok := new(big.Int).SetString(id, 10)
	if err != nil || !ok {
		return
	}
	getPet := func(id string) (int, bool) {
		resp, err := look.to.Send(r.Ctx, Request{Method: http.MethodGet, Path: FillPath(r.fam.facts.ByID[spec.OpGet].Path, id), Auth: AuthKey}, true)
		if err != nil {
			return 0, false
		}
		return resp.StatusCode, true
	}
	if st, ok := getPet(id); !ok || st >= 500 {
		return // getPet fails an animal just made: what it answers the ids before says nothing
	}
	// Only ids above every animal preparation knew: a record that was there before the cases
	// is not this create's.
	floor := new(big.Int)
	for _, p := range r.Fixture.Pets {
		listed, _ := judge.IDOf(p)
		if k, ok := new(big.Int).SetString(listed, 10); ok && k.Cmp(floor) > 0 {
			floor = k
		}
	}
	for range min(2*max(r.Budget.Workers, 1), 16) {
		if n.Sub(n, big.NewInt(1)).Cmp(floor) <= 0 {
			return
		}
		before := n.String()
		st, ok := getPet(before)
		if !ok {
			return
		}
		if st >= 500 {
			r.expectf(report.Must, "no record, or one the service serves", report.StatusText(st),
				"a refused create left a record behind that the service cannot serve: answered %s, and then a new animal got id %s, which getPet serves, "+
					"and getPet of %s, an id before it, answered %s; an error adds nothing (4.2, 4.3, 7)", report.StatusText(got), id, before, report.StatusText(st))
			return
		}
	}
}

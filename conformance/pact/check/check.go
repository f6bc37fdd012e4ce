// Package check judges consumer contracts (Pact files, conformance/pact) against the
// interface: Rules turns each interaction into a rule that the runner replays through its
// one door and judges by the document and by the pact's matchers (conformance pact
// verify), and Breaks names, without a server, the interactions a change of the description
// breaks (conformance diff --pact).
package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/routers"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/pact"
	"github.com/petstore/petstore/spec"
)

// Prefix begins the ID of every rule Rules makes: pact/CONSUMER/N.
const Prefix = "pact"

// unknownID is an id no service assigns before it has stored 2^63-1 animals.
var unknownID = strconv.FormatInt(math.MaxInt64, 10)

// Contract is one pact file as read.
type Contract struct {
	File string
	Pact *pact.Pact
}

// Rules returns one rule per interaction of the contracts, in their order: ID
// pact/CONSUMER/N (N from 1 in each file), the interaction's description as title. A rule
// sets up what the interaction's provider state asks (an animal, created by the replay), sends
// the request with the run's key in place of pact.KeyPlaceholder, and judges the answer by
// the document (the session's spec checks and the Error record, a listing's limit and
// filter, stored equals sent) and by the pact (the status, the headers, the body under its
// matchers). Where the document leaves the answer to the request open (an out-of-range
// limit), only the document judges it.
func Rules(f *spec.Facts, contracts []Contract) ([]rules.Rule, error) {
	var out []rules.Rule
	for _, c := range contracts {
		consumer := slug(c.Pact.Consumer)
		for i, in := range c.Pact.Interactions {
			it, err := plan(f, in)
			if err != nil {
				return nil, fmt.Errorf("%s: interaction %d (%s): %w", c.File, i+1, in.Description, err)
			}
			out = append(out, rules.Rule{
				ID:       fmt.Sprintf("%s/%s/%d", Prefix, consumer, i+1),
				Section:  fmt.Sprintf("%s; pact %s, interaction %d", sectionOf(it.op), c.File, i+1),
				Severity: rules.Must,
				Title:    fmt.Sprintf("%s's interaction %q", c.Pact.Consumer, in.Description),
				Op:       ruleOp(it.op),
				Creates:  it.creates(),
				Unsafe:   it.op.Method != http.MethodGet && it.op.Method != http.MethodHead,
				Open:     it.open,
				Run:      it.check,
			})
		}
	}
	return out, nil
}

// ruleOp is the operation a rule names for the runner: none for one with a removal date,
// which the runner would skip from that date on, where a consumer that still relies on it
// is broken (check says so).
func ruleOp(op spec.Operation) string {
	if !op.Sunset.IsZero() {
		return ""
	}
	return op.ID
}

// sectionOf is the document's section of an operation: the heading its summary repeats
// ("4.1" for "List all animals"), so that a report groups a pact's interactions with the
// rules of the same part of the document; "pact" when no heading does.
func sectionOf(op spec.Operation) string {
	for key, title := range report.SectionTitles() {
		if op.Op != nil && title == op.Op.Summary {
			return key
		}
	}
	return Prefix
}

// slug keeps a consumer's name usable in a rule ID (no slash, no space).
func slug(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '*' || r == '?' || r == '[' {
			return '-'
		}
		return r
	}, s)
	if s == "" {
		return "consumer"
	}
	return s
}

// interaction is what a rule needs of one interaction, read once.
type interaction struct {
	in     pact.Interaction
	f      *spec.Facts
	op     spec.Operation
	tmpl   string            // the operation's path in the description: /pets/{petId}
	params map[string]string // the path parameters as the pact recorded them
	open   bool              // the document leaves the answer open
	// animal is the NewPet to create before the request, for a path id the pact recorded
	// (nil: none); missing asks for an id no animal has instead.
	animal  map[string]any
	missing bool
	// fill is how many animals of fillStatus a listing needs at least (the pact's min).
	fill       int
	fillStatus string
}

func (it interaction) creates() bool {
	return it.animal != nil || it.fill > 0 || it.op.ID == spec.OpCreate
}

// plan routes the interaction's request to its operation and reads what it needs set up.
func plan(f *spec.Facts, in pact.Interaction) (interaction, error) {
	it := interaction{in: in, f: f}
	_, route, params, err := routed(f.Validator, in.Request)
	if err != nil {
		return it, err
	}
	it.op, it.params = f.ByID[route.Operation.OperationID], params
	it.tmpl = it.op.Path
	if it.op.ID == spec.OpList {
		asked := judge.ListingAsked(f, in.Request.RawQuery())
		it.open = !asked.Valid
		if min := minItems(in.Response.Rules); min > 0 && asked.Valid && int64(min) <= asked.Limit && in.Response.Status/100 == 2 {
			it.fill, it.fillStatus = min, f.Statuses[0]
			if len(asked.Statuses) > 0 {
				it.fillStatus = asked.Statuses[0]
			}
		}
	}
	if len(params) == 0 {
		return it, nil
	}
	for _, s := range in.States {
		switch s.Name {
		case pact.StateAnimalExists:
			it.animal = newPet(f, s.Params)
		case pact.StateNoAnimal:
			it.missing = true
		}
	}
	if it.animal == nil && !it.missing {
		// No state: the answer the consumer expects says which.
		switch {
		case in.Response.Status/100 == 2:
			var body map[string]any
			_ = judge.Decode(in.Response.Body, &body)
			it.animal = newPet(f, body)
		case in.Response.Status == http.StatusNotFound:
			it.missing = true
		}
	}
	return it, nil
}

// routed is the pact's request for the description's router, with the route it takes: its
// path as the pact holds it, or under the description's base path when the consumer wrote it
// without (a verifier's --base-path). The key placeholder is a key.
func routed(v *spec.Validator, rq pact.Request) (*http.Request, *routers.Route, map[string]string, error) {
	base, _ := spec.BasePath(v.Doc())
	for _, path := range []string{rq.Path, base + rq.Path} {
		req := httptest.NewRequest(rq.Method, "http://pact.invalid"+path, bytes.NewReader(rq.Body))
		req.URL.RawQuery = rq.RawQuery()
		for name, vs := range rq.Headers {
			for _, val := range vs {
				req.Header.Add(name, strings.ReplaceAll(val, pact.KeyPlaceholder, "key"))
			}
		}
		if route, params, err := v.Route(req); err == nil {
			return req, route, params, nil
		}
	}
	return nil, nil, nil, fmt.Errorf("the description has no operation %s %s", rq.Method, rq.Path)
}

// newPet is the NewPet of an animal's fields (the description's NewPet properties only).
func newPet(f *spec.Facts, fields map[string]any) map[string]any {
	out := map[string]any{}
	for _, name := range spec.AllProperties(f.NewPet) {
		if v, ok := fields[name]; ok {
			out[name] = v
		}
	}
	return out
}

// check replays the interaction through c and judges the answer.
func (it interaction) check(c *rules.Check) {
	if op := it.op; op.Deprecated {
		removal, replaced := "", op.ReplacedBy
		if !op.Sunset.IsZero() {
			removal = " and is removed on " + op.Sunset.Format(time.DateOnly)
		}
		if replaced == "" {
			replaced = "another operation"
		}
		if op.Gone(c.Now) {
			c.Expectf(op.ID, "removed on "+op.Sunset.Format(time.DateOnly),
				"the consumer relies on %s, which the description removes on %s; it must move to %s", op.ID, op.Sunset.Format(time.DateOnly), replaced)
			return
		}
		c.ExpectAtf(rules.Advisory, "", "", "the consumer relies on %s, which is deprecated%s: it should move to %s", op.ID, removal, replaced)
	}
	path := it.tmpl
	var stored map[string][]string // what the replay created, which a 2xx must hold
	var id string                  // the id a path parameter takes instead of the recorded one
	switch {
	case it.animal != nil:
		id, stored = it.createPet(c, it.animal)
	case it.missing:
		id = unknownID
	}
	for name, v := range it.params {
		if id != "" {
			v = id
		}
		path = strings.ReplaceAll(path, "{"+name+"}", v)
	}
	for range it.fill {
		// The consumer relies on a listing of at least fill animals: the replay creates them.
		it.createPet(c, map[string]any{"name": cases.NamePrefix + "pact", "categoryId": 1, "status": it.fillStatus})
	}
	rq := it.in.Request
	client, auth := c.Anon, ""
	if a := pact.Header(rq.Headers, "Authorization"); strings.Contains(a, pact.KeyPlaceholder) || hasRule(rq.Rules, "header", "Authorization") {
		client = c.Auth // the consumer sends its key: the run's key
	} else {
		auth = a
	}
	req := client.Request(rq.Method, path)
	if q := rq.RawQuery(); q != "" {
		req = req.WithQueryString(q)
	}
	for name, vs := range rq.Headers {
		if strings.EqualFold(name, "Authorization") {
			continue
		}
		for _, v := range vs {
			req = req.WithHeader(name, v)
		}
	}
	if auth != "" {
		req = req.WithHeader("Authorization", auth)
	}
	if rq.Body != nil {
		req = req.WithBytes(rq.Body)
	}
	resp := req.Expect()
	raw := resp.Raw()
	if raw == nil {
		return // the transport failure is recorded
	}
	body := []byte(resp.Body().Raw())
	it.judge(c, raw.StatusCode, raw.Header, body, stored)
}

// createPet creates an animal of the fields given, and returns its id and what was sent.
func (it interaction) createPet(c *rules.Check, animal map[string]any) (string, map[string][]string) {
	sent, _ := json.Marshal(animal)
	create := it.f.ByID[spec.OpCreate]
	resp := c.Auth.Request(create.Method, create.Path).WithHeader("Content-Type", "application/json").WithBytes(sent).Expect()
	raw := resp.Raw()
	if raw == nil || raw.StatusCode/100 != 2 {
		c.Skipf("the animal the interaction needs could not be created: %s", report.StatusText(code(raw)))
	}
	var pet map[string]any
	if judge.Decode([]byte(resp.Body().Raw()), &pet) != nil {
		c.Skipf("the animal the interaction needs was created, but its answer is no JSON object")
	}
	id, ok := judge.IDOf(pet)
	if !ok {
		c.Skipf("the animal the interaction needs was created, but its answer has no integer id")
	}
	wants, _ := judge.Sent(sent)
	return id, wants
}

// minItems is the least number of items the pact's matchers ask of the body ($), 0 for none.
func minItems(r pact.Rules) int {
	for _, m := range r["body"]["$"].Matchers {
		if m.Min != nil {
			return *m.Min
		}
	}
	return 0
}

func code(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

func hasRule(r pact.Rules, category, place string) bool {
	for p := range r[category] {
		if strings.EqualFold(p, place) {
			return true
		}
	}
	return false
}

// judge holds the answer to the document and to the pact.
func (it interaction) judge(c *rules.Check, status int, header http.Header, body []byte, stored map[string][]string) {
	exp := it.in.Response
	if it.open {
		return // the document leaves the answer open: the session's checks are the judges
	}
	// The document.
	if status/100 == 2 {
		switch it.op.ID {
		case spec.OpList:
			var pets []map[string]any
			if judge.Decode(body, &pets) == nil {
				fail(c, judge.ListingAsked(it.f, it.in.Request.RawQuery()).Judge(pets))
			}
		case spec.OpCreate:
			if wants, ok := judge.Sent(it.in.Request.Body); ok {
				stored = wants
			}
		}
		var got map[string]any
		if stored != nil && judge.Decode(body, &got) == nil && got != nil {
			fail(c, judge.Stored(stored, got, "the Pet answered"))
		}
	}
	// The pact.
	if status != exp.Status {
		c.Expectf(report.StatusText(exp.Status), report.StatusText(status),
			"the consumer expects status %s, got %s", report.StatusText(exp.Status), report.StatusText(status))
		return
	}
	for name, vs := range exp.Headers {
		if got := header.Get(name); len(vs) > 0 && !sameHeader(name, vs[0], got) && !hasRule(exp.Rules, "header", name) {
			c.Expectf(vs[0], got, "the consumer expects the header %s: %s", name, vs[0])
		}
	}
	if exp.Body == nil {
		return
	}
	var want, got any
	if judge.Decode(exp.Body, &want) != nil {
		return
	}
	if err := judge.Decode(body, &got); err != nil {
		c.Expectf("a JSON body", report.Clip(string(body), 120), "the consumer expects a JSON body")
		return
	}
	for _, m := range pact.MatchBody(exp.Rules["body"], want, got) {
		c.Expectf(m.Expected, m.Actual, "the answer is not what the consumer relies on at %s: %s", m.Path, m.Message)
	}
}

// sameHeader compares a header the pact expects: a media type by its type, the rest as text.
func sameHeader(name, want, got string) bool {
	if strings.EqualFold(name, "Content-Type") {
		cut := func(s string) string { t, _, _ := strings.Cut(s, ";"); return strings.ToLower(strings.TrimSpace(t)) }
		return cut(want) == cut(got)
	}
	return strings.TrimSpace(want) == strings.TrimSpace(got)
}

func fail(c *rules.Check, fs []report.Failure) {
	for _, f := range fs {
		c.ExpectAtf(f.Level, f.Expected, f.Actual, "%s", f.Message)
	}
}

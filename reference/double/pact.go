package double

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/petstore/petstore/internal/pact"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The pact: the journal's distinct interactions as a consumer contract (Pact specification
// v4, conformance/pact), for a provider to verify (conformance pact verify) and a spec
// change to be checked against (conformance diff --pact). A request is written as the client
// sent it, its key replaced by pact.KeyPlaceholder; an answer is written with matching rules
// where the interface document leaves the value open (ids, names, order, page size), so that
// the contract asserts what the client relies on, not the reference's choices.

// Provider states a pact names, with their params; conformance/pact/check acts on them.
const (
	StateAnimalExists = pact.StateAnimalExists
	StateNoAnimal     = pact.StateNoAnimal
)

// Pact returns the journal's distinct interactions as a Pact v4 file of consumer with
// provider. Left out: requests answered with a chosen answer (Prefer, the 400 of a Prefer
// refused, the fail rate, the rate limit), with a 5xx, that matched no operation, or whose body was cut or is not JSON.
func (srv *Server) Pact(consumer, provider string) ([]byte, error) {
	if srv.rec == nil {
		return nil, ErrNoJournal
	}
	p := &pact.Pact{Consumer: consumer, Provider: provider}
	seen := map[string]bool{}
	descriptions := map[string]int{}
	for _, e := range srv.rec.journal.snapshot(RequestFilter{}).Requests {
		in, ok := srv.interaction(e)
		if !ok {
			continue
		}
		id := in.Request.Method + " " + in.Request.Path + "?" + in.Request.RawQuery() + " " +
			pact.Header(in.Request.Headers, "Authorization") + " " + string(in.Request.Body) + " " + strconv.Itoa(in.Response.Status)
		if seen[id] {
			continue
		}
		seen[id] = true
		if n := descriptions[in.Description]; n > 0 {
			descriptions[in.Description]++
			in.Description += fmt.Sprintf(" (%d)", n+1)
		} else {
			descriptions[in.Description] = 1
		}
		p.Interactions = append(p.Interactions, in)
	}
	return pact.Write(p)
}

// interaction is the pact's form of one journal entry; false for one left out.
func (srv *Server) interaction(e JournalEntry) (pact.Interaction, bool) {
	if e.Chosen || e.Operation == "" || e.Status >= 500 || e.BodyTruncated || (e.Body != "" && !json.Valid([]byte(e.Body))) {
		return pact.Interaction{}, false
	}
	q, err := url.ParseQuery(e.Query)
	if err != nil {
		return pact.Interaction{}, false
	}
	path, err := url.PathUnescape(e.Path)
	if err != nil {
		return pact.Interaction{}, false
	}
	req := pact.Request{Method: e.Method, Path: path, Headers: map[string][]string{}}
	if len(q) > 0 {
		req.Query = q
	}
	switch e.Key {
	case "valid":
		req.Headers["Authorization"] = []string{"Bearer " + pact.KeyPlaceholder}
	case "invalid":
		req.Headers["Authorization"] = e.Headers["Authorization"] // masked: still no key
	}
	if e.Body != "" {
		req.Body = json.RawMessage(e.Body)
		if ct := e.Headers["Content-Type"]; len(ct) > 0 {
			req.Headers["Content-Type"] = ct
		}
	}
	in := pact.Interaction{Request: req, Response: pact.Response{Status: e.Status}}
	in.Description = describeRequest(e)
	if e.Error != nil {
		in.Response.Body, _ = json.Marshal(e.Error)
		in.Response.Rules = bodyRules(map[string]pact.Matcher{"$.code": {Match: "type"}, "$.message": {Match: "type"}})
	} else if e.Status/100 == 2 {
		srv.successBody(&in, e, q)
	}
	if e.Operation == spec.OpGet && (e.Status == http.StatusOK || e.Status == http.StatusNotFound) {
		srv.getState(&in, path)
	}
	if in.Response.Body != nil {
		in.Response.Headers = map[string][]string{"Content-Type": {"application/json"}}
	}
	return in, true
}

// describeRequest is an interaction's description: "listPets GET /v1/pets?status=available
// (200)"; the key is named when it was not a valid one.
func describeRequest(e JournalEntry) string {
	d := e.Operation + " " + e.Method + " " + e.Path
	if e.Query != "" {
		d += "?" + e.Query
	}
	if e.Key != "valid" {
		d += ", " + e.Key + " key"
	}
	return fmt.Sprintf("%s (%d)", d, e.Status)
}

// successBody is the body a 2xx of the three operations carries, as an example, with the
// matchers of what the document leaves open.
func (srv *Server) successBody(in *pact.Interaction, e JournalEntry, q url.Values) {
	switch e.Operation {
	case spec.OpCreate:
		// Section 4.2: the Pet carries what was sent, and an id the service assigns.
		var sent map[string]json.RawMessage
		if json.Unmarshal([]byte(e.Body), &sent) != nil || sent == nil {
			return
		}
		sent["id"] = json.RawMessage("1")
		in.Response.Body, _ = json.Marshal(sent)
		in.Response.Rules = bodyRules(map[string]pact.Matcher{"$.id": {Match: "integer"}})
	case spec.OpGet:
		id, _ := strconv.ParseInt(lastSegment(e.Path), 10, 64)
		body, ok := srv.s.Store.AppendPet(nil, id)
		if !ok {
			body = []byte(fmt.Sprintf(`{"id":%d,"name":"Rex","categoryId":1}`, id))
		}
		in.Response.Body = body
		in.Response.Rules = bodyRules(srv.petMatchers("$", nil))
	case spec.OpList:
		status := q.Get("status")
		limit := srv.facts.Limit.Max // any other value's answer is open: at most the maximum
		if len(q["limit"]) == 0 {
			limit = srv.facts.Limit.Default
		} else if n, err := strconv.ParseInt(q.Get("limit"), 10, 64); err == nil && len(q["limit"]) == 1 && n >= srv.facts.Limit.Min && n <= limit {
			limit = n
		}
		example := bytes.TrimSuffix(bytes.TrimPrefix(srv.s.Store.AppendList(nil, 1, status), []byte("[")), []byte("]"))
		if len(example) == 0 {
			st := status
			if st == "" {
				st = srv.facts.Statuses[0]
			}
			example = []byte(fmt.Sprintf(`{"id":1,"name":"Rex","categoryId":1,"status":%q}`, st))
		}
		in.Response.Body = append(append([]byte("["), example...), ']')
		var filter []string
		if status != "" && len(q["status"]) == 1 {
			filter = []string{status}
		}
		m := srv.petMatchers("$[*]", filter)
		// Order and page size are open (section 4.1): any number of animals up to the limit.
		m["$"] = pact.Matcher{Match: "type", Min: pact.Ints(0), Max: pact.Ints(int(limit))}
		in.Response.Rules = bodyRules(m)
	}
}

// petMatchers are the matchers of a Pet at path: the id and the category any integer, the
// name any string, the status one of the values (statuses, else the enumeration).
func (srv *Server) petMatchers(path string, statuses []string) map[string]pact.Matcher {
	if statuses == nil {
		statuses = srv.facts.Statuses
	}
	quoted := make([]string, len(statuses))
	for i, s := range statuses {
		quoted[i] = regexp.QuoteMeta(s)
	}
	return map[string]pact.Matcher{
		path + ".id":         {Match: "integer"},
		path + ".name":       {Match: "type"},
		path + ".categoryId": {Match: "integer"},
		path + ".status":     {Match: "regex", Regex: "^(" + strings.Join(quoted, "|") + ")$"},
	}
}

// getState names what getPet needs of the provider: the animal (with the fields of the
// example), or no animal with the id, so that a verifier maps the id to one it created.
func (srv *Server) getState(in *pact.Interaction, path string) {
	id, err := strconv.ParseInt(lastSegment(path), 10, 64)
	if err != nil {
		return
	}
	// The path takes the id the provider answers when it sets the state up (pactState).
	in.Request.Generators = pact.PathFromState(path[:strings.LastIndexByte(path, '/')+1])
	if in.Response.Status == http.StatusNotFound {
		in.States = []pact.State{{Name: StateNoAnimal, Params: map[string]any{"id": id}}}
		return
	}
	var params map[string]any
	if json.Unmarshal(in.Response.Body, &params) != nil {
		return
	}
	params["id"] = id
	in.States = []pact.State{{Name: StateAnimalExists, Params: params}}
}

func lastSegment(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func bodyRules(m map[string]pact.Matcher) pact.Rules {
	body := make(map[string]pact.RuleList, len(m))
	for path, x := range m {
		body[path] = pact.RuleList{Matchers: []pact.Matcher{x}}
	}
	return pact.Rules{"body": body}
}

// getPact serves GET /_admin/pact?consumer=NAME&provider=NAME.
func (srv *Server) getPact(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	consumer, provider := q.Get("consumer"), q.Get("provider")
	if consumer == "" {
		consumer = DefaultPactConsumer
	}
	if provider == "" {
		provider = DefaultPactProvider
	}
	data, err := srv.Pact(consumer, provider)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data) // the status is sent: a failed write is the client gone
	return nil
}

// The names a pact gets when none is given.
const (
	DefaultPactConsumer = "petstore-client"
	DefaultPactProvider = "petstore"
)

// pactStateRoute is POST /_admin/pact/state, where a Pact verifier sets up the provider
// states of the pacts the reference writes (pact_verifier --state-change-url): it creates
// the animal StateAnimalExists describes and answers its id, or answers an id no animal has
// for StateNoAnimal. Creating an animal is what an API key allows, so an API key is enough,
// as is the admin key.
func (srv *Server) pactStateRoute(admin, keys *core.KeySet) core.ExtraRoute {
	return core.ExtraRoute{http.MethodPost: func(w http.ResponseWriter, r *http.Request) {
		if !admin.Check(r) && !keys.Check(r) {
			srv.s.EW.WriteError(w, r, core.ErrUnauthorized)
			return
		}
		if err := srv.pactState(w, r); err != nil {
			srv.s.EW.WriteError(w, r, err)
		}
	}}
}

func (srv *Server) pactState(w http.ResponseWriter, r *http.Request) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, 4<<10))
	if err != nil {
		return err
	}
	var change struct {
		State  string          `json:"state"`
		Params json.RawMessage `json:"params"`
		Action string          `json:"action"`
	}
	if err := json.Unmarshal(data, &change); err != nil {
		return core.Invalid(`want {"state": NAME, "params": {...}, "action": "setup"}`)
	}
	values := map[string]any{}
	switch {
	case change.Action == "teardown" || change.State == "":
		// The animals stay: nothing here removes what a client may have seen. A verifier
		// with a state change URL calls it for an interaction without a state too.
	case change.State == StateAnimalExists:
		p, err := core.DecodeNewPet(change.Params)
		if err == nil {
			err = core.ValidateNewPet(p, srv.facts.Statuses, core.StatusRequired(srv.facts))
		}
		if err != nil {
			return core.Invalid("%s: params: %v", StateAnimalExists, err)
		}
		_, id, err := srv.s.Store.Add(nil, p)
		if err != nil {
			return err
		}
		values[pact.StateID] = strconv.FormatInt(id, 10)
	case change.State == StateNoAnimal:
		values[pact.StateID] = strconv.FormatInt(math.MaxInt64, 10)
	default:
		return core.Invalid("unknown provider state %q; the states are %q and %q", change.State, StateAnimalExists, StateNoAnimal)
	}
	core.WriteJSON(w, http.StatusOK, values)
	return nil
}

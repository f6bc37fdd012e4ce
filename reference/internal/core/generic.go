package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/spec"
)

// The operations a spec adds to the three the interface document names are served by their
// shape, read from the spec, without Go code of their own: on the item path (the list's path
// and one integer path parameter, /pets/{petId}), DELETE removes the animal, PUT replaces it
// and PATCH changes it by a JSON merge patch (RFC 7396); a query parameter of the list named
// like a property of its items filters it by equality. Every other operation is answered 501
// with an Error; Coverage says which, and which parameters are accepted but not acted on.
// The api around the handlers (api.go) does for them what it does for the hand-written
// ones: the key first, request and response validation, the Error record.

// Coverage is what the reference does with the spec it serves beyond the three hand-written
// operations, in words for its start-up lines, each list in the spec's order.
type Coverage struct {
	// ByShape are the operations served by their shape: "deletePet (DELETE /pets/{petId}): removes the animal".
	ByShape []string
	// Unserved are the operations answered 501, each with the reason.
	Unserved []string
	// Ignored are the parameters accepted (validated against the spec) and not acted on.
	Ignored []string
}

// generic is the state of the operations served by their shape.
type generic struct {
	// filters are the list's query parameters that filter by a property of its items.
	filters []listFilter
	// writes serialises PUT and PATCH: a merge patch reads the animal, then replaces it.
	writes   sync.Mutex
	Coverage Coverage
}

// listFilter is a query parameter of the list that keeps the animals whose field equals it.
type listFilter struct {
	param string
	field string // "id", "name" or "categoryId": what the store keeps besides the status
}

// storeFields are the fields of an animal the store keeps, and whether each is an integer;
// the status, which the hand-written list filters, is the fourth.
var storeFields = map[string]bool{"id": true, "name": false, "categoryId": true}

// actedOn are the parameters the hand-written handlers read, by operationId.
var actedOn = map[string][]string{
	spec.OpList:   {"limit", "status"},
	spec.OpCreate: {},
	spec.OpGet:    {"petId"},
}

// genericOps adds to hs, the hand-written handlers, a handler for every other operation of
// the spec, and works out the list's filters and the Coverage.
func (s *Server) genericOps(facts *spec.Facts, hs map[string]Handler) {
	g := &generic{}
	s.Gen = g
	list := facts.ByID[spec.OpList]
	g.filters = listFilters(list, parameters(facts.Doc, list))
	for _, op := range facts.Ops {
		where := fmt.Sprintf("%s (%s %s)", op.ID, op.Method, op.Path)
		params := parameters(facts.Doc, op)
		if hs[op.ID] != nil {
			used := slices.Clone(actedOn[op.ID])
			if op.ID == spec.OpList {
				for _, f := range g.filters {
					used = append(used, f.param)
				}
			}
			g.ignored(op.ID, params, used...)
			continue
		}
		h, does, why := s.byShape(op, params, list.Path)
		if h == nil {
			g.Coverage.Unserved = append(g.Coverage.Unserved, where+": "+why)
			hs[op.ID] = s.notImplemented(op, why)
			continue
		}
		answers := []int{http.StatusNotFound}
		if op.Method != http.MethodDelete || !PathNotFound(op) {
			answers = append(answers, http.StatusBadRequest)
		}
		if missing := undocumented(op, answers...); len(missing) > 0 {
			// An operation on one animal answers an unknown one 404, and a refused id or
			// body 400, whether or not its spec lists them: without them a client could not
			// tell what went wrong, and with the spec's checks they would turn into 500s.
			h = outsideSpecFor(missing, h)
			does += "; answers " + statusList(missing) + ", which the spec does not list"
		}
		g.Coverage.ByShape = append(g.Coverage.ByShape, where+": "+does)
		hs[op.ID] = h
		g.ignored(op.ID, params, itemParam(op, params, list.Path))
	}
}

// parameters are op's parameters, its path's included (the operation's win over the path's).
func parameters(doc *openapi3.T, op spec.Operation) openapi3.Parameters {
	out := slices.Clone(op.Op.Parameters)
	if item := doc.Paths.Value(op.Path); item != nil {
		for _, ref := range item.Parameters {
			if ref.Value != nil && op.Op.Parameters.GetByInAndName(ref.Value.In, ref.Value.Name) == nil {
				out = append(out, ref)
			}
		}
	}
	return out
}

// ignored notes every parameter in params but those named in used.
func (g *generic) ignored(opID string, params openapi3.Parameters, used ...string) {
	for _, ref := range params {
		if p := ref.Value; p != nil && !slices.Contains(used, p.Name) {
			g.Coverage.Ignored = append(g.Coverage.Ignored, fmt.Sprintf("%s: %s parameter %s", opID, p.In, p.Name))
		}
	}
}

// listFilters are the list's query parameters named like a field of its items that the store
// keeps, of the field's type (an integer or a string).
func listFilters(list spec.Operation, params openapi3.Parameters) []listFilter {
	items := spec.ResponseSchema(list.Op, http.StatusOK)
	if items == nil || items.Items == nil || items.Items.Value == nil {
		return nil
	}
	props := spec.AllProperties(items.Items.Value)
	var out []listFilter
	for _, ref := range params {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInQuery || slices.Contains(actedOn[list.ID], p.Name) || !slices.Contains(props, p.Name) {
			continue
		}
		integer, kept := storeFields[p.Name]
		if !kept || p.Schema == nil || p.Schema.Value == nil || p.Schema.Value.Type == nil {
			continue
		}
		if t := p.Schema.Value.Type; (integer && t.Is(openapi3.TypeInteger)) || (!integer && t.Is(openapi3.TypeString)) {
			out = append(out, listFilter{param: p.Name, field: p.Name})
		}
	}
	return out
}

// itemParam is the name of op's one path parameter when op's path is the list's path and
// that integer parameter (/pets/{petId}), and "" otherwise; params are op's parameters.
func itemParam(op spec.Operation, params openapi3.Parameters, listPath string) string {
	rest, ok := strings.CutPrefix(op.Path, listPath+"/{")
	name, ok2 := strings.CutSuffix(rest, "}")
	if !ok || !ok2 || strings.ContainsAny(name, "/{}") {
		return ""
	}
	for _, ref := range params {
		if p := ref.Value; p != nil && p.In == openapi3.ParameterInPath && p.Name == name &&
			p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.Type != nil && p.Schema.Value.Type.Is(openapi3.TypeInteger) {
			return name
		}
	}
	return ""
}

// byShape returns the handler of op's shape and what it does, or nil and why there is none.
func (s *Server) byShape(op spec.Operation, params openapi3.Parameters, listPath string) (h Handler, does, why string) {
	param := itemParam(op, params, listPath)
	if param == "" {
		return nil, "", "no standard shape (only DELETE, PUT and PATCH on " + listPath + "/{id} are served by shape)"
	}
	ok, empty := successOf(op)
	switch op.Method {
	case http.MethodDelete:
		if empty == 0 {
			return nil, "", "no 204 (or 200 without a body) response"
		}
		return s.handleDelete(pathID(op, param), empty), "removes the animal", ""
	case http.MethodPut, http.MethodPatch:
		if ok == 0 && empty == 0 {
			return nil, "", "no 200 response with the animal, nor a 204"
		}
		content := requestContent(op)
		if content == nil {
			return nil, "", "no request body"
		}
		if op.Method == http.MethodPut {
			if why := animalBody(content); why != "" {
				return nil, "", why
			}
			return s.handleChange(pathID(op, param), content, ok, empty, replaceWith), "replaces the animal", ""
		}
		if content.Get("application/merge-patch+json") == nil && content.Get("application/json") == nil {
			return nil, "", "the request body is neither application/merge-patch+json nor application/json"
		}
		return s.handleChange(pathID(op, param), content, ok, empty, mergeInto), "changes the animal (JSON merge patch)", ""
	}
	return nil, "", "no standard shape for " + op.Method + " on " + op.Path
}

// successOf returns the statuses op may answer a success with: ok, a 200 with a JSON body
// (the animal), and empty, a 204 or a 200 without one; 0 when there is none.
func successOf(op spec.Operation) (ok, empty int) {
	if op.HasStatus(http.StatusNoContent) {
		empty = http.StatusNoContent
	}
	if op.HasStatus(http.StatusOK) {
		if spec.ResponseSchema(op.Op, http.StatusOK) != nil {
			ok = http.StatusOK
		} else if empty == 0 {
			empty = http.StatusOK
		}
	}
	return ok, empty
}

func requestContent(op spec.Operation) openapi3.Content {
	if rb := op.Op.RequestBody; rb != nil && rb.Value != nil && len(rb.Value.Content) > 0 {
		return rb.Value.Content
	}
	return nil
}

// animalBody says why content is not an animal as the store keeps it ("" when it is): a JSON
// object with a name and a categoryId and no property the store does not keep.
func animalBody(content openapi3.Content) string {
	mt := content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return "the request body is not application/json"
	}
	props := spec.AllProperties(mt.Schema.Value)
	for _, p := range props {
		if _, kept := storeFields[p]; !kept && p != "status" {
			return fmt.Sprintf("the request body has a property the store does not keep (%s)", p)
		}
	}
	if !slices.Contains(props, "name") || !slices.Contains(props, "categoryId") {
		return "the request body is not an animal (name and categoryId)"
	}
	return ""
}

// undocumented lists the statuses of statuses op's spec does not list.
func undocumented(op spec.Operation, statuses ...int) []int {
	var out []int
	for _, st := range statuses {
		if !op.HasStatus(st) {
			out = append(out, st)
		}
	}
	return out
}

// statusList says what the statuses of an operation on one animal answer, in words.
func statusList(statuses []int) string {
	why := map[int]string{http.StatusNotFound: "an unknown animal", http.StatusBadRequest: "a refused id or body"}
	words := make([]string, len(statuses))
	for i, st := range statuses {
		words[i] = fmt.Sprintf("%d (%s)", st, why[st])
	}
	return strings.Join(words, " and ")
}

// outsideSpecFor marks h's answers with one of statuses as outside the spec, as Fail does
// for a limit's (outsideSpec): the spec's response checks let them through.
func outsideSpecFor(statuses []int, h Handler) Handler {
	return func(rec *Recorder, r *http.Request) {
		h(rec, r)
		if slices.Contains(statuses, rec.Status) {
			rec.OutsideSpec = true
		}
	}
}

// notImplemented answers every request of op that passes the api's checks with a 501 Error.
func (s *Server) notImplemented(op spec.Operation, why string) Handler {
	e := NewError(http.StatusNotImplemented, CodeNotImplemented,
		"%s %s (%s) is in the spec but the reference server cannot serve it: %s", op.Method, s.base+op.Path, op.ID, why)
	return func(rec *Recorder, r *http.Request) { s.EW.Fail(rec, r, e) }
}

// pathNotFound says whether op answers a path parameter it refuses with 404 (unknownID)
// rather than 400: when it documents a 404 and no 400, as a spec author may write
// DELETE /pets/{petId} (204, 404), the id names no animal.
func PathNotFound(op spec.Operation) bool {
	return op.HasStatus(http.StatusNotFound) && !op.HasStatus(http.StatusBadRequest)
}

// unknownID is the 404 of an id that cannot name an animal (pathNotFound).
func unknownID(raw string) *Error { return notFound("pet %s not found", raw) }

// pathID returns the reader of the animal's id from op's path parameter name: a value that
// is not an int64 is a 400, or a 404 when pathNotFound.
func pathID(op spec.Operation, name string) func(*http.Request) (int64, error) {
	asNotFound := PathNotFound(op)
	return func(r *http.Request) (int64, error) {
		raw := r.PathValue(name)
		id, err := strconv.ParseInt(raw, 10, 64)
		switch {
		case err == nil:
			return id, nil
		case asNotFound:
			return 0, unknownID(raw)
		}
		return 0, Invalid("%s must be an integer in the int64 range, got %q", name, raw)
	}
}

func (s *Server) handleDelete(idOf func(*http.Request) (int64, error), status int) Handler {
	return func(rec *Recorder, r *http.Request) {
		id, err := idOf(r)
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		if !s.Store.remove(id) {
			s.EW.Fail(rec, r, notFound("pet %d not found", id))
			return
		}
		rec.WriteHeader(status)
	}
}

// A change makes the animal to store from the one stored (its JSON encoding) and the body.
type change func(stored, body []byte, id int64) (NewPet, error)

// handleChange serves PUT and PATCH on the item path: the body, with the animal stored under
// the path's id, makes the new animal, which replaces it. ok and empty are the success
// statuses (successOf).
func (s *Server) handleChange(idOf func(*http.Request) (int64, error), content openapi3.Content, ok, empty int, next change) Handler {
	return func(rec *Recorder, r *http.Request) {
		id, err := idOf(r)
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		body, err := readBody(r)
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		if len(body) == 0 {
			s.EW.Fail(rec, r, Invalid("request body is required"))
			return
		}
		if !mediaTypeOK(content, r) {
			s.EW.Fail(rec, r, UnsupportedMediaType(r))
			return
		}
		buf := getBuf()
		defer putBuf(buf)
		s.Gen.writes.Lock()
		defer s.Gen.writes.Unlock()
		stored, found := s.Store.AppendPet((*buf)[:0], id)
		if !found {
			s.EW.Fail(rec, r, notFound("pet %d not found", id))
			return
		}
		p, err := next(stored, body, id)
		if err == nil {
			err = ValidateNewPet(p, s.statuses, s.statusRequired)
		}
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		if *buf, found, err = s.Store.replace((*buf)[:0], id, p); err == nil && !found {
			err = notFound("pet %d not found", id) // removed meanwhile
		}
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		if ok == 0 {
			rec.WriteHeader(empty)
			return
		}
		rec.Stored(ok, BodyOther, *buf) // validated in full: the schema is the spec author's
	}
}

// replaceWith is PUT's change: the body is the new animal; an id in it must be the path's.
func replaceWith(_, body []byte, id int64) (NewPet, error) {
	if err := sameID(body, id); err != nil {
		return NewPet{}, err
	}
	return DecodeNewPet(body)
}

// mergeInto is PATCH's change: the body is a JSON merge patch (RFC 7396) of the animal.
func mergeInto(stored, body []byte, id int64) (NewPet, error) {
	if !utf8.Valid(body) {
		return NewPet{}, Invalid("request body: not valid UTF-8")
	}
	if err := checkDuplicateKeys(body); err != nil {
		return NewPet{}, Invalid("request body: %v", err)
	}
	var patch, target any
	if err := decodeNumbers(body, &patch); err != nil {
		return NewPet{}, Invalid("request body: %v", err)
	}
	if err := decodeNumbers(stored, &target); err != nil {
		return NewPet{}, err // the store's own encoding: an internal error
	}
	merged, err := json.Marshal(mergePatch(target, patch))
	if err != nil {
		return NewPet{}, err
	}
	if err := sameID(merged, id); err != nil {
		return NewPet{}, err
	}
	return DecodeNewPet(merged)
}

// sameID refuses a body whose "id" is not id: the id is the path's, and never changes.
func sameID(body []byte, id int64) error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || fields["id"] == nil {
		return nil // decodeNewPet words what is wrong with a body that is not an object
	}
	if n, err := JSONInt64(fields["id"]); err != nil || n != id {
		return Invalid("request body: property %q must be %d, the id in the path (an animal's id never changes)", "id", id)
	}
	return nil
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// mergePatch applies patch to target as RFC 7396 section 2 says.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
		} else {
			t[k] = mergePatch(t[k], v)
		}
	}
	return t
}

// match returns what keeps the animals the list's filter parameters in q ask for; nil when
// q has none (or the server has no generic operations).
func (g *generic) match(q map[string][]string) (*petMatch, error) {
	if g == nil {
		return nil, nil
	}
	var m *petMatch
	for _, f := range g.filters {
		v, ok, err := single(q, f.param)
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		if m == nil {
			m = &petMatch{}
		}
		if f.field == "name" {
			m.name = encodedName(v)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, Invalid("%s must be an integer in the int64 range, got %q", f.param, v)
		}
		if f.field == "id" {
			m.id = &n
		} else {
			m.categoryID = &n
		}
	}
	return m, nil
}

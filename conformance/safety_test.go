package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/spec"
)

// grownSpec is the spec with the operations the document says the service has but does not
// show (section 4.3, "updating or deleting animals ... not shown"): delete, replace and
// update an animal by id, each with a way to name a second animal (a query parameter, the
// body's id), and a replacement of the whole collection.
func grownSpec(t testing.TB) *openapi3.T {
	t.Helper()
	ops := `
    delete:
      operationId: deletePet
      summary: Remove an animal
      tags: [animals]
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer, format: int64}, example: 1}
        - {name: alsoDelete, in: query, schema: {type: integer, format: int64}, example: 2}
      responses:
        '204': {description: Removed.}
        '401': {$ref: '#/components/responses/Unauthorized'}
        '404': {description: Not found., content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
    put:
      operationId: replacePet
      summary: Replace an animal
      tags: [animals]
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer, format: int64}, example: 1}
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
      responses:
        '200': {description: Replaced., content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
        '400': {description: Bad body., content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
        '401': {$ref: '#/components/responses/Unauthorized'}
        '404': {description: Not found., content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
    patch:
      operationId: updatePet
      summary: Update an animal
      tags: [animals]
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer, format: int64}, example: 1}
        - {name: mergeInto, in: query, schema: {type: integer, format: int64}, example: 3}
      requestBody:
        required: true
        content: {application/json: {schema: {type: object}}}
      responses:
        '200': {description: Updated., content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
        '400': {description: Bad body., content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
        '401': {$ref: '#/components/responses/Unauthorized'}
        '404': {description: Not found., content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
`
	all := `
    put:
      operationId: replaceAll
      summary: Replace every animal
      tags: [animals]
      requestBody:
        required: true
        content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/NewPet'}}}}
      responses:
        '204': {description: Replaced.}
        '401': {$ref: '#/components/responses/Unauthorized'}
`
	base := string(document.Spec) // the document's spec: spec/openapi.yaml may have a DELETE of its own
	text := strings.Replace(base, "  /pets/{petId}:\n", "  /pets/{petId}:"+ops, 1)
	text = strings.Replace(text, "  /pets:\n", "  /pets:"+all, 1)
	require.NotEqual(t, base, text)
	require.Equal(t, 2, strings.Count(text, "operationId: replace"))
	doc, err := spec.Parse([]byte(text))
	require.NoError(t, err)
	return doc
}

// wideStore is a pet store that implements what grownSpec adds, and, as a careless server
// would, checks the key on reads and creates only: a DELETE, PUT or PATCH without a key acts
// too, a DELETE removes the animal alsoDelete names as well, a PUT replaces the animal its
// body's id names, a PATCH renames the animal mergeInto names, and a PUT on the collection
// empties it. It records the method of every request and starts with animals no run created.
type wideStore struct {
	mu      sync.Mutex
	pets    map[int64]map[string]any
	next    int64
	methods map[string]int
}

func newWideStore(preexisting int) *wideStore {
	s := &wideStore{pets: map[int64]map[string]any{}, methods: map[string]int{}}
	for i := 0; i < preexisting; i++ {
		s.next++
		s.pets[s.next] = map[string]any{"id": s.next, "name": "Before" + strconv.Itoa(i), "categoryId": 1, "status": "available"}
	}
	return s
}

func (s *wideStore) has(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pets[id]
	return ok
}

func (s *wideStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methods[r.Method]++
	fail := func(status int, code string) {
		w.Header().Set("Content-Type", "application/json")
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", "Bearer")
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"code": code, "message": code, "status": status})
	}
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	keyed := r.Header.Get("Authorization") == "Bearer "+testKey && len(r.Header.Values("Authorization")) == 1
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/pets")
	if !ok {
		fail(http.StatusNotFound, "not_found")
		return
	}
	if rest == "" && (r.Method == http.MethodGet || r.Method == http.MethodPost) && !keyed {
		fail(http.StatusUnauthorized, "unauthorized")
		return
	}
	readPet := func() (map[string]any, bool) {
		var p map[string]any
		if json.NewDecoder(r.Body).Decode(&p) != nil {
			return nil, false
		}
		name, ok1 := p["name"].(string)
		cat, ok2 := p["categoryId"].(float64)
		st, hasStatus := p["status"]
		if !ok1 || !ok2 || (hasStatus && !slices.Contains([]any{"available", "pending", "sold"}, st)) {
			return nil, false
		}
		out := map[string]any{"name": name, "categoryId": int64(cat)}
		if hasStatus {
			out["status"] = st
		}
		return out, true
	}
	switch {
	case rest == "" && r.Method == http.MethodGet:
		limit := 20
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100 {
				fail(http.StatusBadRequest, "invalid_request")
				return
			}
			limit = n
		}
		st := r.URL.Query().Get("status")
		out := []map[string]any{}
		for id := int64(1); id <= s.next && len(out) < limit; id++ {
			if p, ok := s.pets[id]; ok && (st == "" || p["status"] == st) {
				out = append(out, p)
			}
		}
		reply(http.StatusOK, out)
	case rest == "" && r.Method == http.MethodPost:
		p, ok := readPet()
		if !ok {
			fail(http.StatusBadRequest, "invalid_request")
			return
		}
		s.next++
		p["id"] = s.next
		s.pets[s.next] = p
		reply(http.StatusCreated, p)
	case strings.HasPrefix(rest, "/"):
		id, err := strconv.ParseInt(rest[1:], 10, 64)
		if err != nil {
			fail(http.StatusBadRequest, "invalid_request")
			return
		}
		p, found := s.pets[id]
		switch r.Method {
		case http.MethodGet:
			if !keyed {
				fail(http.StatusUnauthorized, "unauthorized")
			} else if !found {
				fail(http.StatusNotFound, "not_found")
			} else {
				reply(http.StatusOK, p)
			}
		case http.MethodDelete:
			if !found {
				fail(http.StatusNotFound, "not_found")
				return
			}
			delete(s.pets, id)
			if other, err := strconv.ParseInt(r.URL.Query().Get("alsoDelete"), 10, 64); err == nil {
				delete(s.pets, other)
			}
			w.WriteHeader(http.StatusNoContent)
		case http.MethodPut:
			var raw []byte
			if r.Body != nil {
				raw, _ = io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(raw))
			}
			var named struct{ ID *int64 }
			if json.Unmarshal(raw, &named) == nil && named.ID != nil && s.pets[*named.ID] != nil {
				id, found = *named.ID, true // an upsert by the body's id
			}
			np, ok := readPet()
			if !found {
				fail(http.StatusNotFound, "not_found")
			} else if !ok {
				fail(http.StatusBadRequest, "invalid_request")
			} else {
				np["id"] = id
				s.pets[id] = np
				reply(http.StatusOK, np)
			}
		case http.MethodPatch:
			if other, err := strconv.ParseInt(r.URL.Query().Get("mergeInto"), 10, 64); err == nil && s.pets[other] != nil {
				s.pets[other]["name"] = "merged"
			}
			if !found {
				fail(http.StatusNotFound, "not_found")
			} else {
				reply(http.StatusOK, p)
			}
		default:
			fail(http.StatusMethodNotAllowed, "method_not_allowed")
		}
	case rest == "" && r.Method == http.MethodPut:
		clear(s.pets)
		w.WriteHeader(http.StatusNoContent)
	default:
		fail(http.StatusMethodNotAllowed, "method_not_allowed")
	}
}

// With the spec grown by DELETE and PUT on /pets/{petId}, against a server that implements
// them (and acts on them without a key), neither a plain run nor a read-only run changes or
// removes an animal that existed before it; the read-only run sends only GET and HEAD; the
// plain run removes what it created, and --keep leaves it (issue 22, item 1).
func TestRunTouchesOnlyWhatItCreated(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	doc := grownSpec(t)
	const before = 30
	for _, tc := range []struct {
		name     string
		readOnly bool
		keep     bool
	}{{"plain", false, false}, {"read-only", true, false}, {"keep", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			store := newWideStore(before)
			srv := httptest.NewServer(store)
			t.Cleanup(srv.Close)
			target := conformance.Target{BaseURL: srv.URL + "/v1", APIKey: testKey, Client: srv.Client()}
			rep := run(t, target, conformance.Options{Spec: doc, ReadOnly: tc.readOnly, Keep: tc.keep, Seed: 7})
			for id := int64(1); id <= before; id++ {
				assert.True(t, store.has(id), "animal %d existed before the run and is gone", id)
			}
			for id := int64(1); id <= before; id++ {
				if store.has(id) {
					store.mu.Lock()
					assert.Equal(t, "Before"+strconv.Itoa(int(id-1)), store.pets[id]["name"], "animal %d existed before the run and was changed", id)
					store.mu.Unlock()
				}
			}
			store.mu.Lock()
			defer store.mu.Unlock()
			for _, p := range store.pets {
				id := p["id"].(int64)
				if id > before {
					name, _ := p["name"].(string)
					assert.True(t, strings.HasPrefix(name, "conformance-") || tc.keep, "animal %d (%q) was changed by the run", id, name)
				}
			}
			if tc.readOnly {
				for m, n := range store.methods {
					assert.Contains(t, []string{http.MethodGet, http.MethodHead}, m, "a read-only run sent %d %s requests", n, m)
				}
				assert.Equal(t, 0, rep.AnimalsCreated)
				assert.NotEmpty(t, rep.NotJudged, "a read-only run says what it could not judge")
				return
			}
			assert.Positive(t, store.methods[http.MethodDelete], "the run exercised the delete operation")
			assert.Positive(t, rep.AnimalsCreated)
			left := len(store.pets) - before
			if tc.keep {
				assert.Positive(t, left, "--keep leaves what the run created")
			} else {
				assert.Equal(t, 0, left, "the run removes what it created")
				assert.Positive(t, rep.AnimalsRemoved)
			}
			if tc.keep {
				// A DELETE of one of the run's animals may take another with it (alsoDelete
				// naming an id the run created), which the run cannot see without asking.
				assert.LessOrEqual(t, left, rep.AnimalsLeft)
			} else {
				assert.Equal(t, left, rep.AnimalsLeft)
			}
		})
	}
}

// A wrong base path is named as such whatever the spec grows: the collection's PUT, which
// the run never sends, does not count as an operation that answered (issue 22, item 2).
func TestWrongBasePathWithAGrownSpec(t *testing.T) {
	store := newWideStore(3)
	srv := httptest.NewServer(store)
	t.Cleanup(srv.Close)
	target := conformance.Target{BaseURL: srv.URL + "/api/v1", APIKey: testKey, Client: srv.Client()}
	rep, err := conformance.Run(context.Background(), target, conformance.Options{Spec: grownSpec(t)})
	require.ErrorIs(t, err, conformance.ErrCannotJudge)
	assert.Contains(t, err.Error(), "the base path is wrong")
	assert.Equal(t, conformance.CannotJudge, rep.Verdict)
	assert.Equal(t, 3, len(store.pets))
	assert.Positive(t, rep.Requests, "the report counts what was sent")
	for _, res := range rep.Results {
		assert.Contains(t, res.Reason, "the base path is wrong", res.ID)
	}
}

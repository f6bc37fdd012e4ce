package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/reference/internal/fast"
	"github.com/petstore/petstore/spec"
)

// The store's encoding is byte for byte encoding/json's, for one animal and for a list.
func TestStoredEncodingIsEncodingJSON(t *testing.T) {
	names := []string{"Rex", `say "hi"\`, "<b>&amp;</b>", "é日本🐕", "line\u2028sep\u2029", "tab\there", "\ufffd"}
	s := core.NewStore([]string{"available", "pending", "sold"}, 100)
	var want []core.Pet
	for i, name := range names {
		p := core.NewPet{Name: name, CategoryID: int64(i*1_000_003) - 3, Status: []string{"", "available", "pending", "sold"}[i%4]}
		got, id, err := s.Add(nil, p)
		require.NoError(t, err)
		pet := core.Pet{ID: id, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
		enc, err := json.Marshal(pet)
		require.NoError(t, err)
		assert.Equal(t, string(enc), string(got))
		again, ok := s.AppendPet(nil, id)
		require.True(t, ok)
		assert.Equal(t, string(enc), string(again))
		want = append(want, pet)
	}
	enc, err := json.Marshal(want)
	require.NoError(t, err)
	assert.Equal(t, string(enc), string(s.AppendList(nil, 100, "")))
	assert.Equal(t, "[]", string(s.AppendList(nil, 100, "lost")))
	_, ok := s.AppendPet(nil, int64(len(names)+1))
	assert.False(t, ok)
}

// Validation changes nothing in what a valid request gets: same status, headers and bytes.
func TestNoValidationAnswersTheSameBytes(t *testing.T) {
	reqs := []req{get("/v1/pets"), get("/v1/pets?status=sold&" + limitMax), get("/v1/pets?limit=1"),
		get("/v1/pets/2"), get("/v1/pets/99"), post(`{"name":"Rex <3","categoryId":4,"status":"sold"}`),
		{method: "GET", path: "/v1/pets"}}
	on := newTestServer(t, Config{Seed: seedOf(30)})
	off := newTestServer(t, Config{Seed: seedOf(30), NoValidation: true})
	for _, rq := range reqs {
		a, b := do(t, on, rq), do(t, off, rq)
		assert.Equal(t, b.Code, a.Code, rq.path)
		assert.Equal(t, b.Header(), a.Header(), rq.path)
		assert.Equal(t, b.Body.String(), a.Body.String(), rq.path)
	}
}

// The plans for the spec as shipped: the GET operations take the request shortcut, and
// every body made of stored animals is taken as validated.
func TestPlansForTheSpec(t *testing.T) {
	plans, err := fast.NewPlans(factsOf(t, spec.MustLoad()), true)
	require.NoError(t, err)
	assert.True(t, plans["listPets"].SimpleRequest)
	assert.True(t, plans["getPet"].SimpleRequest)
	assert.False(t, plans["createPet"].SimpleRequest, "a request body is always validated in full")
	assert.Equal(t, map[int]core.BodyKind{200: core.BodyPets}, plans["listPets"].Bodies)
	assert.Equal(t, map[int]core.BodyKind{200: core.BodyPet}, plans["getPet"].Bodies)
	assert.Equal(t, map[int]core.BodyKind{201: core.BodyPet}, plans["createPet"].Bodies)

	plans, err = fast.NewPlans(factsOf(t, spec.MustLoad()), false)
	require.NoError(t, err)
	assert.Empty(t, plans["listPets"].Bodies, "without the store's check nothing is taken as validated")
}

// The request shortcut accepts only what ValidateRequest accepts, and accepts the usual
// requests (else it would be no shortcut); with a plain string parameter too (listPets' name).
func TestRequestShortcutAgreesWithValidateRequest(t *testing.T) {
	doc := grown(t, grownspec.NameFilter)
	rdoc := *doc
	rdoc.Servers = openapi3.Servers{{URL: "/v1/"}}
	router, err := gorillamux.NewRouter(&rdoc)
	require.NoError(t, err)
	plans, err := fast.NewPlans(factsOf(t, doc), true)
	require.NoError(t, err)
	keys, err := core.NewKeySet([]string{testKey})
	require.NoError(t, err)
	opts := &openapi3filter.Options{AuthenticationFunc: keys.Authenticate, SkipSettingDefaults: true}

	values := []string{"", "0", "1", "20", "100", "101", maxLimit, aboveMax, "-1", "-0", "01", "+5", "1.0", "1e1", " 5", "5 ",
		"0x10", "１", "9007199254740993", "9223372036854775807", "9223372036854775808", "99999999999999999",
		"sold", "SOLD", "available", "lost", "sold%20", "%73old"}
	var paths []string
	for _, v := range values {
		paths = append(paths, "/v1/pets?limit="+v, "/v1/pets?status="+v, "/v1/pets?limit=5&status="+v, "/v1/pets?name="+v,
			"/v1/pets?limit="+v+"&limit="+v, "/v1/pets/"+v)
	}
	shortcuts := 0
	for _, path := range paths {
		for _, auth := range []string{authed, "Bearer nope", ""} {
			r, err := http.NewRequest("GET", path, nil)
			if err != nil {
				continue // not a URL at all
			}
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			route, params, err := router.FindRoute(r)
			if err != nil {
				continue
			}
			if !plans[route.Operation.OperationID].RequestValid(r, params, keys.Check(r)) {
				continue
			}
			shortcuts++
			in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
			assert.NoError(t, openapi3filter.ValidateRequest(context.Background(), in), "%s with %q", path, auth)
			assert.Equal(t, authed, auth, "%s: the shortcut needs the key", path)
		}
	}
	for _, path := range []string{"/v1/pets", "/v1/pets?" + limitMax + "&status=sold", "/v1/pets/7", "/v1/pets?page=2", "/v1/pets?name=Rex"} {
		r, err := http.NewRequest("GET", path, nil)
		require.NoError(t, err)
		r.Header.Set("Authorization", authed)
		route, params, err := router.FindRoute(r)
		require.NoError(t, err)
		assert.True(t, plans[route.Operation.OperationID].RequestValid(r, params, keys.Check(r)), path)
	}
	assert.Greater(t, shortcuts, 10)
}

// A spec whose list schema has a constraint of its own: lists are validated in full, so a
// list that breaks it is a 500 Error, never served.
func TestArrayConstraintFallsBackToFullValidation(t *testing.T) {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	two := uint64(2)
	doc.Components.Schemas["Pets"].Value.MaxItems = &two
	plans, err := fast.NewPlans(factsOf(t, doc), true)
	require.NoError(t, err)
	assert.Empty(t, plans["listPets"].Bodies)

	h := newTestServer(t, Config{Spec: doc, Seed: seedOf(3)})
	w := do(t, h, get("/v1/pets"))
	require.Equal(t, http.StatusInternalServerError, w.Code, "body: %s", w.Body)
	assert.Contains(t, errorBody(t, w).Message, "violated the spec")
	assert.Len(t, pets(t, do(t, h, get("/v1/pets?limit=2"))), 2)
}

// A spec whose Pet schema refuses an animal the handlers accept: the animal is never
// stored, so no list or get can serve it; a seed with one is refused at start; lenient mode
// stores and serves it, validating (and logging) every response.
func TestInvalidPetIsNeverStored(t *testing.T) {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	three := uint64(3)
	doc.Components.Schemas["Pet"].Value.Properties["name"].Value.MaxLength = &three

	var log bytes.Buffer
	h := newTestServer(t, Config{Spec: doc, Seed: []core.NewPet{{Name: "Tom", CategoryID: 1, Status: "available"}}, Log: &log})
	w := do(t, h, post(`{"name":"Rexxx","categoryId":1,"status":"available"}`))
	require.Equal(t, http.StatusInternalServerError, w.Code, "body: %s", w.Body)
	assert.Equal(t, core.CodeInternal, errorBody(t, w).Code)
	assert.Contains(t, log.String(), "response violates the spec")
	assert.Equal(t, http.StatusNotFound, do(t, h, get("/v1/pets/2")).Code)
	assert.Equal(t, []core.Pet{{ID: 1, Name: "Tom", CategoryID: 1, Status: "available"}}, pets(t, do(t, h, get("/v1/pets"))))
	assert.Equal(t, http.StatusCreated, do(t, h, post(`{"name":"Rex","categoryId":1,"status":"available"}`)).Code)
	assert.Len(t, pets(t, do(t, h, get("/v1/pets"))), 2)

	_, err = NewServer(Config{Spec: doc, APIKeys: []string{testKey}, Seed: []core.NewPet{{Name: "Tom", CategoryID: 1, Status: "available"}, {Name: "Rexxx", CategoryID: 1, Status: "available"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "entry 1")

	log.Reset()
	h = newTestServer(t, Config{Spec: doc, Lenient: true, Log: &log})
	assert.Equal(t, http.StatusCreated, do(t, h, post(`{"name":"Rexxx","categoryId":1,"status":"available"}`)).Code)
	assert.Len(t, pets(t, do(t, h, get("/v1/pets"))), 1)
	assert.Equal(t, 2, strings.Count(log.String(), "response violates the spec"), log.String())
}

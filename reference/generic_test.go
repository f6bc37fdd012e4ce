package reference

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// grown is the spec with the named additions (internal/grownspec).
func grown(t testing.TB, names ...string) *openapi3.T {
	t.Helper()
	text, err := grownspec.Text(names...)
	require.NoError(t, err)
	doc, err := spec.Parse(text)
	require.NoError(t, err)
	return doc
}

// grownServer serves doc with seedOf(8), with and without validation.
func grownServers(t *testing.T, doc *openapi3.T, test func(t *testing.T, h http.Handler)) {
	for _, noValidation := range []bool{false, true} {
		name := map[bool]string{false: "validated", true: "no-validation"}[noValidation]
		t.Run(name, func(t *testing.T) {
			test(t, newTestServer(t, Config{Spec: doc, Seed: seedOf(8), NoValidation: noValidation}))
		})
	}
}

// The reference serves all of the embedded spec: the documented operations by their
// hand-written handlers, any other by its shape; it acts on every parameter.
func TestCoverageOfTheEmbeddedSpec(t *testing.T) {
	srv, err := New(Config{APIKeys: []string{testKey}})
	require.NoError(t, err)
	c := srv.Coverage()
	for _, line := range c.ByShape {
		for _, id := range []string{spec.OpList, spec.OpCreate, spec.OpGet} {
			assert.NotContains(t, line, id+" (", "a documented operation is hand-written")
		}
	}
	assert.Empty(t, c.Unserved, "operations the reference cannot serve (501): give them a standard shape (docs/spec-authors.md) or a handler")
	assert.Empty(t, c.Ignored, "parameters the reference accepts and does not act on: docs/spec-authors.md says which it acts on")
}

// beyondEmbedded is c without the lines the embedded spec's coverage has: what the
// additions of a grown spec bring.
func beyondEmbedded(t *testing.T, c core.Coverage) core.Coverage {
	t.Helper()
	srv, err := New(Config{APIKeys: []string{testKey}})
	require.NoError(t, err)
	base := srv.Coverage()
	drop := func(lines, known []string) []string {
		var out []string
		for _, l := range lines {
			if !slices.Contains(known, l) {
				out = append(out, l)
			}
		}
		return out
	}
	return core.Coverage{ByShape: drop(c.ByShape, base.ByShape), Unserved: drop(c.Unserved, base.Unserved), Ignored: drop(c.Ignored, base.Ignored)}
}

// With DELETE /pets/{petId} added, the reference starts, removes on request (204, then 404),
// asks for the key first, and says it serves the operation by its shape.
func TestGenericDelete(t *testing.T) {
	doc := grown(t, grownspec.Delete)
	srv, err := New(Config{Spec: doc, APIKeys: []string{testKey}})
	require.NoError(t, err)
	assert.Contains(t, srv.Coverage().ByShape, "deletePet (DELETE /pets/{petId}): removes the animal")
	grownServers(t, doc, func(t *testing.T, h http.Handler) {
		w := do(t, h, req{method: http.MethodDelete, path: "/v1/pets/3"})
		assert.Equal(t, core.CodeUnauthorized, errorBody(t, w).Code)
		w = do(t, h, req{method: http.MethodDelete, path: "/v1/pets/3", auth: authed})
		require.Equal(t, http.StatusNoContent, w.Code, "body: %s", w.Body)
		assert.Empty(t, w.Body.String())
		w = do(t, h, req{method: http.MethodDelete, path: "/v1/pets/3", auth: authed})
		require.Equal(t, http.StatusNotFound, w.Code)
		assert.Equal(t, "pet 3 not found", errorBody(t, w).Message)
		w = do(t, h, req{method: http.MethodGet, path: "/v1/pets/3", auth: authed})
		assert.Equal(t, http.StatusNotFound, w.Code)
		w = do(t, h, req{method: http.MethodDelete, path: "/v1/pets/abc", auth: authed})
		assert.Equal(t, map[bool]string{false: core.CodeInvalidRequest, true: core.CodeNotFound}[core.PathNotFound(factsOf(t, doc).ByID["deletePet"])], errorBody(t, w).Code)
		var ids []int64
		for _, p := range pets(t, do(t, h, req{method: http.MethodGet, path: "/v1/pets", auth: authed})) {
			ids = append(ids, p.ID)
		}
		assert.Equal(t, []int64{1, 2, 4, 5, 6, 7, 8}, ids)
	})
}

// A DELETE that documents a 404 and no 400 (as a spec author may write it) answers an id that
// is not an int64 with a 404: the id names no animal, and the spec has no other answer.
func TestGenericDeleteWithout400(t *testing.T) {
	doc := grown(t, grownspec.Delete)
	doc.Paths.Value("/pets/{petId}").Delete.Responses.Delete("400")
	grownServers(t, doc, func(t *testing.T, h http.Handler) {
		for _, id := range []string{"abc", "9223372036854775808"} {
			w := do(t, h, req{method: http.MethodDelete, path: "/v1/pets/" + id, auth: authed})
			require.Equal(t, http.StatusNotFound, w.Code, "body: %s", w.Body)
			assert.Equal(t, "pet "+id+" not found", errorBody(t, w).Message)
		}
		assert.Equal(t, http.StatusNoContent, do(t, h, req{method: http.MethodDelete, path: "/v1/pets/1", auth: authed}).Code)
	})
}

// A DELETE that documents neither a 404 nor a 400 (a spec author forgot them) still answers
// an unknown animal 404 and an id that is not an int64 400, each with an Error, not a 500
// for answering what the spec does not list; the start lines say so.
func TestGenericDeleteWithout404(t *testing.T) {
	doc := grown(t, grownspec.Delete)
	doc.Paths.Value("/pets/{petId}").Delete.Responses.Delete("400")
	doc.Paths.Value("/pets/{petId}").Delete.Responses.Delete("404")
	srv, err := New(Config{Spec: doc, APIKeys: []string{testKey}})
	require.NoError(t, err)
	assert.Contains(t, srv.Coverage().ByShape, "deletePet (DELETE /pets/{petId}): removes the animal; "+
		"answers 404 (an unknown animal) and 400 (a refused id or body), which the spec does not list")
	grownServers(t, doc, func(t *testing.T, h http.Handler) {
		assert.Equal(t, http.StatusNoContent, do(t, h, req{method: http.MethodDelete, path: "/v1/pets/1", auth: authed}).Code)
		for path, want := range map[string]string{"/v1/pets/1": core.CodeNotFound, "/v1/pets/999": core.CodeNotFound, "/v1/pets/abc": core.CodeInvalidRequest} {
			assert.Equal(t, want, errorBody(t, do(t, h, req{method: http.MethodDelete, path: path, auth: authed})).Code, path)
		}
	})
	doc = grown(t, grownspec.Delete)
	doc.Paths.Value("/pets/{petId}").Delete.Responses.Delete("400")
	srv, err = New(Config{Spec: doc, APIKeys: []string{testKey}})
	require.NoError(t, err)
	assert.Contains(t, srv.Coverage().ByShape, "deletePet (DELETE /pets/{petId}): removes the animal", "a 404 and no 400: it answers no 400")
}

// The item's path parameter may be declared on the path rather than on the operation.
func TestGenericDeleteWithThePathsParameter(t *testing.T) {
	doc := grown(t, grownspec.Delete)
	item := doc.Paths.Value("/pets/{petId}")
	item.Parameters, item.Delete.Parameters = item.Delete.Parameters, nil
	srv, err := New(Config{Spec: doc, APIKeys: []string{testKey}, Seed: seedOf(2), Now: fixedNow})
	require.NoError(t, err)
	assert.Contains(t, srv.Coverage().ByShape, "deletePet (DELETE /pets/{petId}): removes the animal")
	assert.Equal(t, http.StatusNoContent, do(t, srv, req{method: http.MethodDelete, path: "/v1/pets/2", auth: authed}).Code)
	assert.Equal(t, http.StatusNotFound, do(t, srv, req{method: http.MethodGet, path: "/v1/pets/2", auth: authed}).Code)
}

// An operation of no standard shape does not stop the server: it is answered 501 with an
// Error, after the key, and Coverage names it with the reason.
func TestUnservedOperationAnswers501(t *testing.T) {
	doc := grown(t, grownspec.Groom)
	srv, err := New(Config{Spec: doc, APIKeys: []string{testKey}})
	require.NoError(t, err)
	require.Len(t, srv.Coverage().Unserved, 1)
	assert.Contains(t, srv.Coverage().Unserved[0], "groomPet (POST /pets/{petId}/groom): no standard shape")
	grownServers(t, doc, func(t *testing.T, h http.Handler) {
		w := do(t, h, req{method: http.MethodPost, path: "/v1/pets/1/groom"})
		assert.Equal(t, core.CodeUnauthorized, errorBody(t, w).Code)
		w = do(t, h, req{method: http.MethodPost, path: "/v1/pets/1/groom", auth: authed})
		require.Equal(t, http.StatusNotImplemented, w.Code)
		e := errorBody(t, w)
		assert.Equal(t, core.CodeNotImplemented, e.Code)
		assert.Contains(t, e.Message, "POST /v1/pets/{petId}/groom (groomPet) is in the spec but the reference server cannot serve it")
	})
}

// A DELETE without a 204 (a copy of getPet under another operationId) is not served by its
// shape: 501, not a refusal to start.
func TestDeleteWithoutNoContentIsUnserved(t *testing.T) {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	del := *doc.Paths.Value("/pets/{petId}").Get
	del.OperationID, del.Deprecated = "deletePet", false
	doc.Paths.Value("/pets/{petId}").Delete = &del
	srv, err := New(Config{Spec: doc, APIKeys: []string{testKey}})
	require.NoError(t, err)
	assert.Equal(t, []string{"deletePet (DELETE /pets/{petId}): no 204 (or 200 without a body) response"}, srv.Coverage().Unserved)
	w := do(t, srv, req{method: http.MethodDelete, path: "/v1/pets/1", auth: authed})
	assert.Equal(t, http.StatusNotImplemented, w.Code)
}

// A query parameter of listPets named like a property of its items filters by equality; one
// that is not is accepted, validated and listed as not acted on.
func TestListFiltersByAPropertyOfItsItems(t *testing.T) {
	doc := grown(t, grownspec.NameFilter, grownspec.Sort)
	srv, err := New(Config{Spec: doc, APIKeys: []string{testKey}})
	require.NoError(t, err)
	assert.Equal(t, core.Coverage{Ignored: []string{"listPets: query parameter sort"}}, beyondEmbedded(t, srv.Coverage()))
	grownServers(t, doc, func(t *testing.T, h http.Handler) {
		got := pets(t, do(t, h, req{method: http.MethodGet, path: "/v1/pets?name=pet3", auth: authed}))
		assert.Equal(t, []core.Pet{{ID: 3, Name: "pet3", CategoryID: 2, Status: "sold"}}, got)
		assert.Empty(t, pets(t, do(t, h, req{method: http.MethodGet, path: "/v1/pets?name=pet3&status=available", auth: authed})))
		assert.Empty(t, pets(t, do(t, h, req{method: http.MethodGet, path: "/v1/pets?name=nobody", auth: authed})))
		assert.Len(t, pets(t, do(t, h, req{method: http.MethodGet, path: "/v1/pets?sort=id", auth: authed})), 8)
		w := do(t, h, req{method: http.MethodGet, path: "/v1/pets?name=a&name=b", auth: authed})
		assert.Equal(t, core.CodeInvalidRequest, errorBody(t, w).Code)
	})
	// A name with characters the store escapes is matched as written.
	h := newTestServer(t, Config{Spec: doc, Seed: []core.NewPet{{Name: `Rex "<&>" é`, CategoryID: 1, Status: "available"}, {Name: "Tom", CategoryID: 1, Status: "available"}}})
	got := pets(t, do(t, h, req{method: http.MethodGet, path: "/v1/pets?name=Rex+%22%3C%26%3E%22+%C3%A9", auth: authed}))
	assert.Equal(t, []core.Pet{{ID: 1, Name: `Rex "<&>" é`, CategoryID: 1, Status: "available"}}, got)
}

// PUT replaces the animal with the body; PATCH changes it by a JSON merge patch: a member
// replaces, null removes; the id never changes; the result must be a valid animal.
func TestGenericReplaceAndMergePatch(t *testing.T) {
	doc := grown(t, grownspec.Change)
	srv, err := New(Config{Spec: doc, APIKeys: []string{testKey}})
	require.NoError(t, err)
	assert.Equal(t, core.Coverage{
		ByShape: []string{"updatePet (PATCH /pets/{petId}): changes the animal (JSON merge patch)", "replacePet (PUT /pets/{petId}): replaces the animal"},
		Ignored: []string{"replacePet: query parameter dryRun"},
	}, beyondEmbedded(t, srv.Coverage()))
	get := func(t *testing.T, h http.Handler, path string) core.Pet {
		got := pets(t, do(t, h, req{method: http.MethodGet, path: "/v1/pets?" + limitMax, auth: authed}))
		for _, p := range got {
			if "/v1/pets/"+strconv.FormatInt(p.ID, 10) == path {
				return p
			}
		}
		return core.Pet{}
	}
	grownServers(t, doc, func(t *testing.T, h http.Handler) {
		put := req{method: http.MethodPut, path: "/v1/pets/2", auth: authed, contentType: "application/json",
			body: `{"name":"Bella","categoryId":9,"status":"sold"}`}
		w := do(t, h, put)
		require.Equal(t, http.StatusOK, w.Code, "body: %s", w.Body)
		assert.JSONEq(t, `{"id":2,"name":"Bella","categoryId":9,"status":"sold"}`, w.Body.String())
		assert.Equal(t, core.Pet{ID: 2, Name: "Bella", CategoryID: 9, Status: "sold"}, get(t, h, "/v1/pets/2"))

		// null removes the status, unless the spec requires one: then it is refused.
		luna, lunaJSON := core.Pet{ID: 2, Name: "Luna", CategoryID: 9}, `{"id":2,"name":"Luna","categoryId":9}`
		patch := req{method: http.MethodPatch, path: "/v1/pets/2", auth: authed, contentType: "application/merge-patch+json",
			body: `{"name":"Luna","status":null}`}
		if core.StatusRequired(shipped) {
			w = do(t, h, patch)
			assert.Equal(t, core.CodeInvalidRequest, errorBody(t, w).Code)
			patch.body = `{"name":"Luna"}`
			luna.Status, lunaJSON = "sold", `{"id":2,"name":"Luna","categoryId":9,"status":"sold"}`
		}
		w = do(t, h, patch)
		require.Equal(t, http.StatusOK, w.Code, "body: %s", w.Body)
		assert.JSONEq(t, lunaJSON, w.Body.String())
		assert.Equal(t, luna, get(t, h, "/v1/pets/2"))

		for _, bad := range []struct{ name, r string }{
			{"no key", ""},
			{"name removed", `{"name":null}`},
			{"id changed", `{"id":5}`},
			{"bad status", `{"status":"lost"}`},
			{"duplicate key", `{"name":"A","name":"B"}`},
		} {
			rq := patch
			rq.body = bad.r
			if bad.r == "" {
				rq.auth, rq.body = "", `{"name":"X"}`
			}
			w := do(t, h, rq)
			assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnauthorized}, w.Code, "%s: %s", bad.name, w.Body)
			errorBody(t, w)
		}
		assert.Equal(t, luna, get(t, h, "/v1/pets/2"), "a refused change changes nothing")

		rq := put
		rq.path = "/v1/pets/99"
		w = do(t, h, rq)
		assert.Equal(t, http.StatusNotFound, w.Code, "body: %s", w.Body)
		rq = put
		rq.contentType = "text/plain"
		assert.Equal(t, http.StatusUnsupportedMediaType, do(t, h, rq).Code)
	})
}

package double_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/pact"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/internal/testkit"
)

// GET /_admin/pact writes the journal's distinct interactions, the key a placeholder, the
// answers loosened where the document leaves them open; chosen answers are left out.
func TestAdminPact(t *testing.T) {
	h := newTestServer(t, reference.Config{AdminKey: adminKey, Seed: seedOf(3), Double: double.Double{Journal: 100, Scenarios: true}})
	call(t, h, "GET", "/v1/pets?status=available&"+limitMax, "")
	call(t, h, "GET", "/v1/pets?status=available&"+limitMax, "")
	created := call(t, h, "POST", "/v1/pets", `{"name":"Rex","categoryId":7,"status":"available"}`)
	require.Equal(t, http.StatusCreated, created.Code)
	call(t, h, "GET", "/v1/pets/999", "")
	call(t, h, "GET", "/v1/pets", "", "Prefer", "code=401") // chosen: not the provider's to keep
	// A Prefer the double refuses (the spec names no examples) gets a 400 the provider without
	// --scenarios never gives: not recorded either.
	assert.Equal(t, http.StatusBadRequest, call(t, h, "GET", "/v1/pets", "", "Prefer", "example=nope").Code)
	do(t, h, testkit.Req{Method: "GET", Path: "/v1/pets", Auth: "Bearer wrong-key"})

	assert.Equal(t, http.StatusUnauthorized, call(t, h, "GET", "/_admin/pact", "").Code, "the API key is not the admin key")
	w := admin(t, h, "GET", "/_admin/pact?consumer=web", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.NotContains(t, w.Body.String(), testKey)
	p, err := pact.Read(w.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "web", p.Consumer)
	assert.Equal(t, double.DefaultPactProvider, p.Provider)
	require.Len(t, p.Interactions, 4)

	list := p.Interactions[0]
	assert.Equal(t, map[string][]string{"status": {"available"}, "limit": {maxLimit}}, list.Request.Query)
	assert.Equal(t, "Bearer "+pact.KeyPlaceholder, pact.Header(list.Request.Headers, "Authorization"))
	rules := list.Response.Rules["body"]
	assert.Equal(t, int(shipped.Limit.Max), *rules["$"].Matchers[0].Max, "at most the limit, in any order")
	assert.Equal(t, "^(available)$", rules["$[*].status"].Matchers[0].Regex, "only the filtered status")
	assert.Equal(t, "integer", rules["$[*].id"].Matchers[0].Match, "any id")

	create := p.Interactions[1]
	assert.JSONEq(t, `{"name":"Rex","categoryId":7,"status":"available","id":1}`, string(create.Response.Body), "what was sent, and an id")
	assert.Equal(t, "integer", create.Response.Rules["body"]["$.id"].Matchers[0].Match)

	missing := p.Interactions[2]
	assert.Equal(t, http.StatusNotFound, missing.Response.Status)
	assert.Equal(t, []pact.State{{Name: double.StateNoAnimal, Params: map[string]any{"id": json.Number("999")}}}, missing.States)
	assert.JSONEq(t, `{"path":{"type":"ProviderState","expression":"/v1/pets/${id}","dataType":"STRING"}}`, string(missing.Request.Generators))

	wrongKey := p.Interactions[3]
	assert.Equal(t, http.StatusUnauthorized, wrongKey.Response.Status)
	assert.Equal(t, "Bearer <redacted>", pact.Header(wrongKey.Request.Headers, "Authorization"), "a wrong key stays a wrong key")

	_, err = (&double.Server{}).Pact("a", "b")
	assert.ErrorIs(t, err, double.ErrNoJournal)
}

// POST /_admin/pact/state sets a pact's provider state up: the animal, and its id.
func TestAdminPactState(t *testing.T) {
	h := newTestServer(t, reference.Config{AdminKey: adminKey})
	state := func(auth, body string) (int, map[string]string) {
		w := do(t, h, testkit.Req{Method: "POST", Path: "/_admin/pact/state", Auth: auth, ContentType: "application/json", Body: body})
		var out map[string]string
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return w.Code, out
	}
	code, out := state(authed, `{"state":"an animal with the id exists","params":{"id":35,"name":"Rex","categoryId":7,"status":"sold"},"action":"setup"}`)
	require.Equal(t, http.StatusOK, code)
	got := call(t, h, "GET", "/v1/pets/"+out["id"], "")
	assert.JSONEq(t, `{"id":`+out["id"]+`,"name":"Rex","categoryId":7,"status":"sold"}`, got.Body.String())

	code, out = state("Bearer "+adminKey, `{"state":"no animal has the id","params":{"id":35}}`)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, http.StatusNotFound, call(t, h, "GET", "/v1/pets/"+out["id"], "").Code)

	code, _ = state(authed, `{"state":"","action":"setup"}`)
	assert.Equal(t, http.StatusOK, code, "an interaction without a state")
	code, _ = state(authed, `{"state":"a dragon exists"}`)
	assert.Equal(t, http.StatusBadRequest, code)
	code, _ = state(authed, `{"state":"an animal with the id exists","params":{"name":""}}`)
	assert.Equal(t, http.StatusBadRequest, code)
	code, _ = state("", `{"state":""}`)
	assert.Equal(t, http.StatusUnauthorized, code)
}

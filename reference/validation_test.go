package reference

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// Every operation of the spec has a handler and every handler an operation.
func TestHandlersMatchSpecOperations(t *testing.T) {
	var handled []string
	for id := range (&core.Server{}).Routes() {
		handled = append(handled, id)
		assert.Contains(t, shipped.ByID, id, "a hand-written handler for an operation the spec lacks")
	}
	sort.Strings(handled)
	assert.Equal(t, []string{spec.OpCreate, spec.OpGet, spec.OpList}, handled, "the documented operations are hand-written; others are served by their shape")
}

// A spec without an operation the server handles is refused at start.
func TestNewServerRefusesHandlerWithoutOperation(t *testing.T) {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	doc.Paths.Value("/pets").Post = nil
	_, err = NewServer(Config{Spec: doc, APIKeys: []string{testKey}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "createPet")
}

// broken handlers whose output breaks the spec, each caught by response validation.
var brokenHandlers = map[string]core.Handler{
	"pet without name": func(w *core.Recorder, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"id":1,"categoryId":1}]`))
	},
	"undocumented status": func(w *core.Recorder, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(`[]`))
	},
	"text body": func(w *core.Recorder, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok"))
	},
	"unknown status value": func(w *core.Recorder, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"id":1,"name":"Rex","categoryId":1,"status":"lost"}]`))
	},
}

func TestResponseValidationCatchesHandlerBugs(t *testing.T) {
	for name, broken := range brokenHandlers {
		t.Run(name, func(t *testing.T) {
			var logBuf bytes.Buffer
			h, err := newServer(Config{APIKeys: []string{testKey}, Log: &logBuf, Now: fixedNow},
				func(m map[string]core.Handler) { m["listPets"] = broken })
			require.NoError(t, err)
			w := do(t, h, get("/v1/pets"))
			require.Equal(t, http.StatusInternalServerError, w.Code, "body: %s", w.Body)
			assert.Equal(t, core.CodeInternal, errorBody(t, w).Code)
			assert.Contains(t, logBuf.String(), "response violates the spec: GET /v1/pets")

			// Lenient: logged, and the broken response goes out as it was.
			logBuf.Reset()
			h, err = newServer(Config{APIKeys: []string{testKey}, Log: &logBuf, Now: fixedNow, Lenient: true},
				func(m map[string]core.Handler) { m["listPets"] = broken })
			require.NoError(t, err)
			want := &core.Recorder{Headers: http.Header{}}
			broken(want, newRequest(t, "GET", "/v1/pets", nil))
			w = do(t, h, get("/v1/pets"))
			assert.Equal(t, want.Status, w.Code)
			assert.Equal(t, want.Body.String(), w.Body.String())
			assert.Contains(t, logBuf.String(), "response violates the spec")
		})
	}
}

// A panic in a handler becomes a 500 Error body, whatever the validation mode.
func TestPanicBecomesErrorBody(t *testing.T) {
	for _, cfg := range []Config{{}, {Lenient: true}, {NoValidation: true}} {
		var logBuf bytes.Buffer
		cfg.APIKeys, cfg.Log = []string{testKey}, &logBuf
		h, err := newServer(cfg, func(m map[string]core.Handler) {
			m["getPet"] = func(w *core.Recorder, r *http.Request) {
				w.Header().Set("Sunset", "soon") // must not leak into the replacement
				panic("handler bug")
			}
		})
		require.NoError(t, err)
		w := do(t, h, get("/v1/pets/1"))
		require.Equal(t, http.StatusInternalServerError, w.Code)
		assert.Equal(t, core.CodeInternal, errorBody(t, w).Code)
		// The handler's own header does not leak into the replacement; the operation's
		// Sunset, which every answer of a deprecated operation carries, is there.
		assert.Equal(t, "Thu, 05 Dec 2030 00:00:00 GMT", w.Header().Get("Sunset"))
		assert.Contains(t, logBuf.String(), "handler bug")
	}
}

func TestAccessLogNeverHasAuthorization(t *testing.T) {
	var logBuf bytes.Buffer
	h := newTestServer(t, Config{Log: &logBuf})
	secret := "Bearer " + testKey
	for _, rq := range []req{
		{method: "GET", path: "/v1/pets", auth: secret},
		{method: "GET", path: "/v1/pets", auth: "Bearer wrong-secret-key"},
		{method: "POST", path: "/v1/pets", auth: secret, contentType: jsonCT, body: `{"name":"Rex","categoryId":1,"status":"available"}`},
	} {
		do(t, h, rq)
	}
	logged := logBuf.String()
	assert.Contains(t, logged, `"GET /v1/pets HTTP/1.1" 200`)
	assert.Contains(t, logged, `"GET /v1/pets HTTP/1.1" 401`)
	assert.Contains(t, logged, `"POST /v1/pets HTTP/1.1" 201`)
	assert.NotContains(t, logged, testKey)
	assert.NotContains(t, logged, "wrong-secret-key")
	assert.NotContains(t, logged, "Bearer")
}

func TestCORSOnlyWhenConfigured(t *testing.T) {
	preflight := func(h http.Handler) http.Header {
		r := newRequest(t, "OPTIONS", "/v1/pets", nil)
		r.Header.Del("Authorization")
		r.Header.Set("Origin", "https://app.example")
		r.Header.Set("Access-Control-Request-Method", "POST")
		return serve(h, r).Header()
	}
	assert.Empty(t, preflight(newTestServer(t, Config{})).Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "https://app.example",
		preflight(newTestServer(t, Config{CORSOrigins: []string{"https://app.example"}})).Get("Access-Control-Allow-Origin"))
}

func TestHealthzAndOpenAPI(t *testing.T) {
	h := newTestServer(t, Config{})
	w := do(t, h, req{method: "GET", path: "/healthz"})
	assert.Equal(t, http.StatusOK, w.Code, "no key needed")

	w = do(t, h, req{method: "GET", path: "/openapi.yaml"})
	assert.Equal(t, http.StatusOK, w.Code)
	served, err := spec.Parse(w.Body.Bytes())
	require.NoError(t, err)
	own := "http://" + httptest.NewRequest("GET", "/", nil).Host + "/v1"
	assert.Equal(t, own, served.Servers[0].URL, "this server's own base URL first, so a generated client works as is")
	assert.Len(t, served.Servers, len(spec.MustLoad().Servers)+1, "then the deployments the spec names")
	assert.Equal(t, string(spec.Bytes()), strings.Replace(w.Body.String(),
		"  - url: \""+own+"\"\n    description: This server, which served this description.\n", "", 1), "the rest as written")

	// A given spec is served as marshalled, and parses back to the same operations.
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	doc.Info.Title = "Pet Store (custom)"
	h = newTestServer(t, Config{Spec: doc})
	w = do(t, h, req{method: "GET", path: "/openapi.yaml"})
	require.Equal(t, http.StatusOK, w.Code)
	back, err := spec.Parse(w.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "Pet Store (custom)", back.Info.Title)
	assert.Equal(t, operationIDs(t, doc), operationIDs(t, back))
	assert.Equal(t, own, back.Servers[0].URL)
}

// The served description's first server is the base URL the client reached: the Host it
// asked for and https under TLS or as a trusted proxy forwarded it.
func TestServedSpecNamesThisServer(t *testing.T) {
	srv := httptest.NewTLSServer(newTestServer(t, Config{}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/openapi.yaml")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	doc, err := spec.Parse(body)
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/v1", doc.Servers[0].URL)

	h := newTestServer(t, Config{ProxyHeaders: true})
	r := httptest.NewRequest("GET", "/openapi.yaml", nil)
	r.Host = "api.example:8443"
	r.Header.Set("X-Forwarded-Proto", "https")
	doc, err = spec.Parse(serve(h, r).Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "https://api.example:8443/v1", doc.Servers[0].URL)

	// A description without servers gets this server's; one whose servers are written
	// inline is left as written.
	assert.Equal(t, "openapi: 3.0.3\nservers:\n  - url: \"http://h/v1\"\n    description: This server.\n", string(core.WithOwnServer([]byte("openapi: 3.0.3\n"), "http://h/v1")))
	inline := []byte("openapi: 3.0.3\nservers: [{url: /v1}]\n")
	assert.Equal(t, inline, core.WithOwnServer(inline, "http://h/v1"))
}

// HEAD works wherever GET does outside the API (RFC 9110 9.3.2): the GET's headers, no body.
func TestHeadOutsideTheAPI(t *testing.T) {
	srv := httptest.NewServer(newTestServer(t, Config{}))
	defer srv.Close()
	for path, ctype := range map[string]string{"/healthz": "application/json", "/openapi.yaml": "application/yaml"} {
		resp, err := srv.Client().Head(srv.URL + path)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Equal(t, ctype, resp.Header.Get("Content-Type"), path)
		assert.Empty(t, body, path)
	}
}

func operationIDs(t *testing.T, doc *openapi3.T) []string {
	ops, err := spec.Operations(doc)
	require.NoError(t, err)
	var ids []string
	for _, op := range ops {
		ids = append(ids, op.ID)
	}
	return ids
}

func TestAdminReset(t *testing.T) {
	seed := seedOf(3)
	create := req{method: "POST", path: "/v1/pets", auth: authed, contentType: jsonCT, body: `{"name":"Rex","categoryId":1,"status":"available"}`}
	reset := func(auth string) req { return req{method: "POST", path: "/_admin/reset", auth: auth} }

	h := newTestServer(t, Config{Seed: seed})
	assert.Equal(t, http.StatusNotFound, do(t, h, reset("Bearer admin")).Code, "off without an admin key")

	h = newTestServer(t, Config{Seed: seed, AdminKey: "admin"})
	require.Equal(t, http.StatusCreated, do(t, h, create).Code)
	for _, auth := range []string{"", "Bearer " + testKey, "Bearer wrong"} {
		w := do(t, h, reset(auth))
		assert.Equal(t, http.StatusUnauthorized, w.Code, auth)
		assert.Equal(t, core.CodeUnauthorized, errorBody(t, w).Code)
	}
	assert.Len(t, pets(t, do(t, h, get("/v1/pets"))), 4)
	assert.Equal(t, http.StatusNoContent, do(t, h, reset("Bearer admin")).Code)
	got := pets(t, do(t, h, get("/v1/pets")))
	require.Len(t, got, 3)
	for i, p := range got {
		assert.Equal(t, core.Pet{ID: int64(i + 1), Name: seed[i].Name, CategoryID: seed[i].CategoryID, Status: seed[i].Status}, p)
	}
	w := do(t, h, create)
	assert.True(t, strings.HasSuffix(w.Header().Get("Location"), "/pets/5"), "id 4 went with the reset and is not reused")
}

func TestNewServerConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no keys":        {},
		"empty key":      {APIKeys: []string{""}},
		"key with space": {APIKeys: []string{"a b"}},
		"bad seed":       {APIKeys: []string{"k"}, Seed: []core.NewPet{{Name: "Rex", CategoryID: 1, Status: "lost"}}},
		"seed over cap":  {APIKeys: []string{"k"}, Seed: seedOf(3), MaxPets: 2},
	} {
		_, err := NewServer(cfg)
		assert.Error(t, err, name)
	}
}

func TestExtraEndpointsMethodsAndCleanPaths(t *testing.T) {
	h := newTestServer(t, Config{AdminKey: "admin"})
	for _, tc := range []struct {
		req   req
		allow string
	}{
		{req{method: "POST", path: "/healthz"}, "GET, HEAD"},
		{req{method: "DELETE", path: "/openapi.yaml"}, "GET, HEAD"},
		{req{method: "GET", path: "/_admin/reset", auth: "Bearer admin"}, "POST"},
	} {
		w := do(t, h, tc.req)
		assert.Equal(t, http.StatusMethodNotAllowed, w.Code, tc.req.path)
		assert.Equal(t, tc.allow, w.Header().Get("Allow"))
		assert.Equal(t, core.CodeMethodNotAllowed, errorBody(t, w).Code)
	}
	w := do(t, h, get("/v1//pets"))
	assert.Equal(t, http.StatusNotFound, w.Code, "no redirect for an unclean path")
	assert.Equal(t, core.CodeNotFound, errorBody(t, w).Code)
}

// Behind a reverse proxy the access log can show the forwarded client, and only when asked:
// a client can send X-Forwarded-For itself.
func TestProxyHeadersOnlyWhenConfigured(t *testing.T) {
	for _, trust := range []bool{false, true} {
		var logBuf bytes.Buffer
		h := newTestServer(t, Config{Log: &logBuf, ProxyHeaders: trust})
		r := newRequest(t, "GET", "/v1/pets", nil)
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("X-Forwarded-For", "203.0.113.7")
		assert.Equal(t, http.StatusOK, serve(h, r).Code)
		first := strings.Fields(logBuf.String())[0]
		if trust {
			assert.Equal(t, "203.0.113.7", first)
		} else {
			assert.Equal(t, "127.0.0.1", first)
		}
	}
}

package reference

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
)

// Keys that look real, and wrong keys that differ from them in one character, never reach
// the log or an error body, whatever the request does with them.
func TestKeysNeverInLogsOrErrors(t *testing.T) {
	const (
		key      = "ps_live_7f3a9c2e4b1d8f60a5c3e9b2d4f6a8c1"
		wrong    = "ps_live_7f3a9c2e4b1d8f60a5c3e9b2d4f6a8c2"
		admin    = "ps_admin_0b9e8d7c6a5f4e3d2c1b0a9f8e7d6c5b"
		wrongAdm = "ps_admin_0b9e8d7c6a5f4e3d2c1b0a9f8e7d6c5c"
	)
	var logBuf bytes.Buffer
	h := newTestServer(t, Config{APIKeys: []string{key}, AdminKey: admin, Log: &logBuf, Seed: seedOf(2)})
	var bodies []string
	for _, auth := range []string{"Bearer " + key, "Bearer " + wrong, "bearer  " + wrong, "Basic " + wrong,
		wrong, "Bearer " + wrong + " " + key, "Bearer " + admin, "Bearer " + wrongAdm} {
		for _, rq := range []req{
			{method: "GET", path: "/v1/pets"},
			{method: "GET", path: "/v1/pets?limit=0"},
			{method: "GET", path: "/v1/pets/abc"},
			{method: "GET", path: "/v1/pets/99"},
			{method: "POST", path: "/v1/pets", contentType: jsonCT, body: `{"name":"Rex"}`},
			{method: "POST", path: "/v1/pets", contentType: "text/plain", body: `{}`},
			{method: "DELETE", path: "/v1/pets/1"},
			{method: "POST", path: "/_admin/reset"},
			{method: "GET", path: "/v1/nowhere"},
		} {
			rq.auth = auth
			w := do(t, h, rq)
			if w.Code >= 400 {
				bodies = append(bodies, w.Body.String())
				errorBody(t, w)
			}
		}
	}
	require.NotEmpty(t, bodies)
	logged := logBuf.String()
	require.Contains(t, logged, `"GET /v1/pets HTTP/1.1" 401`, "the log was written")
	for _, secret := range []string{key, wrong, admin, wrongAdm, "7f3a9c2e", "0b9e8d7c", "Bearer", "Basic"} {
		assert.NotContains(t, logged, secret)
		for _, b := range bodies {
			assert.NotContains(t, b, secret)
		}
	}
}

// panickyLog is a log sink that breaks on one line: a panic outside every operation handler.
type panickyLog struct {
	trigger string
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (l *panickyLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(l.trigger)) {
		panic("log sink broken")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// A panic outside the operation handlers (here in the log writer that reports an off-spec
// response) still gets a 500 with an Error body, not gorilla's empty 500.
func TestPanicOutsideHandlersBecomesErrorBody(t *testing.T) {
	logw := &panickyLog{trigger: "response violates the spec"}
	h, err := newServer(Config{APIKeys: []string{testKey}, Log: logw, Now: fixedNow},
		func(m map[string]core.Handler) { m["listPets"] = brokenHandlers["pet without name"] })
	require.NoError(t, err)
	w := do(t, h, get("/v1/pets"))
	require.Equal(t, http.StatusInternalServerError, w.Code, "body: %s", w.Body)
	assert.Equal(t, core.CodeInternal, errorBody(t, w).Code)
	logw.mu.Lock()
	defer logw.mu.Unlock()
	assert.Contains(t, logw.buf.String(), "panic: GET /v1/pets: log sink broken")
}

// A panic after the response has started cannot become an Error: the handler aborts, so that
// net/http closes the connection instead of ending a truncated response cleanly.
func TestPanicAfterWriteAborts(t *testing.T) {
	h := core.Guard(&core.ErrorWriter{}, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		panic("late")
	}))
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() { serve(h, newRequest(t, "GET", "/", nil)) })
}

// corsReq is a request with CORS headers; auth and the preflight headers are optional.
type corsReq struct {
	method, origin, auth, acrMethod, acrHeaders string
}

func (c corsReq) request(t *testing.T) *http.Request {
	r := httptest.NewRequest(c.method, "/v1/pets", nil)
	for k, v := range map[string]string{"Origin": c.origin, "Authorization": c.auth,
		"Access-Control-Request-Method": c.acrMethod, "Access-Control-Request-Headers": c.acrHeaders} {
		if v != "" {
			r.Header.Set(k, v)
		}
	}
	return r
}

func TestCORS(t *testing.T) {
	const allowed, other = "https://app.example", "https://evil.example"
	on := newTestServer(t, Config{CORSOrigins: []string{allowed}})
	off := newTestServer(t, Config{})
	preflight := func(origin, method, headers string) corsReq {
		return corsReq{method: "OPTIONS", origin: origin, acrMethod: method, acrHeaders: headers}
	}
	for _, tc := range []struct {
		name   string
		h      http.Handler
		req    corsReq
		status int
		origin string // Access-Control-Allow-Origin; "" for none
	}{
		{"off: GET", off, corsReq{method: "GET", auth: authed, origin: allowed}, 200, ""},
		{"off: preflight", off, preflight(allowed, "POST", "authorization, content-type"), 405, ""},
		{"on: GET from the origin", on, corsReq{method: "GET", auth: authed, origin: allowed}, 200, allowed},
		{"on: 401 from the origin", on, corsReq{method: "GET", origin: allowed}, 401, allowed},
		{"on: GET from another origin", on, corsReq{method: "GET", auth: authed, origin: other}, 200, ""},
		{"on: GET without Origin", on, corsReq{method: "GET", auth: authed}, 200, ""},
		{"on: preflight", on, preflight(allowed, "POST", "authorization, content-type"), 204, allowed},
		{"on: preflight from another origin", on, preflight(other, "POST", "authorization"), 405, ""},
		{"on: preflight for a method no operation has", on, preflight(allowed, unusedMethod, ""), 405, ""},
		{"on: preflight for another header", on, preflight(allowed, "GET", "x-api-key"), 405, ""},
		{"on: OPTIONS without a method", on, corsReq{method: "OPTIONS", origin: allowed}, 405, ""},
		{"on: OPTIONS without Origin", on, preflight("", "GET", ""), 405, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(tc.h, tc.req.request(t))
			require.Equal(t, tc.status, w.Code, "body: %s", w.Body)
			assert.Equal(t, tc.origin, w.Header().Get("Access-Control-Allow-Origin"))
			switch {
			case w.Code >= 400:
				errorBody(t, w)
			case tc.status == http.StatusNoContent:
				assert.Empty(t, w.Body.String())
				assert.Contains(t, strings.ToLower(w.Header().Get("Access-Control-Allow-Headers")), "authorization")
			case tc.origin != "":
				assert.Contains(t, w.Header().Get("Access-Control-Expose-Headers"), "Deprecation")
			}
		})
	}
}

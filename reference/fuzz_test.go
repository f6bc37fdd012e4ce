package reference

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/spec"
)

// errorStatuses are the statuses any request may get besides those its operation documents:
// the limits of the server (section 8 leaves request size limits open), routing and
// authentication. 431 comes from net/http itself and never from the handler.
var errorStatuses = []int{400, 401, 404, 405, 413, 415, 431, 507}

const (
	fuzzAdminKey = "fuzz-admin-key"
	fuzzOrigin   = "https://app.example"
)

// fuzzTarget is built once per process: a validated server with CORS and the admin endpoint,
// a server without validation, and the spec's router to tell which operation a request hits.
var fuzzTarget = sync.OnceValues(func() (*fuzzServers, error) {
	doc, err := spec.Load()
	if err != nil {
		return nil, err
	}
	base, err := spec.BasePath(doc)
	if err != nil {
		return nil, err
	}
	rdoc := *doc
	rdoc.Servers = openapi3.Servers{{URL: base + "/"}}
	router, err := gorillamux.NewRouter(&rdoc)
	if err != nil {
		return nil, err
	}
	ops, err := spec.Operations(doc)
	if err != nil {
		return nil, err
	}
	fs := &fuzzServers{router: router, statuses: map[string][]int{}}
	for _, op := range ops {
		fs.statuses[op.ID] = op.Statuses
	}
	common := Config{APIKeys: []string{testKey}, Now: fixedNow, Seed: seedOf(5), MaxBodyBytes: 2048, MaxPets: 500}
	validated, unvalidated := common, common
	validated.AdminKey, validated.CORSOrigins = fuzzAdminKey, []string{fuzzOrigin}
	// The test double too: Prefer, the journal and the report (delays are not waited).
	validated.Double = double.Double{Scenarios: true, Journal: 64, Sleep: func(context.Context, time.Duration) {}}
	unvalidated.NoValidation = true
	for _, cfg := range []Config{validated, unvalidated} {
		h, err := NewServer(cfg)
		if err != nil {
			return nil, err
		}
		fs.handlers = append(fs.handlers, h)
	}
	return fs, nil
})

type fuzzServers struct {
	handlers []http.Handler
	router   routers.Router
	statuses map[string][]int // by operationId
}

// allowed lists the statuses r may get: its operation's documented ones, the server's own
// endpoints', and the error statuses.
func (fs *fuzzServers) allowed(r *http.Request) []int {
	out := slices.Clone(errorStatuses)
	if route, _, err := fs.router.FindRoute(r); err == nil {
		out = append(out, fs.statuses[route.Operation.OperationID]...)
	}
	switch {
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "/healthz" || r.URL.Path == "/openapi.yaml"):
		out = append(out, http.StatusOK)
	case r.Method == http.MethodPost && r.URL.Path == "/_admin/reset":
		out = append(out, http.StatusNoContent)
	case r.Method == http.MethodDelete && r.URL.Path == "/_admin/requests":
		out = append(out, http.StatusNoContent)
	case slices.Contains([]string{http.MethodGet, http.MethodHead, http.MethodPost}, r.Method) &&
		slices.Contains([]string{"/_admin/clock", "/_admin/requests", "/_admin/report", "/_admin/pact", "/_admin/pact/state"}, r.URL.Path):
		out = append(out, http.StatusOK) // POST only on the clock and a pact's state; elsewhere it gets a 405
	case r.Method == http.MethodOptions && r.Header.Get("Origin") != "":
		out = append(out, http.StatusNoContent) // a CORS preflight
	}
	return out
}

// FuzzHandler sends arbitrary requests, parsed from raw bytes the way net/http's server
// parses them, to the whole handler. Every answer is a status the request may get, never a
// 5xx, and every error carries a valid Error record.
func FuzzHandler(f *testing.F) {
	// More seeds, the interesting ones, are in testdata/fuzz/FuzzHandler.
	f.Add("GET", "/v1/pets?limit=2&status=sold", "Bearer "+testKey, "", "", "", "")
	f.Add("POST", "/v1/pets", "Bearer "+testKey, "application/json", "", "", `{"name":"Rex","categoryId":1}`)
	f.Add("GET", "/v1/pets/1", "bearer "+testKey, "", "", "", "")
	f.Fuzz(func(t *testing.T, method, target, auth, contentType, origin, extra, body string) {
		fs, err := fuzzTarget()
		require.NoError(t, err)
		raw := rawRequest(method, target, auth, contentType, origin, extra, body)
		for i, h := range fs.handlers {
			r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
			if err != nil {
				return // net/http's server answers these itself (400, 431, 505)
			}
			r.RemoteAddr = "127.0.0.1:1234"
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if msg := checkFuzzResponse(w, fs.allowed(r)); msg != "" {
				t.Fatalf("server %d: %s\nrequest:\n%q\nresponse %d %v\n%.500s", i, msg, raw, w.Code, w.Header(), w.Body)
			}
		}
	})
}

// rawRequest writes an HTTP/1.1 request; extra is sent verbatim among the headers, so the
// fuzzer can add Transfer-Encoding, a second Content-Length or garbage.
func rawRequest(method, target, auth, contentType, origin, extra, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: petstore.test\r\n", method, target)
	for _, h := range [][2]string{{"Authorization", auth}, {"Content-Type", contentType}, {"Origin", origin}} {
		if h[1] != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
		}
	}
	if extra != "" {
		b.WriteString(strings.TrimRight(extra, "\r\n") + "\r\n")
	}
	if body != "" && !strings.Contains(strings.ToLower(extra), "transfer-encoding") {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	return b.String()
}

// checkFuzzResponse returns what is wrong with a response, or "".
func checkFuzzResponse(w *httptest.ResponseRecorder, allowed []int) string {
	switch {
	case w.Code >= 500 && !slices.Contains(allowed, w.Code): // 507 when the store is full
		return "server error"
	case !slices.Contains(allowed, w.Code):
		return fmt.Sprintf("status %d is not among %v", w.Code, allowed)
	case w.Code < 400:
		return ""
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		return fmt.Sprintf("error with Content-Type %q", ct)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(w.Body.Bytes(), &fields); err != nil || len(fields) != 3 {
		return "error body is not an object of three fields"
	}
	var e struct {
		Code    *string
		Message *string
		Status  *int
	}
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Code == nil || e.Message == nil || e.Status == nil {
		return "error body is not an Error record"
	}
	switch {
	case *e.Status != w.Code:
		return fmt.Sprintf("Error.status %d differs from the HTTP status", *e.Status)
	case *e.Code == "" || *e.Message == "":
		return "empty Error code or message"
	case w.Code == http.StatusMethodNotAllowed && w.Header().Get("Allow") == "":
		return "405 without Allow"
	case w.Code == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") != "Bearer":
		return "401 without WWW-Authenticate: Bearer"
	}
	return ""
}

// A fuzzing process creates animals until the store is full: the 507 it then gets is one of
// the error statuses, not a server error (it failed FuzzHandler after some 500 creates).
func TestFuzzCheckTakesAFullStore(t *testing.T) {
	h := newTestServer(t, Config{APIKeys: []string{testKey}, MaxPets: 1})
	var w *httptest.ResponseRecorder
	for range 2 {
		w = do(t, h, req{method: http.MethodPost, path: "/v1/pets", auth: authed, contentType: "application/json",
			body: `{"name":"Rex","categoryId":1,"status":"` + shipped.Statuses[0] + `"}`})
	}
	require.Equal(t, http.StatusInsufficientStorage, w.Code)
	assert.Empty(t, checkFuzzResponse(w, errorStatuses))
}

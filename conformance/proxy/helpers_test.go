package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// testKey is long and distinctive so that a leak into a log or a HAR file cannot hide.
const testKey = "sk-test-0123456789abcdef"

// call is one client request; auth "" sends no Authorization header; header are further
// fields.
type call struct {
	method, path, auth, body string
	header                   http.Header
}

const bearer = "Bearer " + testKey

// readmeTraffic is the README's curl session: list, list with limit and status, create, get,
// an unknown id, and a request without the key.
var readmeTraffic = []call{
	{method: "GET", path: "/v1/pets", auth: bearer},
	{method: "GET", path: "/v1/pets?limit=1&status=available", auth: bearer},
	{method: "POST", path: "/v1/pets", auth: bearer, body: `{"name":"Rex","categoryId":1,"status":"available"}`},
	{method: "GET", path: "/v1/pets/1", auth: bearer},
	{method: "GET", path: "/v1/pets/999", auth: bearer},
	{method: "GET", path: "/v1/pets"},
}

// newReference serves a fresh reference server, seeded with two animals, behind wrap (nil:
// as it is).
func newReference(t *testing.T, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	return serveReference(t, reference.Config{
		APIKeys: []string{testKey},
		Seed: []reference.NewPet{
			{Name: "Tom", CategoryID: 2, Status: "available"},
			{Name: "Bella", CategoryID: 3, Status: "pending"},
		},
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}, wrap)
}

// documentSpec is document.Spec, the spec as the interface document fixes it: the reference
// serves it and the proxy checks against it unless a test gives another, so that the proxy's
// tests do not depend on what spec/openapi.yaml says.
func documentSpec(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := spec.Parse(document.Spec)
	require.NoError(t, err)
	return doc
}

// serveReference serves the reference server of cfg behind wrap (nil: as it is).
func serveReference(t *testing.T, cfg reference.Config, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	if cfg.Spec == nil {
		cfg.Spec = documentSpec(t)
	}
	h, err := reference.NewServer(cfg)
	require.NoError(t, err)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// newTestProxy serves a Proxy in front of upstream (a base URL), logging into the returned
// buffer.
func newTestProxy(t *testing.T, upstream string, cfg Config) (*httptest.Server, *Proxy, *syncBuffer) {
	t.Helper()
	u, err := url.Parse(upstream)
	require.NoError(t, err)
	logs := &syncBuffer{}
	cfg.Upstream, cfg.Log = u, logs
	if cfg.Spec == nil {
		cfg.Spec = documentSpec(t)
	}
	p, err := New(cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv, p, logs
}

// response is what a client received.
type response struct {
	status int
	header http.Header
	body   []byte
}

func send(t *testing.T, base string, c call) response {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	require.NoError(t, err)
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// errorRecord decodes an Error body.
func errorRecord(t *testing.T, r response) apiError {
	t.Helper()
	require.Equal(t, "application/json", r.header.Get("Content-Type"), string(r.body))
	var e apiError
	require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
	return e
}

// lines splits a log into its lines.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// deprecatedGetPet is the line of the judge's finding on a call of getPet, which the
// description deprecates (client/deprecated-operation, ADVISORY: reported, never failed).
func deprecatedGetPet(path string, status int) string {
	return fmt.Sprintf("client rule: client/deprecated-operation (ADVISORY, section 4.3; 9.3): GET %s: getPet is deprecated "+
		"and is removed on 2030-12-05; use listPets [GET %s -> %d]", path, path, status)
}

func findingLines(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for a server goroutine writing while a test reads; wrote
// is signalled after every write, so a test can wait for a line without sleeping.
type syncBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.wrote != nil {
		select {
		case b.wrote <- struct{}{}:
		default:
		}
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// faulty wraps the reference server with the faults of a broken deployment: list items
// without categoryId, 401 answered in text/plain, createPet answering 200 instead of 201,
// and getPet served without a key.
func faulty(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/v1/pets/") && r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", bearer) // accepts anonymous reads
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		status := rec.Code
		switch {
		case rec.Code == http.StatusUnauthorized:
			rec.Header().Set("Content-Type", "text/plain; charset=utf-8")
			body = []byte("unauthorized\n")
		case r.Method == "GET" && r.URL.Path == "/v1/pets" && rec.Code == http.StatusOK:
			var items []map[string]any
			if json.Unmarshal(body, &items) == nil {
				for _, it := range items {
					delete(it, "categoryId")
				}
				body, _ = json.Marshal(items)
			}
		case r.Method == "POST" && rec.Code == http.StatusCreated:
			status = http.StatusOK
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

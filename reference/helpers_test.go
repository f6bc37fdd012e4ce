package reference

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

const testKey = "test-key"

// fixedNow is a clock before getPet's sunset.
func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// newTestServer returns a server with the test key, the fixed clock and seed (cfg overrides).
func newTestServer(t testing.TB, cfg Config) http.Handler {
	t.Helper()
	if cfg.APIKeys == nil {
		cfg.APIKeys = []string{testKey}
	}
	if cfg.Now == nil {
		cfg.Now = fixedNow
	}
	h, err := NewServer(cfg)
	require.NoError(t, err)
	return h
}

// req describes one request; auth "" sends no Authorization header.
type req struct {
	method, path, auth, contentType, body string
}

// authed is the Authorization header with the test key.
const authed = "Bearer " + testKey

func do(t testing.TB, h http.Handler, rq req) *httptest.ResponseRecorder {
	t.Helper()
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	r := httptest.NewRequest(rq.method, rq.path, body)
	if rq.auth != "" {
		r.Header.Set("Authorization", rq.auth)
	}
	if rq.contentType != "" {
		r.Header.Set("Content-Type", rq.contentType)
	}
	return serve(h, r)
}

// newRequest is an authenticated JSON request.
func newRequest(t testing.TB, method, path string, body io.Reader) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, path, body)
	r.Header.Set("Authorization", authed)
	r.Header.Set("Content-Type", "application/json")
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// errorBody decodes an Error body and checks the record's shape and status field.
func errorBody(t testing.TB, w *httptest.ResponseRecorder) core.Error {
	t.Helper()
	require.Equal(t, "application/json", w.Header().Get("Content-Type"), "body: %s", w.Body)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &fields), "body: %s", w.Body)
	require.ElementsMatch(t, []string{"code", "message", "status"}, keys(fields), "body: %s", w.Body)
	var e core.Error
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e))
	require.Equal(t, w.Code, e.Status, "Error.status repeats the HTTP status")
	require.NotEmpty(t, e.Message)
	return e
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func pets(t testing.TB, w *httptest.ResponseRecorder) []core.Pet {
	t.Helper()
	require.Equal(t, http.StatusOK, w.Code, "body: %s", w.Body)
	var out []core.Pet
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out), "body: %s", w.Body)
	return out
}

// shipped are the facts of the embedded spec. Tests read the limit and whether a status is
// required from them rather than repeat them, so that an edit of the spec fails only the
// tests about what it changed.
var shipped = func() *spec.Facts {
	f, err := spec.ReadFacts(spec.MustLoad())
	if err != nil {
		panic(err)
	}
	return f
}()

// maxLimit is the spec's maximum of listPets' limit, and limitMax the query parameter that
// asks for it.
var (
	maxLimit = strconv.FormatInt(shipped.Limit.Max, 10)
	limitMax = "limit=" + maxLimit
	// aboveMax is one past the maximum.
	aboveMax = strconv.FormatInt(shipped.Limit.Max+1, 10)
)

// unusedMethod is a method no operation of the spec has, for the tests of 405.
var unusedMethod = func() string {
	for _, m := range []string{http.MethodDelete, http.MethodPut, http.MethodPatch} {
		if !slices.ContainsFunc(shipped.Ops, func(o spec.Operation) bool { return o.Method == m }) {
			return m
		}
	}
	panic("the spec has DELETE, PUT and PATCH operations: the tests of 405 need a method it has not")
}()

// allowHeader is the Allow header of a path of the spec ("/pets/{petId}"): its methods, sorted.
func allowHeader(path string) string {
	var ms []string
	for _, o := range shipped.Ops {
		if o.Path == path {
			ms = append(ms, o.Method)
			if o.Method == "GET" {
				ms = append(ms, "HEAD") // served as GET (RFC 9110 9.3.2)
			}
		}
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}

// someStatuses are the statuses seeds and loads cycle through: three values and none (one of
// them again when the spec requires a status).
var someStatuses = func() []string {
	s := []string{"available", "pending", "sold", ""}
	if core.StatusRequired(shipped) {
		s[3] = s[0]
	}
	return s
}()

// seedOf returns n animals cycling through someStatuses.
func seedOf(n int) []core.NewPet {
	statuses := someStatuses
	out := make([]core.NewPet, n)
	for i := range out {
		out[i] = core.NewPet{Name: "pet" + strconv.Itoa(i+1), CategoryID: int64(i % 7), Status: statuses[i%4]}
	}
	return out
}

// factsOf reads the facts of doc, as NewServer does.
func factsOf(t testing.TB, doc *openapi3.T) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(doc)
	require.NoError(t, err)
	return f
}

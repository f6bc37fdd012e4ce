package double_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/reference/internal/testkit"
	"github.com/petstore/petstore/spec"
)

const adminKey = "admin-key-0123456789"

// call sends one request with the test key and extra header pairs ("Prefer", "code=404").
func call(t testing.TB, h http.Handler, method, path, body string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := newRequest(t, method, path, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return serve(h, r)
}

// admin sends one request with the admin key.
func admin(t testing.TB, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return call(t, h, method, path, body, "Authorization", "Bearer "+adminKey)
}

// sleeper records what the server asked to wait, and returns at once.
type sleeper struct {
	mu    sync.Mutex
	asked []time.Duration
}

func (s *sleeper) sleep(_ context.Context, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, d)
}

func (s *sleeper) take() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.asked
	s.asked = nil
	return out
}

// Time travel: the server's clock decides whether getPet is gone; POST /_admin/clock moves
// it across the removal date and back, reset restores it, and the Sunset header is there
// exactly as long as the operation is.
func TestClockMovesAcrossRemoval(t *testing.T) {
	op, err := spec.FindOperation(spec.MustLoad(), "getPet")
	require.NoError(t, err)
	h := newTestServer(t, reference.Config{Seed: seedOf(1), AdminKey: adminKey})
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/v1/pets/1", "").Code)

	w := admin(t, h, "POST", "/_admin/clock", `{"now":"`+op.Sunset.Format(time.DateOnly)+`"}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body)
	assert.JSONEq(t, `{"now":"2030-12-05T00:00:00Z"}`, w.Body.String())
	w = call(t, h, "GET", "/v1/pets/1", "")
	require.Equal(t, http.StatusNotFound, w.Code)
	assert.Contains(t, errorBody(t, w).Message, "was removed on 2030-12-05; use listPets")
	assert.Empty(t, w.Header().Get("Sunset"))
	assert.JSONEq(t, `{"now":"2030-12-05T00:00:00Z"}`, admin(t, h, "GET", "/_admin/clock", "").Body.String())

	require.Equal(t, http.StatusOK, admin(t, h, "POST", "/_admin/clock", `{"now":"2030-12-04T23:59:59Z"}`).Code)
	w = call(t, h, "GET", "/v1/pets/1", "")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "Thu, 05 Dec 2030 00:00:00 GMT", w.Header().Get("Sunset"))

	require.Equal(t, http.StatusOK, admin(t, h, "POST", "/_admin/clock", `{"now":"2031-01-01"}`).Code)
	require.Equal(t, http.StatusNoContent, admin(t, h, "POST", "/_admin/reset", "").Code)
	assert.Equal(t, http.StatusOK, call(t, h, "GET", "/v1/pets/1", "").Code, "reset restores the clock")

	for body, want := range map[string]int{
		`{"now":"tomorrow"}`:               http.StatusBadRequest,
		`{"when":"2031-01-01"}`:            http.StatusBadRequest,
		`{"now":"9999-01-01"}`:             http.StatusBadRequest, // beyond a time.Duration
		`not json`:                         http.StatusBadRequest,
		`{"now":"2031-01-01T00:00:00+01"}`: http.StatusBadRequest,
	} {
		w := admin(t, h, "POST", "/_admin/clock", body)
		assert.Equal(t, want, w.Code, body)
		assert.Equal(t, core.CodeInvalidRequest, errorBody(t, w).Code, body)
	}
	w = call(t, h, "POST", "/_admin/clock", `{"now":"2031-01-01"}`) // the API key is not the admin key
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Equal(t, core.CodeUnauthorized, errorBody(t, w).Code)
	w = admin(t, h, "PUT", "/_admin/clock", "")
	assert.Equal(t, "GET, HEAD, POST", w.Header().Get("Allow"))
}

// reference.Config.Now set to a date after removal (what --now does): getPet answers as the README
// says it will, and reference.Server.SetNow moves the clock back.
func TestStartAfterRemoval(t *testing.T) {
	after := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	srv, err := reference.New(reference.Config{APIKeys: []string{testKey}, Seed: seedOf(1), AdminKey: adminKey,
		Now: func() time.Time { return after }})
	require.NoError(t, err)
	w := call(t, srv, "GET", "/v1/pets/1", "")
	require.Equal(t, http.StatusNotFound, w.Code)
	assert.Equal(t, core.CodeNotFound, errorBody(t, w).Code)
	require.NoError(t, srv.SetNow(after.AddDate(-1, 0, 0)))
	assert.Equal(t, http.StatusOK, call(t, srv, "GET", "/v1/pets/1", "").Code)

	plain, err := reference.New(reference.Config{APIKeys: []string{testKey}})
	require.NoError(t, err)
	assert.ErrorIs(t, plain.SetNow(after), double.ErrNoClock)
}

// Prefer: code=NNN answers a documented status with a valid body, refuses an undocumented
// one with a 400 that says why, and is ignored without Scenarios.
func TestPreferCode(t *testing.T) {
	h := newTestServer(t, reference.Config{Seed: seedOf(1), Double: double.Double{Scenarios: true}})
	w := call(t, h, "GET", "/v1/pets/1", "", "Prefer", "code=404")
	require.Equal(t, http.StatusNotFound, w.Code)
	e := errorBody(t, w)
	assert.Equal(t, core.CodeNotFound, e.Code)
	assert.Contains(t, e.Message, "Prefer: code=404")
	assert.Equal(t, "code=404", w.Header().Get("Preference-Applied"))
	assert.NotEmpty(t, w.Header().Get("Sunset"), "a chosen answer of getPet is still one of getPet")

	w = call(t, h, "GET", "/v1/pets/1", "", "Prefer", "code=418")
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, "Prefer: code=418: getPet does not document that status; it documents 200, 400, 401, 404 (and 429 or 503 may always be chosen)", errorBody(t, w).Message)

	for name, tc := range map[string]struct {
		method, path, body string
		prefer             string
		want               int
		wantCode           string
	}{
		"revoked key":            {"GET", "/v1/pets", "", "code=401", 401, core.CodeUnauthorized},
		"chosen 400, no create":  {"POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"available"}`, "code=400", 400, core.CodeInvalidRequest},
		"success is the normal":  {"POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"available"}`, "code=201", 201, ""},
		"not a number":           {"GET", "/v1/pets", "", "code=abc", 400, core.CodeInvalidRequest},
		"other preferences":      {"GET", "/v1/pets", "", "return=minimal, respond-async", 200, ""},
		"case and quotes":        {"GET", "/v1/pets/1", "", `Code="404"; x=1`, 404, core.CodeNotFound},
		"the request first":      {"GET", "/v1/pets?limit=0", "", "code=404", 400, core.CodeInvalidRequest},
		"a missing animal stays": {"GET", "/v1/pets/99", "", "code=200", 404, core.CodeNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			w := call(t, h, tc.method, tc.path, tc.body, "Prefer", tc.prefer)
			require.Equal(t, tc.want, w.Code, w.Body)
			if tc.wantCode != "" {
				assert.Equal(t, tc.wantCode, errorBody(t, w).Code)
			}
		})
	}
	assert.Equal(t, "code=200", call(t, h, "GET", "/v1/pets/1", "", "Prefer", "code=200").Header().Get("Preference-Applied"),
		"a success chosen is echoed when it is the answer")
	assert.Empty(t, call(t, h, "GET", "/v1/pets/99", "", "Prefer", "code=200").Header().Get("Preference-Applied"),
		"and not when the answer is another")
	assert.Equal(t, "code=201", call(t, h, "POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"available"}`, "Prefer", "code=201").Header().Get("Preference-Applied"))
	assert.Len(t, pets(t, call(t, h, "GET", "/v1/pets", "")), 3, "the seed and the two 201s: a chosen 400 created nothing")
	assert.Equal(t, "Bearer", call(t, h, "GET", "/v1/pets", "", "Prefer", "code=401").Header().Get("WWW-Authenticate"))

	r := httptest.NewRequest("GET", "/v1/pets/1", nil)
	r.Header.Set("Prefer", "code=200")
	assert.Equal(t, http.StatusUnauthorized, serve(h, r).Code, "the key first, whatever is preferred")

	off := newTestServer(t, reference.Config{Seed: seedOf(1)})
	for _, prefer := range []string{"code=404", "code=418", "delay=99999999"} {
		w := call(t, off, "GET", "/v1/pets/1", "", "Prefer", prefer)
		assert.Equal(t, http.StatusOK, w.Code, "without Scenarios Prefer is ignored: %s", prefer)
		assert.Empty(t, w.Header().Get("Preference-Applied"))
	}
}

// A server without scenarios answers a Prefer: code= as if it were not there, and says once
// in its log how to turn scenarios on.
func TestPreferIgnoredIsLogged(t *testing.T) {
	var log strings.Builder
	h := newTestServer(t, reference.Config{Seed: seedOf(1), Log: &log})
	call(t, h, "GET", "/v1/pets", "", "Prefer", "return=minimal")
	assert.NotContains(t, log.String(), "--scenarios", "a preference the double never honours is no question")
	for range 3 {
		assert.Equal(t, http.StatusOK, call(t, h, "GET", "/v1/pets/1", "", "Prefer", "code=404").Code)
	}
	assert.Equal(t, 1, strings.Count(log.String(), `a request asks for "code=404" in Prefer, which this server ignores: start it with --scenarios`), log.String())
}

// A chosen answer is validated like any other: with a spec whose getPet 404 is not an
// Error, the chosen Error breaks it and strict mode replaces it with a 500.
func TestPreferCodeIsValidated(t *testing.T) {
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	get := doc.Paths.Value("/pets/{petId}").Get
	get.Responses.Status(404).Value.Content = openapi3.NewContentWithJSONSchemaRef(
		openapi3.NewSchemaRef("", openapi3.NewStringSchema()))
	h := newTestServer(t, reference.Config{Spec: doc, Seed: seedOf(1), Double: double.Double{Scenarios: true}})
	w := call(t, h, "GET", "/v1/pets/1", "", "Prefer", "code=404")
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Equal(t, core.CodeInternal, errorBody(t, w).Code)
}

// Prefer: delay=MS and Latency ask the sleeper; nothing waits on the wall clock here.
func TestDelayAndLatencyAskTheSleeper(t *testing.T) {
	var s sleeper
	h := newTestServer(t, reference.Config{Seed: seedOf(1), Double: double.Double{Scenarios: true, Sleep: s.sleep}})
	w := call(t, h, "GET", "/v1/pets/1", "", "Prefer", "delay=250, code=404")
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Equal(t, "delay=250, code=404", w.Header().Get("Preference-Applied"))
	assert.Equal(t, []time.Duration{250 * time.Millisecond}, s.take())
	w = call(t, h, "GET", "/v1/pets", "", "Prefer", "delay=10001")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, errorBody(t, w).Message, "from 0 to 10000")
	assert.Empty(t, s.take(), "a refused delay is not waited")

	h = newTestServer(t, reference.Config{Double: double.Double{Latency: 40 * time.Millisecond, Sleep: s.sleep}})
	assert.Equal(t, http.StatusOK, call(t, h, "GET", "/v1/pets", "").Code)
	assert.Equal(t, http.StatusUnauthorized, do(t, h, testkit.Req{Method: "GET", Path: "/v1/pets"}).Code)
	assert.Equal(t, http.StatusOK, do(t, h, testkit.Req{Method: "GET", Path: "/healthz"}).Code)
	assert.Equal(t, []time.Duration{40 * time.Millisecond, 40 * time.Millisecond}, s.take(), "every API answer, not /healthz")
}

// FailRate answers the share of requests the random source puts under it with a 503.
func TestFailRate(t *testing.T) {
	var next atomic.Value
	h := newTestServer(t, reference.Config{Double: double.Double{FailRate: 0.25, Rand: func() float64 { return next.Load().(float64) }}})
	next.Store(0.2)
	w := call(t, h, "GET", "/v1/pets", "")
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Equal(t, double.CodeUnavailable, errorBody(t, w).Code)
	next.Store(0.25)
	assert.Equal(t, http.StatusOK, call(t, h, "GET", "/v1/pets", "").Code)
}

// RateLimit: per second of the server's clock; the rest of the second gets 429.
func TestRateLimit(t *testing.T) {
	var now atomic.Int64
	start := time.Date(2026, 1, 2, 3, 4, 5, 250_000_000, time.UTC)
	now.Store(start.UnixNano())
	h := newTestServer(t, reference.Config{Double: double.Double{RateLimit: 3},
		Now: func() time.Time { return time.Unix(0, now.Load()).UTC() }})
	for i := range 3 {
		require.Equal(t, http.StatusOK, call(t, h, "GET", "/v1/pets", "").Code, i)
	}
	w := call(t, h, "GET", "/v1/pets", "")
	require.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Equal(t, double.CodeRateLimited, errorBody(t, w).Code)
	assert.Equal(t, http.StatusOK, do(t, h, testkit.Req{Method: "GET", Path: "/healthz"}).Code, "outside the API")
	now.Store(start.Add(750 * time.Millisecond).UnixNano())
	assert.Equal(t, http.StatusOK, call(t, h, "GET", "/v1/pets", "").Code, "the next second")
}

func TestDoubleConfigErrors(t *testing.T) {
	for name, d := range map[string]double.Double{
		"negative latency": {Latency: -time.Second},
		"fail rate above":  {FailRate: 1.5},
		"negative limit":   {RateLimit: -1},
		"huge journal":     {Journal: double.MaxJournal + 1},
	} {
		_, err := reference.NewServer(reference.Config{APIKeys: []string{testKey}, Double: d})
		assert.Error(t, err, name)
	}
}

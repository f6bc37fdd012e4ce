// Package testkit holds what the tests of the reference's packages share (reference and
// reference/double): the test key, a fixed clock, requests, readers of answers, the shipped
// spec's facts and seeds. Only tests import it.
package testkit

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// TestKey is the API key of the tests' servers, and Authed the Authorization field with it.
const (
	TestKey = "test-key"
	Authed  = "Bearer " + TestKey
)

// FixedNow is a clock before getPet's sunset.
func FixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// Req describes one request; Auth "" sends no Authorization header.
type Req struct {
	Method, Path, Auth, ContentType, Body string
}

// Do sends rq to h.
func Do(t testing.TB, h http.Handler, rq Req) *httptest.ResponseRecorder {
	t.Helper()
	var body io.Reader
	if rq.Body != "" {
		body = strings.NewReader(rq.Body)
	}
	r := httptest.NewRequest(rq.Method, rq.Path, body)
	if rq.Auth != "" {
		r.Header.Set("Authorization", rq.Auth)
	}
	if rq.ContentType != "" {
		r.Header.Set("Content-Type", rq.ContentType)
	}
	return Serve(h, r)
}

// NewRequest is an authenticated JSON request.
func NewRequest(t testing.TB, method, path string, body io.Reader) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, path, body)
	r.Header.Set("Authorization", Authed)
	r.Header.Set("Content-Type", "application/json")
	return r
}

// Serve sends r to h and returns the answer.
func Serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// ErrorBody decodes an Error body and checks the record's shape and status field.
func ErrorBody(t testing.TB, w *httptest.ResponseRecorder) core.Error {
	t.Helper()
	require.Equal(t, "application/json", w.Header().Get("Content-Type"), "body: %s", w.Body)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &fields), "body: %s", w.Body)
	require.ElementsMatch(t, []string{"code", "message", "status"}, slices.Collect(maps.Keys(fields)), "body: %s", w.Body)
	var e core.Error
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e))
	require.Equal(t, w.Code, e.Status, "Error.status repeats the HTTP status")
	require.NotEmpty(t, e.Message)
	return e
}

// Pets decodes a 200 answer's list of animals.
func Pets(t testing.TB, w *httptest.ResponseRecorder) []core.Pet {
	t.Helper()
	require.Equal(t, http.StatusOK, w.Code, "body: %s", w.Body)
	var out []core.Pet
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out), "body: %s", w.Body)
	return out
}

// Shipped are the facts of the embedded spec. Tests read the limit and whether a status is
// required from them rather than repeat them, so that an edit of the spec fails only the
// tests about what it changed.
var Shipped = func() *spec.Facts {
	f, err := spec.ReadFacts(spec.MustLoad())
	if err != nil {
		panic(err)
	}
	return f
}()

// MaxLimit is the spec's maximum of listPets' limit, and LimitMax the query parameter that
// asks for it.
var (
	MaxLimit = strconv.FormatInt(Shipped.Limit.Max, 10)
	LimitMax = "limit=" + MaxLimit
)

// SomeStatuses are the statuses seeds and loads cycle through: three values and none (one of
// them again when the spec requires a status).
var SomeStatuses = func() []string {
	s := []string{"available", "pending", "sold", ""}
	if core.StatusRequired(Shipped) {
		s[3] = s[0]
	}
	return s
}()

// SeedOf returns n animals cycling through SomeStatuses.
func SeedOf(n int) []core.NewPet {
	out := make([]core.NewPet, n)
	for i := range out {
		out[i] = core.NewPet{Name: "pet" + strconv.Itoa(i+1), CategoryID: int64(i % 7), Status: SomeStatuses[i%4]}
	}
	return out
}

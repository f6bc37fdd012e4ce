package reference

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/testkit"
	"github.com/petstore/petstore/spec"
)

// The helpers every test of the reference's packages shares (testkit), by their names here.
const (
	testKey = testkit.TestKey
	authed  = testkit.Authed // the Authorization field with the test key
)

var (
	fixedNow           = testkit.FixedNow
	newRequest         = testkit.NewRequest
	serve              = testkit.Serve
	errorBody          = testkit.ErrorBody
	pets               = testkit.Pets
	seedOf             = testkit.SeedOf
	someStatuses       = testkit.SomeStatuses
	shipped            = testkit.Shipped
	maxLimit, limitMax = testkit.MaxLimit, testkit.LimitMax
	// aboveMax is one past the maximum.
	aboveMax = strconv.FormatInt(shipped.Limit.Max+1, 10)
)

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

func do(t testing.TB, h http.Handler, rq req) *httptest.ResponseRecorder {
	t.Helper()
	return testkit.Do(t, h, testkit.Req{Method: rq.method, Path: rq.path, Auth: rq.auth, ContentType: rq.contentType, Body: rq.body})
}

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

// factsOf reads the facts of doc, as NewServer does.
func factsOf(t testing.TB, doc *openapi3.T) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(doc)
	require.NoError(t, err)
	return f
}

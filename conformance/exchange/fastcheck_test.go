package exchange

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// answerCase is an answer to one of the description's operations.
type answerCase struct {
	op     string
	status int
	ct     string
	body   string
}

// kinAccepts is the verdict the fast check stands in for: kin-openapi's validation of the
// answer, as Session.validate asks for it.
func kinAccepts(t testing.TB, f *spec.Facts, a answerCase) bool {
	t.Helper()
	o := f.ByID[a.op]
	path := strings.ReplaceAll(f.BasePath+o.Path, "{petId}", "7")
	req, err := http.NewRequest(o.Method, "http://target.invalid"+path, nil)
	require.NoError(t, err)
	rt := f.Validator.RouteOf(req)
	require.NoError(t, rt.Err)
	return len(f.Validator.ValidateRoutedResponse(req, rt, a.status, header(a.ct), []byte(a.body))) == 0
}

func header(ct string) http.Header {
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return h
}

func fastPasses(f *spec.Facts, checks responseChecks, a answerCase) bool {
	o := f.ByID[a.op]
	return checks.passes(o.Op, o.Method, a.status, header(a.ct), []byte(a.body))
}

func facts(t testing.TB) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	return f
}

// The fast check of an answer is the session's use of the one schema checker
// (internal/schemacheck, which is held to kin-openapi there): these tests hold what
// fastcheck.go adds, the choice of a response's schema by status and media type, to the
// validation it stands in for.

// validAnswers are answers kin-openapi accepts, in each media type spelling it takes as
// JSON: the fast check must pass them too, or it would not be the fast path it is there for.
func validAnswers() []answerCase {
	pet := `{"id":9223372036854775807,"name":"Caf\u00e9","categoryId":-0,"status":"sold","x":[{}]}`
	var out []answerCase
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		out = append(out,
			answerCase{spec.OpList, 200, ct, "[" + pet + "," + pet + "]"},
			answerCase{spec.OpList, 200, ct, "[]"},
			answerCase{spec.OpCreate, 201, ct, pet},
			answerCase{spec.OpGet, 200, ct, " " + pet + "\n"},
			answerCase{spec.OpGet, 404, ct, `{"code":"not_found","message":"pet 42 not found","status":404}`},
			answerCase{spec.OpList, 400, ct, `{"status":400,"code":"bad","message":"limit"}`},
			answerCase{spec.OpCreate, 401, ct, `{"code":"x","message":"y","status":401}`},
		)
	}
	return out
}

// The fast check passes every valid answer, and passes only what kin-openapi accepts over
// answers at the edges of statuses and media types.
func TestFastCheckAgreesWithKinOpenAPI(t *testing.T) {
	f := facts(t)
	checks := compileResponses(f)
	for _, o := range []string{spec.OpList, spec.OpCreate, spec.OpGet} {
		require.NotEmpty(t, checks[f.ByID[o].Op], "%s: no response compiled", o)
	}
	for _, a := range validAnswers() {
		require.True(t, kinAccepts(t, f, a), "the test's valid answer is not: %+v", a)
		assert.True(t, fastPasses(f, checks, a), "valid, yet not passed: %+v", a)
	}
	edges := []answerCase{
		{spec.OpList, 200, "application/json", ""},
		{spec.OpList, 200, "application/json", "null"},
		{spec.OpList, 200, "application/json", "[null]"},
		{spec.OpList, 200, "application/json", "[] []"},
		{spec.OpList, 200, "text/plain", "[]"},
		{spec.OpList, 200, "", "[]"},
		{spec.OpList, 200, "application/jſon", "[]"},
		{spec.OpList, 200, "application/json-patch+json", "[]"},
		{spec.OpList, 200, "*/*", "[]"},
		{spec.OpList, 201, "application/json", "[]"},
		{spec.OpList, 500, "application/json", "[]"},
		{spec.OpGet, 404, "application/json", `{"code":"x","message":"y"}`},
	}
	for _, a := range edges {
		if fastPasses(f, checks, a) {
			assert.True(t, kinAccepts(t, f, a), "passed, yet kin-openapi refuses it: %+v", a)
		}
	}
	o := f.ByID[spec.OpList]
	assert.False(t, checks.passes(o.Op, "HEAD", 200, header("application/json"), []byte("[]")), "a HEAD answer is kin-openapi's")
}

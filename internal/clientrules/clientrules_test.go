package clientrules

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/level"
	"github.com/petstore/petstore/spec"
)

func facts(t *testing.T) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	return f
}

// Every rule has an ID, a section, a level and a title, and Find finds each.
func TestRulesVocabulary(t *testing.T) {
	rules := Rules(facts(t))
	require.Len(t, rules, 8)
	for _, r := range rules {
		assert.True(t, strings.HasPrefix(r.ID, "client/"), r.ID)
		assert.NotEmpty(t, r.Section, r.ID)
		assert.NotEmpty(t, r.Title, r.ID)
		got, ok := Find(rules, r.ID)
		assert.True(t, ok)
		assert.Equal(t, r, got)
	}
	r, _ := Find(rules, RetryAfter)
	assert.Equal(t, level.Should, r.Level)
	r, _ = Find(rules, DeprecatedOp)
	assert.Equal(t, level.Advisory, r.Level)
	_, ok := Find(rules, "client/nothing")
	assert.False(t, ok)
}

// judged is what the judge finds in one request to the spec as shipped.
func judged(t *testing.T, j *Judge, method, target string, header http.Header, status int) []Finding {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for k, vs := range header {
		r.Header[k] = vs
	}
	op := ""
	if route, _, err := facts(t).Validator.Route(r); err == nil {
		op = route.Operation.OperationID
	}
	return j.Judge(Request{R: r, Method: method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Operation: op,
		Status: status, At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Wall: j.Wall(), Answered: j.Wall()})
}

func rulesOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

// The judge names each rule a request breaks, with the request in its words, the key masked.
func TestJudgeNamesTheRulesBroken(t *testing.T) {
	f := facts(t)
	hide := func(s string) string { return strings.ReplaceAll(s, "sekret", "<redacted>") }
	j := New(f, Options{Mask: hide, Value: hide, Query: hide})
	keyed := http.Header{"Authorization": {"Bearer sekret"}}
	assert.Empty(t, judged(t, j, "GET", "/v1/pets?limit=1", keyed, 200))
	assert.Equal(t, []string{AuthBearer}, rulesOf(judged(t, j, "GET", "/v1/pets", nil, 401)))
	fs := judged(t, j, "GET", "/v1/pets?limit=0&api_key=sekret", keyed, 400)
	assert.ElementsMatch(t, []string{AuthBearer, LimitInBounds}, rulesOf(fs))
	for _, f := range fs {
		assert.NotContains(t, f.Message, "sekret")
	}
	assert.Equal(t, []string{StatusInEnum}, rulesOf(judged(t, j, "GET", "/v1/pets?status=lost", keyed, 400)))
	assert.Equal(t, []string{DocumentedPaths}, rulesOf(judged(t, j, "DELETE", "/v1/pets", keyed, 405)))
	assert.Equal(t, []string{JSONBody}, rulesOf(judged(t, j, "POST", "/v1/pets", keyed, 400)), "no Content-Type")
}

// A request before the end of the wait a 429 asked for breaks client/retry-after; one after
// it does not.
func TestJudgeHoldsRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := New(facts(t), Options{Wall: func() time.Time { return now }})
	keyed := http.Header{"Authorization": {"Bearer k"}}
	r := httptest.NewRequest("GET", "/v1/pets", nil)
	r.Header = keyed
	assert.Empty(t, j.Judge(Request{R: r, Method: "GET", Path: "/v1/pets", Operation: spec.OpList, Status: 429,
		AnswerHeader: http.Header{"Retry-After": {"2"}}, At: now, Wall: now, Answered: now, Arrived: 1, AnsweredAfter: 1}))
	early := j.Judge(Request{R: r, Method: "GET", Path: "/v1/pets", Operation: spec.OpList, Status: 200, At: now,
		Wall: now.Add(time.Second), Arrived: 2})
	require.Equal(t, []string{RetryAfter}, rulesOf(early))
	assert.Equal(t, "GET /v1/pets came 1s before the end of the wait that the 429 to GET /v1/pets (Retry-After: 2) asked for", early[0].Message)
	assert.Empty(t, j.Judge(Request{R: r, Method: "GET", Path: "/v1/pets", Operation: spec.OpList, Status: 200, At: now,
		Wall: now.Add(3 * time.Second), Arrived: 3}))
}

// A request judged before its answer is sent (a proxy's) sets no wait until AnswerSent says
// the answer reached the client.
func TestJudgeNotesTheWaitOfAnAnswerSent(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := New(facts(t), Options{Wall: func() time.Time { return now }})
	r := httptest.NewRequest("GET", "/v1/pets", nil)
	r.Header = http.Header{"Authorization": {"Bearer k"}}
	limited := Request{R: r, Method: "GET", Path: "/v1/pets", Operation: spec.OpList, Status: 429,
		AnswerHeader: http.Header{"Retry-After": {"2"}}, At: now, Wall: now, Answered: now, Arrived: 1, AnsweredAfter: 1, AnswerLater: true}
	retry := func(n uint64) Request {
		return Request{R: r, Method: "GET", Path: "/v1/pets", Operation: spec.OpList, Status: 200, At: now, Wall: now.Add(time.Second), Arrived: n}
	}
	assert.Empty(t, j.Judge(limited))
	assert.Empty(t, j.Judge(retry(2)), "the 429 was not sent: no wait")
	j.AnswerSent(limited)
	assert.Equal(t, []string{RetryAfter}, rulesOf(j.Judge(retry(3))))
}

// RuleOf names the client rule of each request violation the spec's validator finds, and
// none for a response's.
func TestRuleOfViolations(t *testing.T) {
	v := facts(t).Validator
	for target, want := range map[string]string{
		"GET /v1/pets?limit=500":  LimitInBounds,
		"GET /v1/pets?status=x":   StatusInEnum,
		"GET /v1/nothing":         DocumentedPaths,
		"POST /v1/pets {}":        JSONBody,
		"GET /v1/pets (no token)": AuthBearer,
	} {
		method, rest, _ := strings.Cut(target, " ")
		path, body, _ := strings.Cut(rest, " ")
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "(no token)" {
			r.Header.Set("Authorization", "Bearer k")
		}
		if body == "{}" {
			r.Header.Set("Content-Type", "application/json")
		}
		vs := v.ValidateRequest(r, []byte(body))
		require.NotEmpty(t, vs, target)
		for _, viol := range vs {
			assert.Equal(t, want, RuleOf(viol), "%s: %+v", target, viol)
		}
	}
	assert.Empty(t, RuleOf(spec.Violation{Direction: spec.Response, Location: "header Authorization"}))
}

// A value quoted in a finding is masked as a value: a short key sent as a limit (Qz7), which
// the masking of free text leaves, is not written out.
func TestQuotedValuesMaskedAsValues(t *testing.T) {
	f := facts(t)
	value := func(s string) string { return strings.ReplaceAll(s, "Qz7", "<redacted>") }
	j := New(f, Options{Mask: func(s string) string { return s }, Value: value, Query: value})
	var quoted []string
	for _, fd := range judged(t, j, "GET", "/v1/pets?limit=Qz7&status=Qz7", http.Header{"Authorization": {"Bearer Qz7"}}, 400) {
		if fd.Rule != AuthBearer { // its words quote the query as the caller masked it
			_, after, _ := strings.Cut(fd.Message, ": ")
			quoted = append(quoted, after)
		}
	}
	assert.ElementsMatch(t, []string{"limit <redacted> is not one integer from 1 to 100", "status <redacted> is not one of available, pending, sold"}, quoted)
}

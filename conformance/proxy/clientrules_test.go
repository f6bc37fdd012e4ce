package proxy

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/clientrules"
)

// judgedTwice sends calls through a proxy in front of upstream (a base URL), recording them,
// and returns what the client got, the proxy's summary and check-har's summary of the
// recorded file; the proxy's log and check-har's findings are the same lines, but for how
// early a request came (the proxy's clock and the HAR file's differ by microseconds).
func judgedTwice(t *testing.T, upstream string, cfg Config, calls ...call) (got []response, live, recorded Summary) {
	t.Helper()
	cfg.Record = NewRecorder()
	px, p, logs := newTestProxy(t, upstream, cfg)
	for _, c := range calls {
		got = append(got, send(t, px.URL, c))
	}
	var har bytes.Buffer
	_, err := cfg.Record.WriteTo(&har)
	require.NoError(t, err)
	recorded, err = CheckHAR(&har, documentSpec(t))
	require.NoError(t, err)
	live = p.Summary()
	assert.Equal(t, lines(logs.String()), findingLines(live.Findings), "the log")
	assert.Equal(t, untimedLines(live.Findings), untimedLines(recorded.Findings), "check-har of the recorded file")
	assert.Equal(t, live.ClientFindings, recorded.ClientFindings)
	return got, live, recorded
}

// early is how early a request came, in a client/retry-after finding.
var early = regexp.MustCompile(`came \d+(\.\d+)?m?s before`)

// untimedLines are the lines of fs, how early a request came left out.
func untimedLines(fs []Finding) []string {
	out := findingLines(fs)
	for i, l := range out {
		out[i] = early.ReplaceAllString(l, "came ... before")
	}
	return out
}

// clientFindings are the findings of kind client-rule.
func clientFindings(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Kind == KindClientRule {
			out = append(out, f)
		}
	}
	return out
}

// A client that sends its key in the query as well as a bearer token breaks a MUST rule
// (client/auth-bearer) that the description cannot see: the proxy reports it, fails the
// exchange with --fail-on-violation and the session; the HAR file, its key masked, says the
// same.
func TestClientKeyInTheQuery(t *testing.T) {
	got, live, recorded := judgedTwice(t, newReference(t, nil).URL+"/v1", Config{FailOnViolation: true},
		call{method: "GET", path: "/v1/pets?api_key=" + testKey, auth: bearer})
	want := []string{"client rule: client/auth-bearer (MUST, section 5.1-5.2): GET /v1/pets?api_key=*** sent the key in the query string [GET /v1/pets?api_key=*** -> 200]"}
	assert.Equal(t, want, findingLines(live.Findings))
	for _, sum := range []Summary{live, recorded} {
		assert.Zero(t, sum.Violations, "the description has nothing against it")
		assert.Equal(t, map[string]int{"MUST": 1}, sum.ClientFindings)
		assert.True(t, sum.Fails())
		require.Len(t, sum.Findings, 1)
		f := sum.Findings[0]
		assert.Equal(t, KindClientRule, f.Kind)
		assert.Equal(t, clientrules.Rule{ID: clientrules.AuthBearer, Section: "5.1-5.2", Level: f.ClientRule.Level, Title: f.ClientRule.Title}, *f.ClientRule)
		assert.Equal(t, "MUST", f.ClientRule.Level.String())
		assert.Equal(t, "listPets", f.Operation)
	}
	assert.Equal(t, http.StatusBadGateway, got[0].status, "a MUST client rule broken fails the exchange")
	e := errorRecord(t, got[0])
	assert.Equal(t, "contract_violation", e.Code)
	assert.Contains(t, e.Message, "client/auth-bearer (MUST, section 5.1-5.2)")
	assert.NotContains(t, e.Message, testKey)

	t.Run("a cookie is not the key", func(t *testing.T) {
		// The proxy masks a cookie as a secret, in the HAR file too, but it is no key.
		_, live, recorded := judgedTwice(t, newReference(t, nil).URL+"/v1", Config{FailOnViolation: true},
			call{method: "GET", path: "/v1/pets", auth: bearer, header: http.Header{"Cookie": {"session=0123456789abcdef"}}})
		assert.Empty(t, live.Findings)
		assert.Empty(t, recorded.Findings)
	})
	t.Run("the key in another header", func(t *testing.T) {
		_, live, _ := judgedTwice(t, newReference(t, nil).URL+"/v1", Config{},
			call{method: "GET", path: "/v1/pets", auth: bearer, header: http.Header{"X-Api-Key": {testKey}}})
		assert.Equal(t, []string{"client rule: client/auth-bearer (MUST, section 5.1-5.2): GET /v1/pets sent the key in the X-Api-Key header [GET /v1/pets -> 200]"},
			findingLines(live.Findings))
	})
}

// rateLimitedOnce answers the first listing with 429 and Retry-After: 30, the rest as the
// reference does.
func rateLimitedOnce(h http.Handler) http.Handler {
	var n atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/pets" && n.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"code":"rate_limited","message":"slow down","status":429}`))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// A client that retries at once after a 429 asking it to wait 30 s breaks a SHOULD rule
// (client/retry-after): reported and counted, the session does not fail on it. The proxy
// judges the wait on its arrivals, check-har on the entries' startedDateTime.
func TestClientRetriesBeforeRetryAfter(t *testing.T) {
	listing := call{method: "GET", path: "/v1/pets", auth: bearer}
	got, live, recorded := judgedTwice(t, newReference(t, rateLimitedOnce).URL+"/v1", Config{}, listing, listing)
	require.Equal(t, http.StatusTooManyRequests, got[0].status)
	require.Equal(t, http.StatusOK, got[1].status)
	for name, sum := range map[string]Summary{"proxy": live, "check-har": recorded} {
		client := clientFindings(sum.Findings)
		require.Len(t, client, 1, name)
		f := client[0]
		assert.Equal(t, clientrules.RetryAfter, f.ClientRule.ID, name)
		assert.Equal(t, "SHOULD", f.ClientRule.Level.String(), name)
		assert.False(t, f.Fails(), name)
		assert.Regexp(t, `^client rule: client/retry-after \(SHOULD, section RFC 9110 10.2.3; 8\): GET /v1/pets came \d+(\.\d+)?s before the end of the wait `+
			`that the 429 to GET /v1/pets \(Retry-After: 30\) asked for \[GET /v1/pets -> 200\]$`, f.String(), name)
		assert.Equal(t, map[string]int{"SHOULD": 1}, sum.ClientFindings, name)
		// The 429 itself is the server's: the description documents no 429 for listPets.
		assert.Equal(t, 1, sum.Violations, name)
		assert.True(t, strings.Contains(sum.Findings[0].String(), "status 429 is not documented"), sum.Findings[0].String())
	}

	t.Run("a 502 in the 429's place asks no wait", func(t *testing.T) {
		// --fail-on-violation answers the undocumented 429 with 502: the client never sees
		// its Retry-After, and its retry is not early. The HAR file keeps the 429, marked.
		got, live, recorded := judgedTwice(t, newReference(t, rateLimitedOnce).URL+"/v1", Config{FailOnViolation: true}, listing, listing)
		require.Equal(t, http.StatusBadGateway, got[0].status)
		assert.Empty(t, got[0].header.Get("Retry-After"))
		require.Equal(t, http.StatusOK, got[1].status)
		for name, sum := range map[string]Summary{"proxy": live, "check-har": recorded} {
			assert.Empty(t, clientFindings(sum.Findings), name)
			assert.Equal(t, 1, sum.Violations, name)
		}
	})
}

// A call of the deprecated getPet is an ADVISORY finding (client/deprecated-operation):
// reported, counted, never failed, even with --fail-on-violation.
func TestClientCallsDeprecatedGetPet(t *testing.T) {
	got, live, recorded := judgedTwice(t, newReference(t, nil).URL+"/v1", Config{FailOnViolation: true},
		call{method: "GET", path: "/v1/pets/1", auth: bearer})
	assert.Equal(t, http.StatusOK, got[0].status, "not turned into 502")
	assert.JSONEq(t, `{"id":1,"name":"Tom","categoryId":2,"status":"available"}`, string(got[0].body))
	for _, sum := range []Summary{live, recorded} {
		assert.Equal(t, []string{deprecatedGetPet("/v1/pets/1", 200)}, findingLines(sum.Findings))
		assert.Equal(t, "ADVISORY", sum.Findings[0].ClientRule.Level.String())
		assert.Zero(t, sum.Violations)
		assert.Equal(t, map[string]int{"ADVISORY": 1}, sum.ClientFindings)
		assert.False(t, sum.Fails(), "the session does not fail")
		var text strings.Builder
		require.NoError(t, sum.WriteText(&text))
		assert.Contains(t, text.String(), "checked 1 exchange under /v1: 0 violations, 0 ignored (not API calls)\n"+
			"client rules broken: 1 ADVISORY (requests' findings by level; SHOULD and ADVISORY do not fail)\n")
	}
}

// lenientLimit serves limit=0 as if the request had no limit, where the reference answers 400.
func lenientLimit(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.RawQuery = strings.ReplaceAll(r.URL.RawQuery, "limit=0", "")
		h.ServeHTTP(w, r)
	})
}

// limit=0 breaks the description and client/limit-in-bounds: one finding, the violation
// named by its client rule, not the judge's finding of the same rule too. Refused as the
// description documents (400), it is the spec's own answer: no finding at all.
func TestClientLimitZeroIsOneFinding(t *testing.T) {
	limit0 := call{method: "GET", path: "/v1/pets?limit=0", auth: bearer}
	t.Run("accepted", func(t *testing.T) {
		got, live, recorded := judgedTwice(t, newReference(t, lenientLimit).URL+"/v1", Config{FailOnViolation: true}, limit0)
		assert.Equal(t, http.StatusBadGateway, got[0].status)
		for _, sum := range []Summary{live, recorded} {
			require.Len(t, sum.Findings, 1, findingLines(sum.Findings))
			f := sum.Findings[0]
			assert.Empty(t, f.Kind, "a violation of the description")
			assert.Equal(t, `violation: listPets request at query limit: parameter "limit" in query: number must be at least 1 `+
				`(#/paths/~1pets/get/parameters/0/schema/minimum) [GET /v1/pets?limit=0 -> 200]`, f.String())
			require.NotNil(t, f.ClientRule)
			assert.Equal(t, clientrules.LimitInBounds, f.ClientRule.ID)
			assert.Equal(t, 1, sum.Violations)
			assert.Empty(t, sum.ClientFindings)
		}
	})
	t.Run("refused as documented", func(t *testing.T) {
		got, live, recorded := judgedTwice(t, newReference(t, nil).URL+"/v1", Config{FailOnViolation: true}, limit0)
		assert.Equal(t, http.StatusBadRequest, got[0].status)
		assert.Empty(t, live.Findings)
		assert.Empty(t, recorded.Findings)
	})
}

// A query parameter named like a key (token, key) is masked, but its value is not taken for
// the API key: a well-behaved client's ?key=20 made every later ?limit=20 a MUST finding and,
// with --fail-on-violation, a 502.
func TestQueryParameterNamedKeyIsNotTheKey(t *testing.T) {
	px, p, _ := newTestProxy(t, newReference(t, nil).URL+"/v1", Config{FailOnViolation: true})
	send(t, px.URL, call{method: "GET", path: "/v1/pets?key=20", auth: bearer})
	got := send(t, px.URL, call{method: "GET", path: "/v1/pets?limit=20", auth: bearer})
	assert.Equal(t, http.StatusOK, got.status)
	assert.Empty(t, p.Summary().ClientFindings["MUST"], "%v", findingLines(p.Summary().Findings))
}

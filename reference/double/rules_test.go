package double_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/level"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
)

// fakeWall is a wall clock that moves only when told.
type fakeWall struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeWall) now() time.Time      { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeWall) add(d time.Duration) { f.mu.Lock(); defer f.mu.Unlock(); f.t = f.t.Add(d) }

// exchange is one request of a client: method, path, body and header pairs.
type exchange struct {
	method, path, body string
	headers            []string
}

var (
	keyed     = []string{"Authorization", authed}
	jsonKeyed = []string{"Authorization", authed, "Content-Type", "application/json"}
)

// Each client rule, with a client that breaks it and one that does not: the report counts
// the breaking requests only, with the rule's level, and the verdict fails on a MUST rule.
func TestClientRules(t *testing.T) {
	for _, tc := range []struct {
		rule          string
		level         level.Level
		breaks, keeps []exchange
	}{
		{double.RuleAuthBearer, double.LevelMust,
			[]exchange{{"GET", "/v1/pets", "", nil}},
			[]exchange{{"GET", "/v1/pets", "", keyed}}},
		{double.RuleAuthBearer, double.LevelMust,
			[]exchange{{"GET", "/v1/pets?api_key=" + testKey, "", keyed}},
			[]exchange{{"GET", "/v1/pets?limit=2", "", keyed}}},
		// No Authorization header and the key in the query: one request that broke the rule.
		{double.RuleAuthBearer, double.LevelMust,
			[]exchange{{"GET", "/v1/pets?api_key=" + testKey, "", nil}},
			[]exchange{{"GET", "/v1/pets?limit=2", "", keyed}}},
		{double.RuleAuthBearer, double.LevelMust,
			[]exchange{{"GET", "/v1/pets", "", []string{"Authorization", testKey}}},
			[]exchange{{"GET", "/v1/pets", "", []string{"Authorization", "bearer " + testKey}}}},
		{double.RuleAuthBearer, double.LevelMust,
			[]exchange{{"GET", "/v1/pets", "", []string{"Authorization", authed, "X-Api-Key", testKey}}},
			[]exchange{{"GET", "/v1/pets", "", []string{"Authorization", authed, "X-Trace", "abc"}}}},
		{double.RuleLimitInBounds, double.LevelMust,
			[]exchange{{"GET", "/v1/pets?limit=500", "", keyed}, {"GET", "/v1/pets?limit=0", "", keyed}},
			[]exchange{{"GET", "/v1/pets?" + limitMax, "", keyed}, {"GET", "/v1/pets?limit=1", "", keyed}}},
		{double.RuleStatusInEnum, double.LevelMust,
			[]exchange{{"GET", "/v1/pets?status=lost", "", keyed}},
			[]exchange{{"GET", "/v1/pets?status=sold", "", keyed}}},
		{double.RuleJSONBody, double.LevelMust,
			[]exchange{{"POST", "/v1/pets", `{"name":"Rex"}`, jsonKeyed}, {"POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"available"}`, []string{"Authorization", authed, "Content-Type", "text/plain"}}},
			[]exchange{{"POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"available"}`, jsonKeyed}}},
		{double.RuleRemovedOp, double.LevelMust,
			[]exchange{{"GET", "/v1/pets/1", "", keyed}}, // the clock is moved past the removal below
			[]exchange{{"GET", "/v1/pets?status=available", "", keyed}}},
		{double.RuleDeprecatedOp, double.LevelAdvisory,
			[]exchange{{"GET", "/v1/pets/1", "", keyed}},
			[]exchange{{"GET", "/v1/pets?status=available", "", keyed}}},
		{double.RuleDocumentedPaths, double.LevelMust,
			[]exchange{{"GET", "/pets", "", keyed}, {"DELETE", "/v1/pets", "", keyed}},
			[]exchange{{"GET", "/v1/pets", "", keyed}, {"GET", "/openapi.yaml", "", nil}}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			for _, client := range []struct {
				name string
				sent []exchange
				want int
			}{{"breaks", tc.breaks, len(tc.breaks)}, {"keeps", tc.keeps, 0}} {
				srv, err := reference.New(reference.Config{APIKeys: []string{testKey}, AdminKey: adminKey, Now: fixedNow, Seed: seedOf(2), Double: double.Double{Journal: 10}})
				require.NoError(t, err)
				if tc.rule == double.RuleRemovedOp {
					require.NoError(t, srv.SetNow(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)))
				}
				for _, x := range client.sent {
					r := httptest.NewRequest(x.method, x.path, strings.NewReader(x.body))
					for i := 0; i+1 < len(x.headers); i += 2 {
						r.Header.Set(x.headers[i], x.headers[i+1])
					}
					serve(srv, r)
				}
				rep, err := srv.Report()
				require.NoError(t, err)
				rule := ruleOf(t, rep, tc.rule)
				assert.Equal(t, tc.level, rule.Level)
				assert.Equal(t, client.want, rule.Violations, "%s: %v", client.name, rule.Examples)
				broken := len(rep.MustBroken()) > 0
				assert.Equal(t, client.want > 0 && tc.level == double.LevelMust, broken, "%s: %v", client.name, rep.MustBroken())
				assert.Equal(t, map[bool]string{true: "fail", false: "pass"}[broken], rep.Verdict)
				assert.Empty(t, rep.MustBroken(tc.rule), "opted out of the rule")
				for _, ex := range rule.Examples {
					assert.NotContains(t, ex, testKey, "the key is masked")
				}
			}
		})
	}
}

func ruleOf(t *testing.T, rep double.ClientReport, id string) double.ClientRule {
	t.Helper()
	for _, r := range rep.Rules {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no rule %s", id)
	return double.ClientRule{}
}

// client/retry-after is judged in arrival order: a request that arrived before the 503
// was written, and was answered after it (its handler held in a delay), did not ignore
// the wait; one that arrived after the 503 at the same instant of the wall clock did.
func TestClientRuleRetryAfterCountsArrivalsNotAnswers(t *testing.T) {
	wall := &fakeWall{t: time.Unix(1_800_000_000, 0)}
	inDelay, release := make(chan struct{}), make(chan struct{})
	srv, err := reference.New(reference.Config{APIKeys: []string{testKey}, Now: fixedNow, Seed: seedOf(1),
		Double: double.Double{Scenarios: true, Journal: 10, WallClock: wall.now,
			Sleep: func(context.Context, time.Duration) { close(inDelay); <-release }}})
	require.NoError(t, err)
	held := make(chan *httptest.ResponseRecorder)
	go func() { held <- call(t, srv, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "delay=10") }()
	<-inDelay // arrived, not answered
	w := call(t, srv, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "code=503")
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	close(release)
	require.Equal(t, http.StatusOK, (<-held).Code)
	rep, err := srv.Report()
	require.NoError(t, err)
	assert.Zero(t, ruleOf(t, rep, double.RuleRetryAfter).Violations, "the held request came before the 503")

	call(t, srv, "GET", "/v1/pets", "", keyed...) // after the 503, no time passed
	rep, err = srv.Report()
	require.NoError(t, err)
	assert.Equal(t, 1, ruleOf(t, rep, double.RuleRetryAfter).Violations)
}

// client/retry-after: a request before the end of the wait a 429 or 503 asked for breaks
// it (SHOULD: a warning, not a failed verdict); one after does not. The wall clock is the
// test's, so nothing waits.
func TestClientRuleRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		waited time.Duration
		want   int
	}{{"retries at once", 0, 1}, {"retries too soon", 900 * time.Millisecond, 1}, {"waits as asked", time.Second, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			wall := &fakeWall{t: time.Unix(1_800_000_000, 0)}
			srv, err := reference.New(reference.Config{APIKeys: []string{testKey}, Now: fixedNow, Seed: seedOf(1),
				Double: double.Double{Scenarios: true, Journal: 10, WallClock: wall.now}})
			require.NoError(t, err)
			w := call(t, srv, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "code=503")
			require.Equal(t, http.StatusServiceUnavailable, w.Code)
			wall.add(tc.waited)
			call(t, srv, "GET", "/v1/pets", "", keyed...)
			rep, err := srv.Report()
			require.NoError(t, err)
			rule := ruleOf(t, rep, double.RuleRetryAfter)
			assert.Equal(t, double.LevelShould, rule.Level)
			assert.Equal(t, tc.want, rule.Violations, rule.Examples)
			assert.Equal(t, "pass", rep.Verdict)
			if tc.want > 0 {
				assert.Contains(t, rule.Examples[0], "before the end of the wait that the 503 to GET /v1/pets (Retry-After: 1) asked for")
			}
		})
	}
}

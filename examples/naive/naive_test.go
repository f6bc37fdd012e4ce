package naive_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/examples/naive"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/referencetest"
	"github.com/petstore/petstore/spec"
)

// start serves the reference, varied by seed (0: plain), with one animal in the store; its
// latency jitter is not slept.
func start(t *testing.T, seed uint64) (*referencetest.Server, *naive.Client) {
	srv := referencetest.Start(t, referencetest.Options{
		Vary: seed,
		Seed: []reference.NewPet{{Name: "Old", CategoryID: 1, Status: "available"}},
		Config: func(cfg *reference.Config) {
			cfg.Double.Sleep = func(context.Context, time.Duration) {}
		},
	})
	return srv, &naive.Client{BaseURL: srv.URL, Key: srv.APIKey, HTTP: http.DefaultClient}
}

// Against the plain reference the naive client works: ids count from 1, the listing comes
// in the order of creation, and nothing asks it to wait.
func TestNaivePassesAgainstThePlainReference(t *testing.T) {
	srv, c := start(t, 0)
	rex, err := c.Add("Rex", 1)
	require.NoError(t, err)
	got, err := c.Get(rex.ID)
	require.NoError(t, err)
	assert.Equal(t, rex, got)
	newest, err := c.Newest()
	require.NoError(t, err)
	assert.Equal(t, "Rex", newest.Name)
	for range 100 {
		_, err := c.Add("Tom", 2)
		require.NoError(t, err)
	}
	assert.Zero(t, violations(srv, double.RuleRetryAfter))
}

// Against petstore serve --vary, each habit of the naive client fails under a seed whose
// choices expose it, and the test names the cause. (These tests pass because the client
// fails: they show what a varied server finds.)
func TestNaiveFailsAgainstVary(t *testing.T) {
	t.Run("cause: ids beyond 2^53 read as float64", func(t *testing.T) {
		const seed = 4
		require.Equal(t, double.IDsBeyond53, double.ChooseVariations(seed).IDs)
		srv, c := start(t, seed)
		rex, err := c.Add("Rex", 1)
		require.NoError(t, err)
		exact := exactID(t, srv, "Rex")
		assert.NotEqual(t, exact, strconv.FormatFloat(rex.ID, 'f', 0, 64), "a float64 cannot hold the id")
		_, err = c.Get(rex.ID)
		assert.EqualError(t, err, "GET /v1/pets/"+strconv.FormatFloat(rex.ID, 'f', 0, 64)+": 404 Not Found",
			"the id the client read is not the animal's")
	})
	t.Run("cause: relies on the listing's order", func(t *testing.T) {
		const seed = 2
		require.Equal(t, double.OrderReversed, double.ChooseVariations(seed).Order)
		_, c := start(t, seed)
		_, err := c.Add("Rex", 1)
		require.NoError(t, err)
		newest, err := c.Newest()
		require.NoError(t, err)
		assert.NotEqual(t, "Rex", newest.Name, "the last of the listing is not the newest: the document gives no order")
	})
	t.Run("cause: retries at once after a 429 or 503", func(t *testing.T) {
		const seed = 5
		require.NotZero(t, double.ChooseVariations(seed).FaultEvery)
		srv, c := start(t, seed)
		for range 100 {
			_, err := c.Add("Tom", 2)
			require.NoError(t, err, "the request sent again at once happens to pass")
		}
		assert.NotZero(t, violations(srv, double.RuleRetryAfter),
			"but it came before the end of the wait Retry-After asked for (client/retry-after)")
	})
}

// exactID is the id of the animal named name as the server wrote it, read as text. A
// varied listing may leave the animal out of one page (a short page), so it asks again.
func exactID(t *testing.T, srv *referencetest.Server, name string) string {
	t.Helper()
	limit, err := spec.QueryInt(spec.MustLoad(), spec.OpList, "limit") // the spec's bounds
	require.NoError(t, err)
	for range 20 {
		resp, err := srv.Client().Get(srv.URL + "/pets?limit=" + strconv.FormatInt(limit.Max, 10))
		require.NoError(t, err)
		var pets []struct {
			ID   json.Number `json:"id"`
			Name string      `json:"name"`
		}
		dec := json.NewDecoder(resp.Body)
		dec.UseNumber()
		err = dec.Decode(&pets)
		resp.Body.Close()
		require.NoError(t, err)
		for _, p := range pets {
			if p.Name == name {
				return p.ID.String()
			}
		}
	}
	t.Fatalf("no animal named %s in 20 listings", name)
	return ""
}

// violations counts the requests that broke a client rule.
func violations(srv *referencetest.Server, rule string) int {
	for _, r := range srv.Report().Rules {
		if r.ID == rule {
			return r.Violations
		}
	}
	return 0
}

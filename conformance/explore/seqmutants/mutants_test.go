package seqmutants

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/explore"
	"github.com/petstore/petstore/spec"
)

// The fast subset of make explore-mutants: every sequence mutant is found within its budget
// on one seed, and the replay file written for it fails again against a fresh server, run
// the way conformance replay runs it. A deterministic fault's file fails on every run, and
// so does its shrunk sequence, which is no longer than what was explored; an intermittent
// fault (a 500 at random, a race) is replayed more often and must fail at least once: explore
// settles such a fault on a sequence that failed at least three in four of its replays, and
// a sequence that fails even half of its runs passes twenty in a row about once in a
// million. The whole table (20 seeds) is make explore-mutants.
func TestMutantsFoundWithinBudget(t *testing.T) {
	doc := spec.MustLoad()
	for _, m := range Catalogue() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel() // mostly waiting: the allowed lag, shrinking deadlines
			intermittent := m.Name == "intermittent-500" || m.Name == "racing-ids"
			replays, fileRuns := 2, 3
			if intermittent {
				replays, fileRuns = 10, 20
			}
			o, err := RunOne(context.Background(), doc, m, 1, Options{ShrinkTime: 6 * time.Second, Replays: replays, ReplayFileRuns: fileRuns,
				Lag: 100 * time.Millisecond})
			require.NoError(t, err)
			require.True(t, o.Found, "%s not found within %s", m.Name, m.Budget)
			f := o.Report.Findings[0]
			t.Logf("%s: %s after %s; shrunk from %s to %s; %s; the replay file failed %d of %d runs", m.Name, f.Rule,
				o.After.Round(time.Millisecond), f.Original, f.Shrunk.Size(), f.ReplayLine(), o.Reproduced, fileRuns)
			assert.LessOrEqual(t, o.Report.Steps, m.Budget.Steps)
			assert.NotEmpty(t, f.Trace)
			if intermittent {
				assert.Equal(t, explore.Intermittent, f.Class)
			} else {
				assert.Equal(t, explore.Deterministic, f.Class)
				assert.LessOrEqual(t, f.Shrunk.Len(), o.Report.Steps)
			}
			assert.Equal(t, fileRuns, o.ReplayRuns)
			assert.True(t, o.Reproduces(), "the replay file of %s failed %d of %d runs", m.Name, o.Reproduced, fileRuns)
		})
	}
}

// No false findings against servers that make the document's open choices otherwise:
// newest-first order, random ids, short pages, a listing lag of a few hundred milliseconds,
// another client creating animals, and all of them at once.
func TestAllowedServersHaveNoFindings(t *testing.T) {
	doc := spec.MustLoad()
	for _, m := range Allowed() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 2; seed++ {
				o, err := RunOne(context.Background(), doc, m, seed, Options{Budget: Budget{Workers: 4, Steps: 500}, ShrinkTime: time.Second, Replays: 1,
					Lag: 2 * ListingLag})
				require.NoError(t, err)
				if !assert.False(t, o.Found, "seed %d", seed) {
					f := o.Report.Findings[0]
					t.Logf("%s: %s", f.Rule, f.Message)
				}
				assert.Greater(t, o.Report.Created, int64(50))
			}
		})
	}
}

// The servers really do make their choices: a listing of the newest-first server starts with
// the newest animal, the random-ids one hands out large ids, the lagging one hides a new
// animal and then shows it.
func TestAllowedServersDiffer(t *testing.T) {
	doc := spec.MustLoad()
	byName := map[string]Mutant{}
	for _, m := range Allowed() {
		byName[m.Name] = m
	}
	f, err := spec.ReadFacts(doc)
	require.NoError(t, err)
	// With a status, so that the body is valid whether or not the spec requires one.
	create := func(c *client, name string) string {
		return c.do(t, "POST", "/pets", fmt.Sprintf(`{"name":%q,"categoryId":1,"status":%q}`, name, f.Statuses[0]))
	}
	t.Run("newest-first", func(t *testing.T) {
		c := newClient(t, doc, byName["newest-first"])
		create(c, "old")
		create(c, "new")
		body := c.do(t, "GET", "/pets", "")
		assert.Less(t, strings.Index(body, `"new"`), strings.Index(body, `"old"`))
	})
	t.Run("random-ids", func(t *testing.T) {
		c := newClient(t, doc, byName["random-ids"])
		assert.Regexp(t, `"id":\d{10,}`, create(c, "r"))
	})
	t.Run("listing-lag", func(t *testing.T) {
		c := newClient(t, doc, byName["listing-lag"])
		create(c, "lagging")
		assert.NotContains(t, c.do(t, "GET", "/pets", ""), "lagging")
		// The bound is about a listing that never shows the animal, not about the lag: it
		// returns as soon as the animal shows.
		assert.Eventually(t, func() bool { return strings.Contains(c.do(t, "GET", "/pets", ""), "lagging") }, time.Minute, 20*time.Millisecond)
	})
}

package careful_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/examples/careful"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/referencetest"
	"github.com/petstore/petstore/spec"
)

// wallClock is the time of the test: the client's waits move it, and the server judges
// whether the client waited as Retry-After asked by it, so nothing waits for real.
type wallClock struct {
	mu sync.Mutex
	t  time.Time
}

func (w *wallClock) now() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.t }

func (w *wallClock) sleep(d time.Duration) { w.mu.Lock(); defer w.mu.Unlock(); w.t = w.t.Add(d) }

// The careful client passes against the plain reference (seed 0) and against every seed
// from 1 to 10 of petstore serve --vary: big ids, any order, short pages, chunked bodies,
// names in any script, and the 429 and 503 it waits out. referencetest fails the test if
// it breaks a MUST rule of the document; the SHOULD of Retry-After is checked here.
func TestCarefulPassesAgainstTheReferenceAndEveryVariedSeed(t *testing.T) {
	limit, err := spec.QueryInt(spec.MustLoad(), spec.OpList, "limit") // the spec's bounds
	require.NoError(t, err)
	for seed := uint64(0); seed <= 10; seed++ {
		t.Run("vary "+strconv.FormatUint(seed, 10), func(t *testing.T) {
			wall := &wallClock{t: time.Unix(1_800_000_000, 0)}
			srv := referencetest.Start(t, referencetest.Options{
				Vary: seed,
				Config: func(cfg *reference.Config) {
					cfg.Double.Sleep = func(context.Context, time.Duration) {}
					cfg.Double.WallClock = wall.now
				},
			})
			c := &careful.Client{BaseURL: srv.URL, Key: srv.APIKey, HTTP: http.DefaultClient, Sleep: wall.sleep}
			for i := range 60 {
				p, err := c.Add(fmt.Sprintf("Rex %d ✓", i), 1, "pending")
				require.NoError(t, err)
				got, err := c.Get(p.ID)
				require.NoError(t, err)
				assert.Equal(t, p, got)
			}
			pets, err := c.List("pending", int(limit.Max))
			require.NoError(t, err)
			assert.NotEmpty(t, pets)
			for _, p := range pets {
				assert.Equal(t, "pending", p.Status)
			}
			if double.ChooseVariations(seed).FaultEvery > 0 {
				assert.NotZero(t, srv.Reference.Varied().Faults.Load(), "the client met a 429 or 503 and waited it out")
			}
			for _, r := range srv.Report().Rules {
				if r.ID == double.RuleRetryAfter {
					assert.Zero(t, r.Violations, r.Examples)
				}
			}
		})
	}
}

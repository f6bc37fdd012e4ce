package explore

import (
	"bytes"
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The start line says the bounds the run keeps to: exploring within --duration or --steps and
// --max-creates, then shrinking and replaying each finding with bounds of their own (it once
// said "duration 10s, max creates 500" of a run that then took 83 s and created 652 animals).
// Exploring keeps to --max-creates; each finding's shrinking, replays and fresh-store check
// keep to it each.
func TestBoundsSaidAreKept(t *testing.T) {
	f := facts(t)
	var created atomic.Int64
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(sw, r)
			if r.Method == http.MethodPost && sw.status == http.StatusCreated {
				created.Add(1)
			}
		})
	}
	const most = 40
	cfg := config(serve(t, both(count, filterIgnored(f.Statuses[1]))), 1, 1, 1500)
	cfg.MaxCreates = most
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	assert.LessOrEqual(t, rep.Created, int64(most))
	assert.LessOrEqual(t, rep.PostCreated, int64(3*most*len(rep.Findings)), "shrinking, replays and the fresh-store check: at most --max-creates each")
	assert.Equal(t, rep.Created+rep.PostCreated, created.Load(), "every animal stored on the target is counted")

	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	assert.Contains(t, text.String(), "  bounds: exploring: duration 0s, steps 1500, max creates 40; then each finding: shrinking up to 5s a part, and replays, with max creates 40 each;")
}

// Package double is the test double around the reference server, for testing a client
// (README "Testing your client"): chosen answers (Prefer), faults, varied open choices
// (--vary), the movable clock, the journal of requests, the client rules and report, and
// pact recording. It wraps the server's core (reference/internal/core) through its hooks
// (the api's chooser, middleware, the endpoints under /_admin/); reference assembles them,
// and a server without the double's settings runs none of this package on the way of a
// request.
package double

import (
	"context"
	"time"
)

// Double configures the features for testing a client (README "Testing your client"). Each
// is a choice the interface document leaves open, and each is off in the zero value.
type Double struct {
	// Scenarios lets a request choose its answer: Prefer: code=NNN, for a status the spec
	// documents for the operation, and Prefer: delay=MS (at most MaxPreferDelay). Off, Prefer
	// is ignored.
	Scenarios bool
	// Latency delays every answer of the API.
	Latency time.Duration
	// FailRate is the share of API requests, from 0 to 1, answered 503 with Retry-After.
	FailRate float64
	// RateLimit is how many API requests are answered per second of the server's clock;
	// the rest of that second gets 429 with Retry-After. 0 means no limit.
	RateLimit int
	// Journal is how many recent requests are kept for GET /_admin/requests and
	// Server.Requests; it also turns on the client report (GET /_admin/report,
	// Server.Report) and the pact (GET /_admin/pact, Server.Pact). 0 records nothing.
	Journal int
	// Sleep waits for a delay or the latency; nil waits on a timer that stops early when the
	// request is cancelled. Tests inject one that records what it was asked.
	Sleep func(ctx context.Context, d time.Duration)
	// WallClock is the clock of waits: whether a client waited as a Retry-After asked
	// (client/retry-after) counts in real time, whatever the server's clock. nil is time.Now.
	WallClock func() time.Time
	// Rand returns a number in [0, 1) for FailRate; nil is math/rand/v2's Float64.
	Rand func() float64
	// Vary, when not 0, is the seed of the open choices the server takes (vary.go,
	// petstore serve --vary SEED): ids, listing order and length, names in the seed,
	// headers, chunked bodies, latency jitter, an occasional 429 or 503.
	Vary uint64
}

// Error codes of the answers the double chooses.
const (
	CodeRateLimited = "rate_limited" // Config.Double.RateLimit
	CodeUnavailable = "unavailable"  // Config.Double.FailRate
)

// sleepFor is the default Config.Double.Sleep: a timer that stops when the request does.
func sleepFor(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

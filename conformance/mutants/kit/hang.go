package kit

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// Hang is a server that never answers some requests, and a client that gives up on them the
// moment the server starts hanging instead of when a clock runs out. A test of the
// harness's timeout then depends on no machine's speed: with a short real timeout, a
// loaded machine made ordinary requests time out too; with a long one, every hang cost its
// whole length. The harness's own timeout stays in force as the bound of a hang that Hang
// fails to cut.
type Hang struct {
	mu      sync.Mutex
	waiting map[string]context.CancelCauseFunc
	next    atomic.Uint64
}

// hangHeader carries the client's token for a request to the server that may hang on it. The
// client adds it to its own copy of the request: the harness records the request without it.
const hangHeader = "X-Kit-Hang"

// ErrHung is the client's error for a request the server hung on. It wraps
// context.DeadlineExceeded, as the error of a request that outlived its timeout does.
var ErrHung = fmt.Errorf("the server hung and the test cut the wait short: %w", context.DeadlineExceeded)

// Client returns a copy of c whose requests the Hang's server can hang on. c has a Transport
// of its own, as an httptest.Server's client has.
func (h *Hang) Client(c *http.Client) *http.Client {
	next := c.Transport
	if next == nil {
		panic("kit.Hang: the client has no Transport of its own")
	}
	cc := *c
	cc.Transport = roundTripper(func(req *http.Request) (*http.Response, error) {
		ctx, cancel := context.WithCancelCause(req.Context())
		defer cancel(nil)
		token := strconv.FormatUint(h.next.Add(1), 10)
		h.mu.Lock()
		if h.waiting == nil {
			h.waiting = map[string]context.CancelCauseFunc{}
		}
		h.waiting[token] = cancel
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			delete(h.waiting, token)
			h.mu.Unlock()
		}()
		out := req.Clone(ctx)
		out.Header.Set(hangHeader, token)
		resp, err := next.RoundTrip(out)
		if err != nil && context.Cause(ctx) == ErrHung {
			return nil, ErrHung
		}
		return resp, err
	})
	return &cc
}

// Here is where the server hangs on r: it tells r's client to give up, then waits until the
// client has hung up. A request that came from another client waits for its own client's
// timeout.
func (h *Hang) Here(r *http.Request) {
	h.mu.Lock()
	cancel := h.waiting[r.Header.Get(hangHeader)]
	h.mu.Unlock()
	if cancel != nil {
		cancel(ErrHung)
	}
	<-r.Context().Done()
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

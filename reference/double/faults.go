package double

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/reference/internal/core"
)

// faults answers the API as a loaded or failing deployment would (Config.Double): every
// answer late by Latency, FailRate of the requests 503, and beyond RateLimit a second 429.
// Both errors come before the key is checked, as a gateway in front of a service answers,
// and carry Retry-After and an Error record.
type faults struct {
	d    Double
	ew   *core.ErrorWriter
	now  func() time.Time
	next http.Handler

	mu     sync.Mutex
	window int64 // the second of the server's clock being counted
	count  int
}

func (f *faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.d.Latency > 0 {
		f.d.Sleep(r.Context(), f.d.Latency)
	}
	if wait, ok := f.admit(); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(wait))
		f.ew.WriteError(w, r, core.NewError(http.StatusTooManyRequests, CodeRateLimited,
			"more than %s in one second; retry after %d s", words.Plural(f.d.RateLimit, "request"), wait))
		return
	}
	if f.d.FailRate > 0 && f.d.Rand() < f.d.FailRate {
		w.Header().Set("Retry-After", "1")
		f.ew.WriteError(w, r, core.NewError(http.StatusServiceUnavailable, CodeUnavailable,
			"the service is unavailable (a failure the server was asked to inject); retry after 1 s"))
		return
	}
	f.next.ServeHTTP(w, r)
}

// admit counts r in its second of the server's clock; beyond RateLimit it says how many
// whole seconds remain until the next one.
func (f *faults) admit() (int, bool) {
	if f.d.RateLimit <= 0 {
		return 0, true
	}
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if s := now.Unix(); s != f.window {
		f.window, f.count = s, 0
	}
	if f.count < f.d.RateLimit {
		f.count++
		return 0, true
	}
	left := time.Unix(f.window+1, 0).Sub(now)
	return max(1, int((left+time.Second-1)/time.Second)), false
}

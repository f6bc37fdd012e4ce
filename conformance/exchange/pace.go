package exchange

import (
	"sync"
	"sync/atomic"
	"time"
)

// pacer spaces a session's requests across all its workers: at most Config.Rate per second,
// and none while the target has asked a client to come back later (a 429 or 503 with
// Retry-After): one worker's answer slows every worker, not only the one that saw it.
type pacer struct {
	// serial is held by the request that runs alone once the target has rate-limited the
	// session: from the first 429 or 503 on, requests go one at a time, each with its
	// retries, for the rest of the run. A target that asks a client to slow down gets one
	// request in flight, however many workers the run has.
	serial  sync.Mutex
	limited atomic.Bool

	mu       sync.Mutex
	interval time.Duration // 0: no cap on the rate
	next     time.Time     // the earliest start of the next request under the cap
	until    time.Time     // no request starts before this (Retry-After)
	now      func() time.Time
}

func newPacer(rate float64) *pacer {
	p := &pacer{now: time.Now}
	if rate > 0 {
		p.interval = time.Duration(float64(time.Second) / rate)
	}
	return p
}

// slot reserves the start of one request and returns how long to wait before sending it.
// retrying is set for the request that saw the Retry-After and has waited it out already.
func (p *pacer) slot(retrying bool) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	start := now
	if !retrying && p.until.After(start) {
		start = p.until
	}
	if p.interval > 0 {
		if p.next.After(start) {
			start = p.next
		}
		p.next = start.Add(p.interval)
	}
	return start.Sub(now)
}

// turn is one request's claim on the pacer's serial slot.
type turn struct {
	p    *pacer
	held bool
}

// begin starts a request: while the target rate-limits, it waits for the serial slot.
func (p *pacer) begin() *turn {
	t := &turn{p: p}
	if p.limited.Load() {
		t.take()
	}
	return t
}

// take claims the serial slot (a request that was asked to wait retries alone).
func (t *turn) take() {
	if !t.held {
		t.p.serial.Lock()
		t.held = true
	}
}

// end gives the slot back.
func (t *turn) end() {
	if t.held {
		t.p.serial.Unlock()
	}
}

// rateLimited records that the target asked a client to wait.
func (p *pacer) rateLimited() { p.limited.Store(true) }

// pause holds every request that has not started until d from now.
func (p *pacer) pause(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.now().Add(d); t.After(p.until) {
		p.until = t
	}
}

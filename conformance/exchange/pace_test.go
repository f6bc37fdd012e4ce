package exchange

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A fake clock: the pacer's schedule is arithmetic, so it is tested without sleeping.
func fakePacer(rate float64) (*pacer, *time.Time) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newPacer(rate)
	p.now = func() time.Time { return now }
	return p, &now
}

// --rate spaces the starts of requests across workers: the n-th waits n intervals.
func TestPacerRate(t *testing.T) {
	p, now := fakePacer(4) // one request every 250 ms
	assert.Equal(t, time.Duration(0), p.slot(false))
	assert.Equal(t, 250*time.Millisecond, p.slot(false))
	assert.Equal(t, 500*time.Millisecond, p.slot(false))
	*now = now.Add(time.Second) // idle: no debt carried over
	assert.Equal(t, time.Duration(0), p.slot(false))
}

// A Retry-After seen by one worker holds every other worker until it has passed; the
// worker that saw it, having waited it out, retries at once. From then on, requests go one
// at a time.
func TestPacerRetryAfterSlowsEveryWorker(t *testing.T) {
	p, now := fakePacer(0)
	assert.Equal(t, time.Duration(0), p.slot(false), "no cap, no pause: no wait")
	p.pause(3 * time.Second)
	p.rateLimited()
	assert.Equal(t, 3*time.Second, p.slot(false), "another worker waits the pause out")
	*now = now.Add(time.Second)
	assert.Equal(t, 2*time.Second, p.slot(false))
	assert.Equal(t, time.Duration(0), p.slot(true), "the worker that waited retries at once")

	first := p.begin()
	assert.True(t, first.held, "after a 429, a request takes the serial slot")
	assert.False(t, p.serial.TryLock(), "a second request waits while the first holds the slot")
	first.end()
	assert.True(t, p.serial.TryLock(), "the slot is free once the first is done")
	p.serial.Unlock()
}

// Before any 429, requests do not wait for one another.
func TestPacerConcurrentUntilLimited(t *testing.T) {
	p, _ := fakePacer(0)
	a, b := p.begin(), p.begin()
	assert.False(t, a.held)
	assert.False(t, b.held)
	a.end()
	b.end()
}

package exchange

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A connection the target closes just after a 5xx is reported with that answer; one it
// closes long after, idle, is its keep-alive timeout and is not; a request that meets the
// close is always reported; a close the answer announced never is.
func TestClosesAfterA5xx(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	now := t0
	c := &closes{now: func() time.Time { return now }}
	a, b, d, e := &net.TCPConn{}, &net.TCPConn{}, &net.TCPConn{}, &net.TCPConn{}
	fail := lastAnswer{status: 500, method: "POST", path: "/v1/pets", at: t0, curl: func() curlCmd { return curlCmd{args: "curl …"} }}
	c.answered(a, fail)
	c.answered(b, fail)
	c.answered(d, lastAnswer{status: 500, method: "GET", path: "/v1/pets", at: t0, closeSaid: true, curl: func() curlCmd { return curlCmd{} }})
	c.answered(e, lastAnswer{status: 200, method: "GET", path: "/v1/pets", at: t0, curl: func() curlCmd { return curlCmd{} }})

	now = t0.Add(10 * time.Millisecond)
	c.closedIdle(a) // at once: the answer to the failure
	c.closedIdle(d) // announced
	c.closedIdle(e) // after a 200
	now = t0.Add(time.Minute)
	c.closedIdle(b) // a keep-alive timeout ...
	assert.Len(t, c.seen, 1)
	c.dropped(b) // ... unless a request sent on it met the close
	assert.Equal(t, 2, c.seen["500 Internal Server Error to POST /v1/pets"].Count)
	assert.Len(t, c.seen, 1)

	// Closed before its last answer was noted (the target closed at once after it).
	f := &net.TCPConn{}
	c.closedIdle(f)
	c.answered(f, lastAnswer{status: 503, method: "GET", path: "/v1/pets/1", at: now, curl: func() curlCmd { return curlCmd{} }})
	assert.Len(t, c.seen, 2)
}

package exchange

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/wire"
)

// What keeps a run's verdict about the target, not about the machine or the network: a
// request that lost its connection to another request's doing is sent again; a target that
// cannot be judged any more (unavailable, rate limiting, gone) stops the run with the
// reason; and a request the target drops while it answers others is a finding of that
// request.

// DefaultMaxWait is how long a session waits in all for a target that answers 429 or 503
// before it says the target cannot be judged.
const DefaultMaxWait = time.Minute

// CannotJudgeError says why the target can no longer be judged: it answered 503 or 429
// beyond the wait budget, or it stopped answering.
type CannotJudgeError struct{ Reason string }

func (e *CannotJudgeError) Error() string { return e.Reason }

// Is makes errors.Is(err, ErrCannotJudge) hold.
func (e *CannotJudgeError) Is(target error) bool { return target == ErrCannotJudge }

// ErrCannotJudge matches every CannotJudgeError.
var ErrCannotJudge = errors.New("the target cannot be judged")

// halting is the session's state once the target cannot be judged: the first reason wins,
// and from then on no request leaves.
type halting struct {
	once   sync.Once
	reason atomic.Pointer[CannotJudgeError]
	notify func(error)
	// probe serialises the checks of whether the target still answers.
	probe sync.Mutex
}

// Halted is why the session stopped sending, or nil.
func (s *Session) Halted() error {
	if e := s.halt.reason.Load(); e != nil {
		return e
	}
	return nil
}

// Stop halts the session for reason (the target cannot be judged), as if it had stopped
// answering: no request leaves from then on. The first reason wins; Stop returns it.
func (s *Session) Stop(reason string) error { return s.stop(reason) }

// Timeout bounds each request.
func (s *Session) Timeout() time.Duration { return s.timeout }

func (s *Session) stop(reason string) *CannotJudgeError {
	s.halt.once.Do(func() {
		e := &CannotJudgeError{Reason: s.Redact(reason)}
		s.halt.reason.Store(e)
		if s.halt.notify != nil {
			s.halt.notify(e)
		}
	})
	return s.halt.reason.Load()
}

// waits is the time of the run spent waiting out 429 and 503 answers: the union of the
// workers' waits, not their sum, so that 24 workers waiting out one Retry-After: 1 together
// wait 1 s, as a person reading "waited 1.0 s in all" beside the run's duration expects.
type waits struct {
	mu      sync.Mutex
	total   time.Duration
	until   time.Time     // the end of the latest wait
	skipped time.Duration // the waits a test's instant wait did not take, added to the clock
}

// skip moves the clock on by a wait that took no time.
func (w *waits) skip(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.skipped += d
}

// add counts a wait of d from now and returns the time waited in all.
func (w *waits) add(now time.Time, d time.Duration) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	now = now.Add(w.skipped)
	end := now.Add(d)
	switch {
	case !now.Before(w.until):
		w.total += d
	case end.After(w.until):
		w.total += end.Sub(w.until)
	}
	if end.After(w.until) {
		w.until = end
	}
	return w.total
}

func (w *waits) sum() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// waitedFor counts an answer of 429 or 503 that the session waits out for d, and stops the
// session when the waits add up to more than the budget.
func (s *Session) waitedFor(status int, d time.Duration) error {
	s.waitedOut.Add(1)
	if s.waits.add(time.Now(), d) <= s.maxWait {
		return nil
	}
	what := "unavailable"
	if status == http.StatusTooManyRequests {
		what = "rate limited"
	}
	return s.stop(fmt.Sprintf("the target is %s: it answered %s and asked to come back later for more than %s in all (--max-wait), after %d requests",
		what, report.StatusText(status), s.maxWait, s.requests.Load()))
}

// WaitedOut counts the 429 and 503 answers the session waited out and sent again, and the
// time it waited for them.
func (s *Session) WaitedOut() (answers int64, waited time.Duration) {
	return s.waitedOut.Load(), s.waits.sum()
}

// roundTrip sends req once, and once more on a fresh connection when it failed on a reused
// one before a byte of the answer came: the target (or something between) closed a
// connection it had kept alive, and the request is not to lose its answer to that, whatever
// request used the connection before it and however the workers shared the connections.
// It returns the connection the answer came on, for the session's record of closes.
// It says too whether the answer came on a connection an earlier request had used.
func (s *Session) roundTrip(ctx context.Context, req *http.Request) (*http.Response, net.Conn, bool, error) {
	t := &connTrace{}
	t.trace.GotConn, t.trace.GotFirstResponseByte = t.gotConn, t.gotFirstByte
	resp, err := s.client.Do(req.WithContext(httptrace.WithClientTrace(ctx, &t.trace)))
	t.mu.Lock()
	got := slices.Clone(t.conns)
	t.mu.Unlock()
	// Go's transport sends an idempotent request again by itself when its reused connection
	// fails: the first connection was dropped all the same.
	if len(got) > 1 && got[0].Reused {
		s.closes.dropped(got[0].Conn)
	}
	if err == nil {
		return resp, got[len(got)-1].Conn, got[len(got)-1].Reused, nil
	}
	// A request that outlived its time is not a lost connection, whichever clock said so.
	if len(got) == 0 || !got[len(got)-1].Reused || t.answered.Load() || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return nil, nil, false, err
	}
	s.closes.dropped(got[len(got)-1].Conn)
	s.resent.Add(1)
	resp, err = s.alone(ctx, req)
	return resp, nil, false, err
}

// alone sends req again on a connection of its own, which no earlier request used.
func (s *Session) alone(ctx context.Context, req *http.Request) (*http.Response, error) {
	again := req.WithContext(ctx)
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		again = req.Clone(ctx)
		again.Body = body
	}
	return s.fresh.Do(again)
}

// connTrace is what roundTrip learns of a request's connections as it is sent: one value
// per request, whatever the hooks it gives.
type connTrace struct {
	trace    httptrace.ClientTrace
	mu       sync.Mutex
	conns    []httptrace.GotConnInfo
	answered atomic.Bool
}

func (t *connTrace) gotConn(i httptrace.GotConnInfo) {
	t.mu.Lock()
	t.conns = append(t.conns, i)
	t.mu.Unlock()
}

func (t *connTrace) gotFirstByte() { t.answered.Store(true) }

// closes records, per kept-alive connection, the last answer that came on it, and which
// answers a connection was dropped after: a target that closes a connection after a 5xx
// without saying "Connection: close" makes a client that reuses it lose its next request.
//
// A connection the session dials itself is watched (watchedConn): the target closing it is
// seen when it happens, idle or not, so whether a close is reported does not depend on
// whether a later request happened to reuse the connection (which the number of workers
// decides). Connections of a client the caller supplied with another transport are seen
// only when a request on them fails.
type closes struct {
	mu   sync.Mutex
	last map[net.Conn]lastAnswer
	gone map[net.Conn]bool // closed by the target, perhaps before its last answer was noted
	seen map[string]*report.ConnectionClose
	keys []string
	now  func() time.Time // nil: time.Now
}

type lastAnswer struct {
	status       int
	method, path string
	curl         func() curlCmd
	// req is the request as sent (its body again from GetBody), for a later request on the
	// same connection that its answer may have to be explained by (Recorder.Confirm); before
	// is the answer before it on the connection, kept maxChain deep.
	req    *http.Request
	before *lastAnswer
	depth  int // how many answers before holds
	// closeSaid: the answer said "Connection: close", so the close that follows is announced.
	closeSaid bool
	at        time.Time // when the answer was read
}

// closeWindow is how soon after a 5xx a close of the idle connection counts as the target's
// answer to the failure rather than its keep-alive timeout (uvicorn's is 5 s, nginx's 75 s).
const closeWindow = 2 * time.Second

// connOf is the connection the session dialled under conn (a TLS connection's own).
func connOf(conn net.Conn) net.Conn {
	if tc, ok := conn.(*tls.Conn); ok {
		return tc.NetConn()
	}
	return conn
}

// answered notes the answer that came on conn (nil: a connection of its own, never reused).
func (c *closes) answered(conn net.Conn, a lastAnswer) {
	if conn == nil {
		return
	}
	conn = connOf(conn)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone[conn] {
		// The target closed the connection as soon as it had answered, before the answer
		// was noted here.
		c.record(a)
		return
	}
	if c.last == nil {
		c.last = map[net.Conn]lastAnswer{}
	}
	c.last[conn] = a
}

// maxChain is how many answers back a connection's history is kept at least: a request that
// left a connection unusable is looked for that far back (a server that leaves every body
// unread poisons each request after it, so the first may lie far back).
const maxChain = 256

// chained is a as the answer before another. The history is shared, never changed once
// made, so an exchange's history stays as it was sent; when it grows to twice maxChain, the
// newest maxChain answers are copied into a history of their own and the rest let go.
func chained(a lastAnswer) *lastAnswer {
	head := &a
	if a.depth < 2*maxChain {
		return head
	}
	n := head
	for i := 1; i < maxChain && n.before != nil; i++ {
		b := *n.before
		n.before = &b
		n = &b
	}
	n.before = nil
	for d, m := maxChain-1, head; m != nil; d, m = d-1, m.before {
		m.depth = d
	}
	return head
}

// lastOn is the last answer noted on conn, before the one that came now.
func (c *closes) lastOn(conn net.Conn) (lastAnswer, bool) {
	if conn == nil {
		return lastAnswer{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.last[connOf(conn)]
	return a, ok
}

// dropped notes that the target closed conn without answering the request sent on it; when
// its last answer was a 5xx that did not announce the close, that is a close worth
// reporting.
func (c *closes) dropped(conn net.Conn) { c.closed(connOf(conn), false) }

// closedIdle notes that a read found conn closed by the target: reported as dropped when it
// came within closeWindow of a 5xx; a later one is a keep-alive timeout, unless a request
// sent on the connection meets it (dropped).
func (c *closes) closedIdle(conn net.Conn) { c.closed(conn, true) }

func (c *closes) closed(conn net.Conn, idle bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone == nil {
		c.gone = map[net.Conn]bool{}
	}
	c.gone[conn] = true
	a, ok := c.last[conn]
	if !ok || idle && c.since(a.at) > closeWindow {
		return
	}
	delete(c.last, conn)
	c.record(a)
}

func (c *closes) since(t time.Time) time.Duration {
	if c.now != nil {
		return c.now().Sub(t)
	}
	return time.Since(t)
}

// record counts a close after answer a, if it is one worth reporting.
func (c *closes) record(a lastAnswer) {
	if a.status < 500 || a.closeSaid {
		return // an idle connection timed out, an announced close, or nothing to tell
	}
	key := fmt.Sprintf("%s to %s %s", report.StatusText(a.status), a.method, a.path)
	if c.seen == nil {
		c.seen = map[string]*report.ConnectionClose{}
	}
	cl, ok := c.seen[key]
	if !ok {
		cl = &report.ConnectionClose{After: key, Curl: a.curl().String()}
		c.seen[key] = cl
		c.keys = append(c.keys, key)
	}
	cl.Count++
}

// Closes are the 5xx answers after which the target dropped a kept-alive connection without
// an answer to the next request sent on it, in the order first seen.
func (s *Session) Closes() []report.ConnectionClose {
	s.closes.mu.Lock()
	defer s.closes.mu.Unlock()
	keys := slices.Clone(s.closes.keys)
	slices.Sort(keys) // the order the workers met them in is not the target's
	out := make([]report.ConnectionClose, 0, len(keys))
	for _, k := range keys {
		out = append(out, *s.closes.seen[k])
	}
	return out
}

// Resent counts the requests sent again on a fresh connection.
func (s *Session) Resent() int64 { return s.resent.Load() }

// answers reports whether the target still answers: a listing with the key, on a fresh
// connection, gets any HTTP answer within the request timeout. A target that does not has
// stopped answering, and the session stops with why.
func (s *Session) answers(ctx context.Context) bool {
	s.halt.probe.Lock()
	defer s.halt.probe.Unlock()
	if s.Halted() != nil {
		return false
	}
	when := time.Now().UTC()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	defer cancel()
	req, err := s.HTTPRequest(ctx, wire.Request{Method: http.MethodGet, Path: s.listPath})
	if err != nil {
		return true
	}
	s.requests.Add(1)
	resp, err := s.fresh.Do(req)
	if err == nil {
		resp.Body.Close()
		return true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the cause, without the method and URL
	}
	s.stop(fmt.Sprintf("the target stopped answering at %s after %d requests: %v", when.Format(time.TimeOnly+" UTC"),
		s.requests.Load()-1, err))
	return false
}

// watchedConn is a connection the session dialled: when a read finds it closed by the target
// (not by the client), onClose is told once.
type watchedConn struct {
	net.Conn
	onClose func(net.Conn)
	ours    atomic.Bool // the client closed it
	told    sync.Once
}

func (w *watchedConn) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if err != nil && !w.ours.Load() && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		w.told.Do(func() { w.onClose(w) })
	}
	return n, err
}

func (w *watchedConn) Close() error {
	w.ours.Store(true)
	return w.Conn.Close()
}

// watch makes t dial watched connections that tell c when the target closes them.
func watch(t *http.Transport, c *closes) {
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &watchedConn{Conn: conn, onClose: c.closedIdle}, nil
	}
}

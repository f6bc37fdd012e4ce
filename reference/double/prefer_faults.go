package double

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The answers of Prefer (prefer.go) that are not a status: a broken connection, a
// slow body, a named example of the spec.

// breakConnection ends the request without an answer: the connection is reset (a TCP RST,
// reset) or closed (a FIN). It does not return: http.ErrAbortHandler stops the handlers
// above, and net/http neither logs it nor answers.
func breakConnection(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		if tcp, ok := tcpConn(conn); ok && reset {
			_ = tcp.SetLinger(0) // close sends RST instead of FIN
		}
		_ = conn.Close()
	}
	// Without a connection to take (HTTP/2, a recorder), aborting is all there is.
	panic(http.ErrAbortHandler)
}

// tcpConn is the TCP connection under conn and the wrappers it may be in (the reference's
// listener, TLS), each of which gives its own with NetConn.
func tcpConn(conn net.Conn) (*net.TCPConn, bool) {
	for {
		if tcp, ok := conn.(*net.TCPConn); ok {
			return tcp, true
		}
		w, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			return nil, false
		}
		conn = w.NetConn()
	}
}

// slowKey is the request context's key for its slowBody.
type slowKey struct{}

// slowBodies lets Prefer: fault=slow trickle the answer: the writer it puts under the
// layers of the api writes in pieces once the api says so.
type slowBodies struct{ next http.Handler }

func (s slowBodies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(r.Header.Values("Prefer")) == 0 {
		s.next.ServeHTTP(w, r)
		return
	}
	sb := &slowBody{ResponseWriter: w}
	s.next.ServeHTTP(sb, r.WithContext(context.WithValue(r.Context(), slowKey{}, sb)))
}

// slowPieces is how many pieces a slow body comes in, at most.
const slowPieces = 8

// slowBody writes a body in pieces, flushed one by one with a sleep before each, over a
// duration in all, once start has been called.
type slowBody struct {
	http.ResponseWriter
	sleep func(context.Context, time.Duration)
	ctx   context.Context
	left  time.Duration // what remains to sleep
	step  time.Duration
}

func (sb *slowBody) start(sleep func(context.Context, time.Duration), ctx context.Context, over time.Duration) {
	sb.sleep, sb.ctx, sb.left, sb.step = sleep, ctx, over, over/slowPieces
}

func (sb *slowBody) Write(b []byte) (int, error) {
	if sb.sleep == nil {
		return sb.ResponseWriter.Write(b)
	}
	sb.Header().Del("Content-Length")
	rc := http.NewResponseController(sb.ResponseWriter)
	written := 0
	for len(b) > 0 {
		n := max(1, (len(b)+slowPieces-1)/slowPieces)
		n = min(n, len(b))
		if d := min(sb.step, sb.left); d > 0 {
			sb.left -= d
			sb.sleep(sb.ctx, d)
		}
		m, err := sb.ResponseWriter.Write(b[:n])
		written += m
		if err != nil {
			return written, err
		}
		_ = rc.Flush()
		b = b[n:]
	}
	return written, nil
}

// Unwrap lets http.ResponseController reach the connection.
func (sb *slowBody) Unwrap() http.ResponseWriter { return sb.ResponseWriter }

// chosenExample answers with a named example of the spec.
type chosenExample struct {
	status int
	body   []byte
}

func (e *chosenExample) answer(rec *core.Recorder, r *http.Request) {
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(e.status)
	_, _ = rec.Write(e.body)
}

// exampleOf finds the named example of op's JSON answers (of status code only, when not
// 0); none is a 400 that names the examples op has.
func exampleOf(op spec.Operation, name string, code int) (*chosenExample, error) {
	var names []string
	if op.Op != nil && op.Op.Responses != nil {
		statuses := op.Statuses
		for _, status := range statuses {
			ref := op.Op.Responses.Status(status)
			if ref == nil || ref.Value == nil {
				continue
			}
			mt := ref.Value.Content.Get("application/json")
			if mt == nil {
				continue
			}
			for n, ex := range mt.Examples {
				if code != 0 && status != code {
					continue
				}
				names = append(names, n)
				if n == name && ex != nil && ex.Value != nil {
					body, err := json.Marshal(ex.Value.Value)
					if err != nil {
						return nil, core.Invalid("Prefer: example=%s: the example cannot be encoded as JSON: %v", name, err)
					}
					return &chosenExample{status: status, body: append(body, '\n')}, nil
				}
			}
		}
	}
	sort.Strings(names)
	names = slices.Compact(names)
	has := "none: the spec names no example for it"
	if len(names) > 0 {
		has = strings.Join(names, ", ")
	}
	return nil, core.Invalid("Prefer: example=%s: %s has no example of that name; it has %s", name, op.ID, has)
}

package exchange

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/petstore/petstore/conformance/report"
)

// Before anyone is blamed: an answer that fails a check and came on a kept-alive connection
// after another request's is sent again alone, on a connection of its own. When the fresh
// answer's status differs, the first answer was not this request's to give: the request
// before it left the connection unusable (a body it answered without reading, which the
// server then read as the next request line; a framing it got wrong), and the finding is
// that request's, with both requests in one curl line that repeats them on one connection.

// Confirm sends again alone every request of r that failed with an error answer (what a
// server gives to the bytes of another request's body read as a request) after a request
// that may have left its body unread on the connection, and moves to the request before it
// each finding that does not come again. Requests that may change what they name, other
// than a create, are not sent again: their first answer changed the store. It returns how
// many findings it moved. A create is sent again only when reserve, the run's claim of room
// under --max-creates, gives room for one more animal (nil: no cap); otherwise its finding
// stays where it is.
func (r *Recorder) Confirm(ctx context.Context, reserve func(n int) (release func())) int {
	r.mu.Lock()
	failing := map[int]bool{}
	for _, f := range r.failures {
		failing[f.Exchange] = true
	}
	type suspect struct {
		index int
		a     *answeredExchange
	}
	var suspects []suspect
	for i := range r.answered {
		a := &r.answered[i]
		if idx := len(r.exchanges) + i; failing[idx] && a.resp.StatusCode >= 400 && a.sent != nil && a.blamed == nil && again(a.sent) && mayHavePoisoned(a.before) {
			suspects = append(suspects, suspect{idx, a})
		}
	}
	r.mu.Unlock()
	moved := 0
	// Each request is sent again alone at most once, however many histories hold it.
	alone := map[*http.Request]int{}
	reproduces := func(s *Session, n *lastAnswer) bool {
		st, ok := alone[n.req]
		if !ok {
			var err error
			if st, err = s.aloneAgainWithin(ctx, reserve, n.req, sentBody(n.req)); err != nil {
				st = -1
			}
			alone[n.req] = st
		}
		return st == n.status
	}
	for _, sp := range suspects {
		status, ok := alone[sp.a.sent]
		if !ok {
			var err error
			if status, err = sp.a.s.aloneAgainWithin(ctx, reserve, sp.a.sent, sp.a.reqBody); err != nil {
				continue
			}
			alone[sp.a.sent] = status
		}
		if status == sp.a.resp.StatusCode {
			continue // it comes again: the finding is this request's
		}
		// The request before may itself have been answered from a connection an earlier one
		// left unusable: the one blamed is the nearest whose answer comes again alone.
		b := sp.a.before
		for b.before != nil && again(b.req) && !reproduces(sp.a.s, b) {
			b = b.before
		}
		r.mu.Lock()
		r.failures = slices.DeleteFunc(r.failures, func(f report.Failure) bool { return f.Exchange == sp.index })
		sp.a.blamed = b
		r.failures = append(r.failures, report.Failure{Exchange: sp.index, Location: "connection",
			Message: r.redact(fmt.Sprintf("%s %s, answered %s, left its connection unusable: a later request on it, %s %s, got %s, "+
				"which it does not get alone on a fresh connection (%s); a server must read the whole body of a request it "+
				"answers, or close the connection, else the rest is read as the next request (RFC 9112 9.3)",
				b.method, b.path, report.StatusText(b.status), sp.a.req.Method, sp.a.req.URL.Path,
				report.StatusText(sp.a.resp.StatusCode), report.StatusText(status))),
			Expected: r.redact(report.StatusText(status) + " to " + sp.a.req.Method + " " + sp.a.req.URL.Path + ", as alone"),
			Actual:   report.StatusText(sp.a.resp.StatusCode) + " after the request before it on the same connection"})
		r.mu.Unlock()
		moved++
	}
	return moved
}

// aloneAgain sends req (whose body was body) again on a connection of its own, counted as
// every request is: an animal a create makes is the run's, and removed with the others.
// errNoRoom: a create not sent again, for want of room under --max-creates.
var errNoRoom = errors.New("no room under --max-creates for the create sent again")

// aloneAgainWithin is aloneAgain for a request that may create an animal only when reserve
// gives room for it.
func (s *Session) aloneAgainWithin(ctx context.Context, reserve func(int) func(), req *http.Request, body []byte) (int, error) {
	if req.Method == http.MethodPost && reserve != nil {
		release := reserve(1)
		if release == nil {
			return 0, errNoRoom
		}
		defer release()
	}
	return s.aloneAgain(ctx, req, body)
}

func (s *Session) aloneAgain(ctx context.Context, req *http.Request, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	s.requests.Add(1)
	resp, err := s.alone(ctx, req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	answer, _ := readBody(resp)
	rt := s.route(req, body)
	if req.Method == http.MethodPost && resp.StatusCode/100 == 2 {
		s.created.Add(1)
	}
	s.noteOwned(req, &rt, resp.StatusCode, answer)
	return resp.StatusCode, nil
}

// mayHavePoisoned: the request before on the connection could have left it unusable: it
// carried a body and was answered with an error, which a server may give without reading
// the body (a rejected key, a refused media type or size).
func mayHavePoisoned(before *lastAnswer) bool {
	return before != nil && before.status >= 400 && before.req != nil &&
		(before.req.ContentLength > 0 || before.req.ContentLength < 0 || len(before.req.TransferEncoding) > 0)
}

// again: a request that may be sent again to confirm its answer, because sending it again
// changes nothing, or adds an animal as any create does.
func again(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPost:
		return true
	}
	return false
}

// onOneConnection joins curl commands into one that sends their requests on one connection,
// in order (curl's --next keeps the connection). One request may read its body from printf
// on the input: the printf goes in front of the whole command. A second such command starts
// a line of its own, since curl has one input.
func onOneConnection(cmds []curlCmd) string {
	var (
		done   []string // commands finished
		joined curlCmd  // the command being joined
	)
	for _, c := range cmds {
		switch {
		case joined.args == "":
			joined = c
		case c.pipe != "" && joined.pipe != "":
			done = append(done, joined.String())
			joined = c
		default:
			joined.args += " --next " + strings.TrimPrefix(c.args, "curl ")
			joined.pipe += c.pipe
		}
	}
	return strings.Join(append(done, joined.String()), "\n")
}

// sentBody is the body req was sent with (none: nil).
func sentBody(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return b
}

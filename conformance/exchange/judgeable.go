package exchange

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/conformance/report"
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

// waitedFor counts an answer of 429 or 503 that the session waits out for d, and stops the
// session when the waits add up to more than the budget.
func (s *Session) waitedFor(status int, d time.Duration) error {
	s.waitedOut.Add(1)
	total := time.Duration(s.waited.Add(int64(d)))
	if total <= s.maxWait {
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
	return s.waitedOut.Load(), time.Duration(s.waited.Load())
}

// roundTrip sends req once, and once more on a fresh connection when it failed on a reused
// one before a byte of the answer came: the target (or something between) closed a
// connection it had kept alive, and the request is not to lose its answer to that, whatever
// request used the connection before it and however the workers shared the connections.
func (s *Session) roundTrip(ctx context.Context, req *http.Request) (*http.Response, error) {
	var reused, answered atomic.Bool
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	resp, err := s.client.Do(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
	if err == nil || !reused.Load() || answered.Load() || ctx.Err() != nil {
		return resp, err
	}
	again := req.WithContext(ctx)
	if req.GetBody != nil {
		body, gerr := req.GetBody()
		if gerr != nil {
			return nil, err
		}
		again = req.Clone(ctx)
		again.Body = body
	}
	s.resent.Add(1)
	return s.fresh.Do(again)
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.baseURL+s.listPath, nil)
	if err != nil {
		return true
	}
	s.WithBaseQuery(req.URL)
	s.AddHeaders(req.Header)
	req.Header.Set("Authorization", report.CredBearer.Value(s.key))
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

package exchange

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/petstore/petstore/conformance/coverage"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// Caps that keep a hostile or broken target from exhausting the harness.
const (
	maxResponseBytes = 8 << 20  // a longer body fails the rule and is cut
	maxKeptBody      = 64 << 10 // bodies in reports are cut here
	MaxExchanges     = 20       // per rule, in reports
)

// Session is what every rule of a run shares: the HTTP client, the validator, the target.
type Session struct {
	client    *http.Client
	timeout   time.Duration
	base      *url.URL // the target's base URL
	baseURL   string
	key       string
	red       *redactor
	specBase  string // the spec's base path, "/v1"
	validator *spec.Validator
	checks    responseChecks // the documented responses compiled (fastcheck.go)
	facts     *spec.Facts    // what the shared judge reads (the Error record)
	created   atomic.Int64
	requests  atomic.Int64
	coverage  *coverage.Tracker
	headers   http.Header // Options.Headers, on every request
	pace      *pacer
	// inflight holds a token per request on the wire: at most Config.Workers at once.
	inflight chan struct{}
	// wait sleeps between retries (time.Sleep that ends with ctx); tests make it instant.
	wait func(context.Context, time.Duration) error
	// readOnly: only GET and HEAD leave (guard.go); owned are the animals the run created,
	// the only ones a request of another method may name; staticSegments are the spec's
	// literal path segments, which name collections.
	readOnly       bool
	owned          owned
	staticSegments map[string]bool
	// fresh sends on a connection of its own (judgeable.go); listPath is the listing's
	// path, the request that asks whether the target still answers.
	fresh    *http.Client
	listPath string
	halt     halting
	// maxWait bounds the time waited in all for 429 and 503 answers; waits is that time
	// so far, waitedOut the answers waited out, resent the requests sent again.
	maxWait   time.Duration
	waits     waits
	waitedOut atomic.Int64
	resent    atomic.Int64
	closes    *closes
}

// Redact replaces every known form of the key in str.
func (s *Session) Redact(str string) string { return s.red.text(str) }

// Do sends req for a rule: with a per-request timeout, a capped body, the exchange recorded
// and the response validated against the spec. open relaxes validation for probes of what
// the document leaves open.
func (s *Session) Do(rec *Recorder, open bool, req *http.Request) (*http.Response, error) {
	resp, _, err := s.DoRead(rec, open, req)
	return resp, err
}

// DoRead is Do that returns the answer's body too, as read (the response's Body reads the
// same bytes); the caller must not change them.
func (s *Session) DoRead(rec *Recorder, open bool, req *http.Request) (*http.Response, []byte, error) {
	s.WithBaseQuery(req.URL)
	s.AddHeaders(req)
	reqBody, err := bufferBody(req)
	if err != nil {
		return nil, nil, err
	}
	rt := s.route(req, reqBody)
	if err := s.permit(req, &rt); err != nil {
		rec.mu.Lock()
		rec.notSent = err.(*NotSentError).Reason
		rec.mu.Unlock()
		return nil, nil, err
	}
	resp, body, truncated, err := s.send(req, &rt)
	if raw := rawOf(req); err != nil && raw != nil && raw.CloseWrite && (timedOut(err) || dropped(err)) && req.Context().Err() == nil {
		// The request announced bytes it never sent, and said so by closing its side: a
		// server may close, or wait, without answering such an incomplete request (RFC 9112
		// §8), which is no verdict.
		ex := s.exchange(req, reqBody)
		ex.Error = s.Redact(err.Error())
		rec.add(ex)
		why := "no answer to a request whose announced bytes never came (RFC 9112 section 8 lets a server close without one)"
		rec.mu.Lock()
		rec.notSent = why
		rec.mu.Unlock()
		return nil, nil, &NotSentError{why}
	}
	var cut *cutShortError
	if err != nil && (errors.As(err, &cut) || dropped(err)) && len(reqBody) >= judge.UnreadBody && judge.AnswersUnread(req.Context()) {
		// A server may answer such a request (a rejected key) without reading the body,
		// and close: the connection broke while the body was still on its way, and the
		// answer with it. That is no fault of the target, and no verdict either.
		ex := s.exchange(req, reqBody)
		ex.Error = s.Redact(err.Error())
		rec.add(ex)
		why := fmt.Sprintf("the target closed the connection while the body of %d bytes was still being sent, before reading it "+
			"(a server may answer a rejected key so); the answer was lost on the way: %s", len(reqBody), ex.Error)
		rec.mu.Lock()
		rec.notSent = why
		rec.mu.Unlock()
		return nil, nil, &NotSentError{why}
	}
	if errors.As(err, &cut) {
		// Headers came and the body broke off: the answer is the request's finding.
		ex := s.exchange(req, reqBody)
		ex.Response = s.response(resp, body)
		ex.Error = s.Redact(err.Error())
		rec.add(ex)
		rec.Fail(report.Failure{Message: "the answer was cut short: the connection ended inside the body",
			Location: "body", Expected: "the whole body", Actual: ex.Error})
		rec.mu.Lock()
		rec.accounted = true
		rec.mu.Unlock()
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, s.unanswered(rec, req, s.exchange(req, reqBody), err)
	}
	if truncated {
		// No check can trust a cut body, and parsing megabytes is what a hostile target wants.
		ex := s.exchange(req, reqBody)
		ex.Response = s.response(resp, body)
		ex.Error = fmt.Sprintf("response body exceeds %d bytes", maxResponseBytes)
		rec.add(ex)
		return nil, nil, errors.New(ex.Error)
	}
	a := s.answered(req, reqBody, resp, body)
	a.before, a.sent = rt.before, req
	rec.addAnswered(a)
	for _, f := range s.validate(&rt, resp.StatusCode, resp.Header, body, open) {
		rec.Fail(f)
	}
	return resp, body, nil
}

// bufferBody reads req's body (at most maxResponseBytes) so that it can be recorded and
// sent again, and returns it.
func bufferBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	// Read into a buffer of the announced size (a generated body is a megabyte at most):
	// io.ReadAll would copy it again at each doubling.
	var buf bytes.Buffer
	if n := req.ContentLength; n > 0 && n <= maxResponseBytes {
		buf.Grow(int(n) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(req.Body, maxResponseBytes))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	reqBody := buf.Bytes()
	// A known length: the body goes out with Content-Length (an empty one with
	// Content-Length: 0), as the curl line repeats it; chunked only when the request asks
	// for it (Request.Chunked).
	if !slices.Contains(req.TransferEncoding, "chunked") {
		req.ContentLength = int64(len(reqBody))
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(reqBody)), nil }
	if len(reqBody) == 0 {
		req.Body = http.NoBody
		req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
	}
	return reqBody, nil
}

// unanswered records ex, a request that got no answer (err), and returns the error Do
// returns: a finding when the target dropped this request alone, otherwise why the rule
// could not be judged.
func (s *Session) unanswered(rec *Recorder, req *http.Request, ex report.Exchange, err error) error {
	ex.Error = s.Redact(err.Error())
	rec.add(ex)
	timedOut := timedOut(err)
	switch {
	case s.Halted() != nil || errors.Is(err, ErrCannotJudge) || req.Context().Err() != nil:
		// The run stops: the runner says why, for this rule as for the rest.
	case !s.answers(req.Context()):
		// Nor does the target answer a plain listing: it is gone, and the session stopped.
	case dropped(err):
		// The target answers others but closed this request's connection without an
		// answer (on a fresh connection, if the first was a reused one): a crash of
		// this request, and a finding like any other.
		rec.Fail(report.Failure{Message: "the target closed the connection without an answer (it answers other requests)",
			Location: "connection", Expected: "an HTTP answer", Actual: ex.Error})
		rec.mu.Lock()
		rec.accounted = true
		rec.mu.Unlock()
		return errors.New(ex.Error)
	}
	rec.mu.Lock()
	rec.noAnswer = "no answer from the target: " + ex.Error
	if timedOut && req.Context().Err() == nil {
		rec.noAnswer = fmt.Sprintf("no answer from the target within %s (--timeout): %s", s.timeout, ex.Error)
	}
	if h := s.Halted(); h != nil {
		rec.noAnswer = "not judged: " + h.Error()
	}
	rec.mu.Unlock()
	return errors.New(ex.Error)
}

// timedOut: err is a request that outlived its time, whichever clock said so.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// WithBaseQuery puts the base URL's query string (a gateway's code) in front of u's own, so
// that every request carries it.
func (s *Session) WithBaseQuery(u *url.URL) {
	q := s.base.RawQuery
	switch {
	case q == "" || u.RawQuery == q || strings.HasPrefix(u.RawQuery, q+"&"):
	case u.RawQuery == "":
		u.RawQuery = q
	default:
		u.RawQuery = q + "&" + u.RawQuery
	}
}

// AddHeaders adds Options.Headers that req does not set itself. A Host among them (-H
// 'Host: vhost') is the Host req is sent with, unless req names its own (the anatomy's Host
// values): Go's client writes req.Host and never a Host field, and so does the raw sender.
func (s *Session) AddHeaders(req *http.Request) {
	for k, vs := range s.headers {
		switch {
		case http.CanonicalHeaderKey(k) == "Host":
			if len(vs) > 0 && (req.Host == "" || req.Host == req.URL.Host) {
				req.Host = vs[0]
			}
		case req.Header.Get(k) == "":
			req.Header[k] = append([]string(nil), vs...)
		}
	}
}

// Send performs req, coming back as a 429 or 503 asks (Retry-After in seconds or as an HTTP
// date, 1 s without one; at most 5 s each, and --max-wait in all for the session, after
// which the target cannot be judged: CannotJudgeError), and reads the body up to the cap;
// the returned response's body is the bytes read, so httpexpect can read it again.
func (s *Session) Send(req *http.Request) (*http.Response, []byte, bool, error) {
	return s.send(req, nil)
}

// send is Send for a request whose route Do found already (nil: found here, for coverage).
func (s *Session) send(req *http.Request, rt *routed) (*http.Response, []byte, bool, error) {
	if rt == nil {
		body, err := bufferBody(req) // as Do does: the body as sent, for coverage and again
		if err != nil {
			return nil, nil, false, err
		}
		r := s.route(req, body)
		rt = &r
		if err := s.permit(req, rt); err != nil {
			return nil, nil, false, err
		}
	}
	turn := s.pace.begin()
	defer turn.end()
	for retrying := false; ; retrying = true {
		if err := s.Halted(); err != nil {
			return nil, nil, false, err
		}
		if d := s.pace.slot(retrying); d > 0 {
			if err := s.wait(req.Context(), d); err != nil {
				return nil, nil, false, err
			}
		}
		resp, body, truncated, err := s.sendOnce(req, rt)
		if err != nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
			return resp, body, truncated, err
		}
		s.pace.rateLimited()
		turn.take()
		d := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		if err := s.waitedFor(resp.StatusCode, d); err != nil {
			return nil, nil, false, err
		}
		s.pace.pause(d)
		if err := s.wait(req.Context(), d); err != nil {
			return nil, nil, false, err
		}
		if req.GetBody != nil {
			b, err := req.GetBody()
			if err != nil {
				return nil, nil, false, err
			}
			req = req.Clone(req.Context())
			req.Body = b
		}
	}
}

// dropped reports whether err is a connection the target accepted and then closed or reset
// without an answer: not a refusal, a timeout, or headers over the cap. A body still being
// written when the reset came fails with net.ErrClosed: the transport closed the connection
// on reading the reset, whichever of the two it met first.
func dropped(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "server closed")
}

// cutShortError is sendOnce's error for an answer whose body broke off: the response and
// the bytes that came are returned with it.
type cutShortError struct{ error }

func (e *cutShortError) Unwrap() error { return e.error }

// retryAfter reads a Retry-After value (RFC 9110 10.2.3), capped at maxRetryAfter.
func retryAfter(v string, now time.Time) time.Duration {
	d := defaultRetryIn
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = max(t.Sub(now), 0)
	}
	return min(d, maxRetryAfter)
}

func (s *Session) sendOnce(req *http.Request, rt *routed) (*http.Response, []byte, bool, error) {
	select {
	case s.inflight <- struct{}{}:
		defer func() { <-s.inflight }()
	case <-req.Context().Done():
		return nil, nil, false, req.Context().Err()
	}
	ctx, cancel := context.WithTimeout(req.Context(), s.timeout)
	defer cancel()
	s.requests.Add(1)
	var resp *http.Response
	var conn net.Conn
	var reused bool
	var err error
	if raw := rawOf(req); raw != nil {
		resp, err = s.rawRoundTrip(ctx, req, raw, rt.body)
	} else {
		resp, conn, reused, err = s.roundTrip(ctx, req)
	}
	if err != nil {
		return nil, nil, false, err
	}
	if reused {
		// The answer came after another request's on this connection: if it surprises,
		// that request may be why (Recorder.Confirm).
		if prev, ok := s.closes.lastOn(conn); ok {
			rt.before = chained(prev)
		}
	}
	defer resp.Body.Close()
	s.recordCoverage(rt, resp.StatusCode)
	// A POST answered 2xx created an animal unless the spec routes it to another operation
	// (a grown spec's POST /pets/{petId}/photos); counting here covers preparation and rules
	// alike.
	if req.Method == http.MethodPost && resp.StatusCode/100 == 2 &&
		(rt.Err != nil || rt.Route == nil || rt.Route.Operation.OperationID == spec.OpCreate) {
		s.created.Add(1)
	}
	body, err := readBody(resp)
	if err != nil && resp.Close && resp.ContentLength < 0 && resp.StatusCode >= 400 && dropped(err) {
		// An error answer whose body ends with the connection ("Connection: close", no
		// length), reset rather than closed: the server answered before reading the whole
		// request and closed at once (Node's 431 to an oversized request line), and the reset
		// its unread bytes cause may come before or after the answer's last bytes. What came
		// is the answer: which of the two happened is timing, not the server's answer.
		err = nil
	}
	if err != nil {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, body, false, &cutShortError{fmt.Errorf("reading the response body after %d bytes: %w", len(body), err)}
	}
	truncated := len(body) > maxResponseBytes
	if truncated {
		body = body[:maxResponseBytes]
	}
	s.noteOwned(req, rt, resp.StatusCode, body)
	s.closes.answered(conn, lastAnswer{status: resp.StatusCode, method: req.Method, path: req.URL.Path, closeSaid: resp.Close, at: time.Now(), req: req, before: rt.before, depth: depthOf(rt.before), curl: func() curlCmd {
		var sent []byte
		if req.GetBody != nil {
			if rc, err := req.GetBody(); err == nil {
				sent, _ = io.ReadAll(rc)
			}
		}
		return s.curlCmd(req, sent)
	}})
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, body, truncated, nil
}

// readBody reads resp's body up to one byte over the cap, into a buffer of the size the
// answer announces (Content-Length) when it does.
func readBody(resp *http.Response) ([]byte, error) {
	r := io.LimitReader(resp.Body, maxResponseBytes+1)
	n := resp.ContentLength
	if n < 0 || n > maxResponseBytes {
		return io.ReadAll(r)
	}
	buf := make([]byte, 0, n+1) // +1: room to read the end of the body
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // more came than announced
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// validate checks a response against the spec, and every error response against
// section 7 (its status field repeats the HTTP status).
func (s *Session) validate(rt *routed, status int, header http.Header, body []byte, open bool) []report.Failure {
	var out []report.Failure
	if !utf8.Valid(body) && spec.IsJSON(header) {
		// encoding/json would quietly turn the bad bytes into U+FFFD and pass the body.
		out = append(out, report.Failure{Message: "response body is not valid UTF-8 (RFC 8259 section 8.1: JSON text MUST be UTF-8)",
			Location: "body", Expected: "UTF-8", Actual: "invalid byte sequence"})
	}
	if open && status/100 == 3 || rt.head || status/100 == 2 && judge.IsElsewhere(rt.vreq.Context()) {
		// A redirect where the document leaves the answer open: the rule judges it; an
		// answer to HEAD has no content, so the rule judges its status alone; a success of
		// another resource than the operation (another host) is not the operation's.
		return out
	}
	if open && rt.Err != nil {
		// A probe of a route the spec does not have: there is nothing to validate the
		// answer against but the Error record of section 7.
		return append(out, judge.ErrorRecord(s.facts, status, header, body, status >= 500)...)
	}
	if open && status >= 400 && (status < 500 || rawOf(rt.vreq) != nil) && rt.Route.Operation.Responses.Status(status) == nil {
		// A 4xx the operation does not document, where the document leaves the answer open;
		// or the HTTP layer's refusal of a request's framing (501 to a transfer coding it
		// does not know, RFC 9112 section 6.1), which no operation documents.
		return append(out, judge.ErrorRecord(s.facts, status, header, body, false)...)
	}
	out = append(out, judge.ErrorRecord(s.facts, status, header, body, true)...)
	if rt.Err == nil && rt.Route != nil && s.checks.passes(rt.Route.Operation, rt.vreq.Method, status, header, body) {
		return out // what kin-openapi would certainly accept (fastcheck.go)
	}
	for _, v := range s.validator.ValidateRoutedResponse(rt.vreq, rt.Routed, status, header, body) {
		out = append(out, report.Failure{Message: "response breaks the spec: " + v.Message, Pointer: v.Pointer, Location: v.Location})
	}
	return out
}

// answered keeps what an exchange that got its answer needs to be written for a report,
// later and only if it is read (Recorder.Results): the request's header as sent, and no
// more of the answer's body than a report keeps.
func (s *Session) answered(req *http.Request, reqBody []byte, resp *http.Response, body []byte) answeredExchange {
	if len(body) > maxKeptBody {
		body = bytes.Clone(body[:maxKeptBody+1]) // the cut is the report's to say; the rest is not kept
	}
	u := *req.URL
	// The framing and the Host as sent go with it: the curl line repeats them.
	kept := http.Request{Method: req.Method, URL: &u, Header: req.Header.Clone(), Host: req.Host,
		TransferEncoding: slices.Clone(req.TransferEncoding)}
	if raw := rawOf(req); raw != nil {
		kept = *kept.WithContext(withRaw(context.Background(), raw))
	}
	return answeredExchange{s: s, req: kept, reqBody: reqBody,
		resp: http.Response{StatusCode: resp.StatusCode, Header: resp.Header.Clone()}, body: body}
}

// answeredExchange is an exchange as it was sent and answered, before redaction.
type answeredExchange struct {
	// done is an exchange written already (one merged from another recorder).
	done    *report.Exchange
	s       *Session
	req     http.Request
	reqBody []byte
	resp    http.Response
	body    []byte
	// before is the answer that came before this one on the same kept-alive connection (nil:
	// a connection of its own), and sent the request as sent, to send it again alone.
	before *lastAnswer
	sent   *http.Request
	// blamed is set when this answer did not come again alone (Confirm): the exchange a
	// report shows is then the request before it, with both in one curl line.
	blamed *lastAnswer
}

// build writes the exchange as a report shows it: redacted, with the curl line that repeats it.
func (a *answeredExchange) build() report.Exchange {
	if a.done != nil {
		return *a.done
	}
	if b := a.blamed; b != nil {
		ex := a.s.exchange(b.req, sentBody(b.req))
		ex.Response = &report.ExchangeResponse{Status: b.status}
		// Every request from the one blamed to this one, on one connection.
		var lines []curlCmd
		for n := a.before; n != nil; n = n.before {
			lines = append([]curlCmd{n.curl()}, lines...)
			if n == b {
				break
			}
		}
		ex.Curl = onOneConnection(append(lines, a.s.curlCmd(&a.req, a.reqBody)))
		return ex
	}
	ex := a.s.exchange(&a.req, a.reqBody)
	ex.Response = a.s.response(&a.resp, a.body)
	return ex
}

func (s *Session) exchange(req *http.Request, body []byte) report.Exchange {
	if raw := rawOf(req); raw != nil {
		// Every line as sent: the Host lines (none, empty, two), the framing chosen.
		u := s.Redact(req.URL.Scheme+"://"+req.URL.Host) + s.rawTargetShown(req, raw)
		return report.Exchange{
			Request: report.ExchangeRequest{Method: req.Method, URL: u, Header: s.red.header(s.rawExchangeHeader(req, raw, body)), Body: s.Redact(string(body))},
			Curl:    s.curl(req, body),
		}
	}
	header := s.red.header(req.Header)
	// What Go writes apart from the header map: a Host other than the URL's, and the framing.
	set := func(k, v string) {
		if header == nil {
			header = http.Header{}
		}
		header.Set(k, v)
	}
	if req.Host != "" && req.Host != req.URL.Host {
		set("Host", s.Redact(req.Host))
	}
	if len(req.TransferEncoding) > 0 {
		set("Transfer-Encoding", strings.Join(req.TransferEncoding, ", "))
	}
	return report.Exchange{
		Request: report.ExchangeRequest{Method: req.Method, URL: s.red.url(req.URL), Header: header, Body: s.Redact(string(body))},
		Curl:    s.curl(req, body),
	}
}

func (s *Session) response(resp *http.Response, body []byte) *report.ExchangeResponse {
	out := &report.ExchangeResponse{Status: resp.StatusCode, Header: s.red.header(resp.Header)}
	if len(body) > maxKeptBody {
		body, out.Truncated = body[:maxKeptBody], true
	}
	out.Body = s.Redact(string(body))
	return out
}

// depthOf is the length of the history an answer with before before it has.
func depthOf(before *lastAnswer) int {
	if before == nil {
		return 0
	}
	return before.depth + 1
}

// Package latency puts distance between a client and a server on one machine: a reverse
// proxy on 127.0.0.1 that waits a fixed delay each way (before forwarding a request and
// before returning its response) and otherwise forwards requests and responses as they
// are, bodies streamed untouched. It counts the requests it served and the most it held
// at once, which is how a benchmark sees whether a client sends its requests one at a
// time or side by side.
//
// The delay is per request, not per packet: a round trip through the proxy costs 2×Delay
// more than without it, whatever the body sizes, and opening a connection costs nothing
// extra. That is a server in another region as a client that keeps its connections alive
// sees it.
package latency

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"
)

// Options configure New and Start.
type Options struct {
	// Delay is waited twice per request: once when the request has arrived, before it is
	// forwarded, and once when the response's status and headers have come back, before
	// they are returned. Zero forwards at once.
	Delay time.Duration
	// Sleep waits d unless ctx ends first, and then returns ctx's error. Nil is a timer.
	// Tests give one that returns at once and records that it was called.
	Sleep func(ctx context.Context, d time.Duration) error
	// Transport forwards the requests; nil is a transport of its own that neither adds
	// Accept-Encoding nor decompresses, and ignores the HTTP_PROXY variables.
	Transport http.RoundTripper
	// ErrorLog receives the proxy's errors (an upstream that cannot be reached, a body cut
	// short); nil is the log package's standard logger.
	ErrorLog *log.Logger
	// Listener, when set, wraps the proxy's listener (Start): reference.Listener, so that
	// the refusals net/http writes on its own before the proxy's handler (no Host, two
	// Content-Lengths) are Error records, as the reference behind it writes them.
	Listener func(net.Listener) net.Listener
}

// Stats is what a proxy has served since it was made.
type Stats struct {
	// Requests counts the requests that arrived.
	Requests int64
	// InFlight is how many are being served now; MaxInFlight the most at any one time.
	// A request is in flight from its arrival until its response has been handed back,
	// both delays included.
	InFlight, MaxInFlight int64
	// UpstreamErrors counts the requests answered 502 because the upstream could not be
	// reached or answered nothing (not those whose client went away).
	UpstreamErrors int64
}

// Proxy is the delaying reverse proxy, an http.Handler. Its zero value is not usable; make
// one with New, or Start to serve it on a loopback port as well.
type Proxy struct {
	// URL is where Start serves the proxy, http://127.0.0.1:PORT; empty after New.
	URL string

	delay     time.Duration
	sleep     func(context.Context, time.Duration) error
	rp        *httputil.ReverseProxy
	transport http.RoundTripper
	logf      func(format string, args ...any)
	srv       *http.Server

	requests, inFlight, maxInFlight, upstreamErrors atomic.Int64
}

// New returns a proxy that forwards to upstream, an http or https origin such as
// http://127.0.0.1:8080 (a path is put in front of every request's path). A request for
// /v1/pets?limit=2 goes to upstream's /v1/pets?limit=2 with the same method, headers and
// body, and its Host header names the upstream, as through any reverse proxy.
//
// What the proxy changes, it changes as HTTP requires of any intermediary: it drops the
// hop-by-hop headers (Connection and those it names, Keep-Alive, Proxy-Authorization,
// TE, Trailer, Transfer-Encoding, Upgrade) each way, and each side's connection decides on
// its own framing of a body (Content-Length when known, else chunked). It adds nothing:
// no X-Forwarded-*, Via or User-Agent upstream, and no Content-Type that the upstream did
// not send (Go's server would otherwise sniff one). Query strings go on byte for byte,
// including those Go's ReverseProxy would re-encode (semicolons, bad escapes).
func New(upstream string, opts Options) (*Proxy, error) {
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("latency: upstream %q: %w", upstream, err)
	}
	switch {
	case target.Scheme != "http" && target.Scheme != "https":
		return nil, fmt.Errorf("latency: upstream %q: want an http or https URL", upstream)
	case target.Host == "":
		return nil, fmt.Errorf("latency: upstream %q: no host", upstream)
	case target.RawQuery != "" || target.ForceQuery || target.Fragment != "" || target.User != nil:
		return nil, fmt.Errorf("latency: upstream %q: want an origin, without user, query or fragment", upstream)
	}
	if opts.Delay < 0 {
		return nil, fmt.Errorf("latency: delay %v: want 0 or more", opts.Delay)
	}
	p := &Proxy{delay: opts.Delay, sleep: opts.Sleep, transport: opts.Transport}
	if p.sleep == nil {
		p.sleep = sleep
	}
	if p.transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil               // the upstream is where we were told, never via HTTP_PROXY
		t.DisableCompression = true // the client's Accept-Encoding, not ours, goes upstream
		t.MaxIdleConnsPerHost = 256 // as many kept-alive connections as clients send side by side
		p.transport = t
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			// ReverseProxy re-encodes a query it cannot parse (and so reorders its
			// parameters) before Rewrite; the upstream gets the one the client sent.
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
			// Rewrite drops the client's forwarding headers; they go on unchanged.
			for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
		},
		Transport:      p.transport,
		ModifyResponse: p.delayResponse,
		ErrorHandler:   p.upstreamFailed,
		ErrorLog:       opts.ErrorLog,
	}
	p.logf = log.Printf
	if opts.ErrorLog != nil {
		p.logf = opts.ErrorLog.Printf
	}
	return p, nil
}

// Start is New, served on 127.0.0.1 on a port of the system's choosing (p.URL) until
// Close.
func Start(upstream string, opts Options) (*Proxy, error) {
	p, err := New(upstream, opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	p.URL = "http://" + ln.Addr().String()
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, ErrorLog: opts.ErrorLog}
	if opts.Listener != nil {
		ln = opts.Listener(ln)
	}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Close stops a proxy that Start serves, closing its connections, requests in flight
// included, and the idle connections to the upstream.
func (p *Proxy) Close() error {
	var err error
	if p.srv != nil {
		err = p.srv.Close()
	}
	if t, ok := p.transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	return err
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	return Stats{Requests: p.requests.Load(), InFlight: p.inFlight.Load(),
		MaxInFlight: p.maxInFlight.Load(), UpstreamErrors: p.upstreamErrors.Load()}
}

// ServeHTTP waits the delay, forwards r, waits the delay again when the response's head
// is back, and returns the response.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	n := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	for {
		most := p.maxInFlight.Load()
		if n <= most || p.maxInFlight.CompareAndSwap(most, n) {
			break
		}
	}
	if p.delay > 0 {
		if err := p.sleep(r.Context(), p.delay); err != nil {
			return // the client went away
		}
	}
	if r.ContentLength > 0 {
		// A body shorter than its Content-Length (the client closed its side before the bytes
		// it announced) is refused here, as a front server refuses it, with an Error record:
		// forwarded, it would reach the upstream cut, and the answer with it.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"code":"invalid_request","message":"latency proxy: the body ended before its Content-Length","status":400}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	p.rp.ServeHTTP(&noSniff{ResponseWriter: w}, r)
}

// delayResponse waits the delay once the response's head is back, before it is returned.
func (p *Proxy) delayResponse(res *http.Response) error {
	if p.delay == 0 {
		return nil
	}
	return p.sleep(res.Request.Context(), p.delay)
}

// upstreamFailed answers 502 when the upstream could not be reached or answered nothing,
// and nothing when the client has gone.
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return
	}
	p.upstreamErrors.Add(1)
	p.logf("latency: %s %s: %v", r.Method, r.URL.Redacted(), err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = io.WriteString(w, "latency proxy: upstream: "+err.Error()+"\n")
}

// noSniff keeps Go's server from adding a Content-Type the upstream did not send: without
// one in the header map, the first Write would sniff the body and add one.
type noSniff struct {
	http.ResponseWriter
	wroteHeader bool
}

func (w *noSniff) WriteHeader(code int) {
	if code >= 200 && !w.wroteHeader {
		w.wroteHeader = true
		if _, ok := w.Header()["Content-Type"]; !ok {
			w.Header()["Content-Type"] = nil
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *noSniff) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (ReverseProxy's flushes) reach the real writer.
func (w *noSniff) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

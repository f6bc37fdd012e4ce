// Package proxy checks live and recorded traffic against the pet store description: a
// reverse proxy that validates every request and response it forwards (conformance proxy),
// and a checker for HAR files (conformance check-har). Both report each violation as one
// line naming the operation, the direction, what broke and the node of the description it
// broke, and both count which documented operation × status pairs the traffic exercised.
// Both judge every request by the client rules with the module's one judge of a client's
// requests (internal/clientrules, which the reference's test double uses too), and report
// each rule broken as one line with its ID, level and section (Finding, KindClientRule); a
// MUST rule broken fails as a violation does, a SHOULD or ADVISORY one is only reported.
package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/internal/words"
)

// ReportPath is where the proxy serves its Summary as JSON. Requests under /__conformance/
// are answered by the proxy and never forwarded.
const ReportPath = "/__conformance/report"

// DefaultMaxBodyBytes caps the bytes of each body kept for validation and recording.
const DefaultMaxBodyBytes = 1 << 20

// Config configures New.
type Config struct {
	// Upstream is the server to forward to: the base URL a client would use (ending in the
	// description's base path, e.g. https://staging.example/v1), or just its origin. The
	// proxy serves the base path itself: a request for /v1/pets goes to the upstream URL's
	// path without its trailing /v1, followed by /v1/pets. So http://h:8080,
	// http://h:8080/v1 and http://h:8080/api/v1 send /v1/pets to /v1/pets, /v1/pets and
	// /api/v1/pets; a path outside the base path (/healthz) is forwarded the same way.
	Upstream *url.URL
	// Spec is the description to check against; nil means spec.Load().
	Spec *openapi3.T
	// FailOnViolation answers an exchange that breaks the description, or whose request
	// breaks a MUST client rule (Finding.Fails), with 502 and an Error body (code
	// contract_violation) instead of the upstream's response. A SHOULD or ADVISORY client
	// rule's finding never does.
	FailOnViolation bool
	// Log receives one line per violation and per upstream error; nil discards them.
	Log io.Writer
	// Record, when set, keeps every checked exchange for a HAR file.
	Record *Recorder
	// Client's Transport forwards requests; nil means a transport like http.DefaultTransport
	// that leaves Accept-Encoding to the client.
	Client *http.Client
	// MaxBodyBytes caps each body kept for validation and recording; 0 means 1 MiB. A
	// longer body is forwarded whole but not validated.
	MaxBodyBytes int64
	// Secrets are further strings (such as PETSTORE_API_KEY) never to log or record, and
	// keys the judge of a client's requests looks for outside the Authorization header
	// (client/auth-bearer); keys seen in Authorization headers are masked anyway.
	Secrets []string
	// Now is the clock for HAR timestamps; nil means time.Now.
	Now func() time.Time
}

// Proxy is a reverse proxy that validates the traffic it forwards. It is an http.Handler.
type Proxy struct {
	cfg     Config
	rp      *httputil.ReverseProxy
	check   *checker
	secrets *secrets
	logMu   sync.Mutex
	// arrivals counts the requests arrived, in order: the judge's Retry-After counts by it.
	arrivals atomic.Uint64
}

type stateKey struct{}

// state is what ServeHTTP hands to ModifyResponse about the inbound request.
type state struct {
	in          *http.Request
	start       time.Time
	body        []byte
	reqComplete bool
	wall        time.Time // the wall clock when the request came
	arrived     uint64    // its place among the arrivals
}

// New builds a Proxy for cfg.
func New(cfg Config) (*Proxy, error) {
	if err := checkUpstream(cfg.Upstream); err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	sec := &secrets{}
	for _, s := range cfg.Secrets {
		sec.addKey(s)
	}
	c, err := newChecker(cfg.Spec, sec)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	target := *cfg.Upstream
	target.Path = strings.TrimSuffix(strings.TrimSuffix(target.Path, "/"), c.base)
	target.RawPath = ""
	p := &Proxy{cfg: cfg, check: c, secrets: sec}
	var transport http.RoundTripper
	if cfg.Client != nil && cfg.Client.Transport != nil {
		transport = cfg.Client.Transport
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true // the client's Accept-Encoding, not ours, goes upstream
		transport = t
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&target)
			// Rewrite drops the client's forwarding headers; the request goes on unchanged.
			for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
		},
		Transport:      transport,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.upstreamFailed,
	}
	return p, nil
}

func checkUpstream(u *url.URL) error {
	switch {
	case u == nil:
		return errors.New("proxy: no upstream URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("proxy: upstream %q: want an http or https URL", u.Redacted())
	case u.Host == "":
		return fmt.Errorf("proxy: upstream %q: no host", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("proxy: upstream %q: want a base URL without query or fragment", u.Redacted())
	}
	return nil
}

// Summary returns what the proxy has seen so far.
func (p *Proxy) Summary() Summary { return p.check.summary() }

// BasePath returns the description's base path, which the proxy serves ("/v1").
func (p *Proxy) BasePath() string { return p.check.base }

// ServeHTTP forwards r to the upstream and checks the exchange.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/__conformance/") {
		p.serveReport(w, r)
		return
	}
	p.secrets.learn(r.Header, r.URL.RawQuery)
	if !p.check.inScope(r) {
		p.arrivals.Add(1)
		p.check.ignore()
		p.rp.ServeHTTP(w, r)
		return
	}
	st := &state{in: r, start: p.cfg.Now(), reqComplete: true, wall: time.Now(), arrived: p.arrivals.Add(1)}
	if r.Body != nil && r.Body != http.NoBody {
		buf, err := io.ReadAll(io.LimitReader(r.Body, p.cfg.MaxBodyBytes+1))
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request", "could not read the request body: "+err.Error())
			return
		}
		st.body, st.reqComplete = capped(buf, p.cfg.MaxBodyBytes)
		r.Body = readCloser{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
}

// capped returns at most max bytes of buf, and whether buf fitted.
func capped(buf []byte, max int64) ([]byte, bool) {
	if int64(len(buf)) > max {
		return buf[:max], false
	}
	return buf, true
}

type readCloser struct {
	io.Reader
	io.Closer
}

func (p *Proxy) modifyResponse(resp *http.Response) error {
	st, _ := resp.Request.Context().Value(stateKey{}).(*state)
	if st == nil {
		return nil // outside the base path: passed through unchecked
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, p.cfg.MaxBodyBytes+1))
	if err != nil {
		return fmt.Errorf("reading the upstream's response body: %w", err)
	}
	raw, complete := capped(buf, p.cfg.MaxBodyBytes)
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
	body, ok := decode(resp.Header.Get("Content-Encoding"), raw, p.cfg.MaxBodyBytes)
	ex := exchange{
		req: st.in, reqBody: st.body, reqComplete: st.reqComplete,
		status: resp.StatusCode, header: resp.Header, respBody: body, respComplete: complete && ok,
		wall: st.wall, arrived: st.arrived, answered: time.Now(), answeredAfter: p.arrivals.Load(),
	}
	findings := p.check.check(ex)
	p.logFindings(findings)
	var failing []string
	for _, f := range findings {
		if f.Fails() {
			failing = append(failing, f.what())
		}
	}
	replaced := p.cfg.FailOnViolation && len(failing) > 0
	if p.cfg.Record != nil {
		size := int64(len(body))
		if !ex.respComplete {
			size = max(resp.ContentLength, int64(len(body))+1) // more than was kept
		}
		p.cfg.Record.add(p.secrets, st.start, p.cfg.Now().Sub(st.start), ex, resp.Proto, size, replaced)
	}
	if !replaced {
		p.check.answerSent(ex) // a 502 in its place asks no wait
	} else {
		resp.Body.Close()
		msg := fmt.Sprintf("the exchange breaks the description or a MUST client rule (%s): %s", words.Plural(len(failing), "violation"), strings.Join(failing, "; "))
		replaceWithError(resp, http.StatusBadGateway, "contract_violation", msg)
	}
	return nil
}

// decode undoes a gzip content coding for validation; other codings are not validated.
func decode(coding string, raw []byte, limit int64) ([]byte, bool) {
	switch strings.ToLower(strings.TrimSpace(coding)) {
	case "", "identity":
		return raw, true
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return raw, false
		}
		out, err := io.ReadAll(io.LimitReader(zr, limit+1))
		if err != nil || int64(len(out)) > limit {
			return raw, false
		}
		return out, true
	}
	return raw, false
}

func (p *Proxy) logFindings(fs []Finding) {
	if p.cfg.Log == nil || len(fs) == 0 {
		return
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	p.logMu.Lock()
	defer p.logMu.Unlock()
	_, _ = io.WriteString(p.cfg.Log, b.String())
}

// upstreamFailed answers a request the upstream did not answer (down, refused, timed out).
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the client went away: there is nobody to answer
	}
	p.check.upstreamError()
	msg := p.secrets.scrub(fmt.Sprintf("upstream error: %s %s: %v", r.Method, r.URL.EscapedPath(), err))
	if p.cfg.Log != nil {
		p.logMu.Lock()
		_, _ = fmt.Fprintln(p.cfg.Log, msg)
		p.logMu.Unlock()
	}
	writeError(w, http.StatusBadGateway, "upstream_unavailable", msg)
}

func (p *Proxy) serveReport(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path != ReportPath:
		writeError(w, http.StatusNotFound, "not_found", "the proxy serves only "+ReportPath+" under /__conformance/")
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", ReportPath+" answers GET only")
	default:
		var body bytes.Buffer
		enc := json.NewEncoder(&body)
		enc.SetEscapeHTML(false) // "->" in exchanges stays readable
		enc.SetIndent("", "  ")
		if err := enc.Encode(p.Summary()); err != nil {
			writeError(w, http.StatusInternalServerError, "internal", err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(body.Bytes())
	}
}

// apiError is the description's Error record.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

func errorBody(status int, code, msg string) []byte {
	b, _ := json.Marshal(apiError{Code: code, Message: msg, Status: status}) // cannot fail: strings and an int
	return b
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(status, code, msg))
}

func replaceWithError(resp *http.Response, status int, code, msg string) {
	body := errorBody(status, code, msg)
	resp.StatusCode = status
	resp.Status = fmt.Sprintf("%d %s", status, http.StatusText(status))
	resp.Header = http.Header{
		"Content-Type":   {"application/json"},
		"Content-Length": {strconv.Itoa(len(body))},
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.TransferEncoding = nil
	resp.Trailer = nil
	resp.Uncompressed = false
}

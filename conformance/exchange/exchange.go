// Package exchange sends one request of a conformance run and keeps what it shows: the
// request capped and recorded, the answer validated against the description (and against
// the Error record of section 7), retried as a 429 or 503 asks, and every trace of the API
// key redacted before a report sees it. It knows nothing of rules or of the runner: a
// Recorder collects what one rule's requests showed.
package exchange

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/coverage"
	"github.com/petstore/petstore/spec"
)

// DefaultTimeout bounds each request when no timeout is given.
const DefaultTimeout = 10 * time.Second

// Bounds of coming back when the target asks the client to (429, 503).
const (
	maxRetryAfter  = 5 * time.Second
	defaultRetryIn = time.Second
)

// Config is what a session needs: the target, the bounds of a request, and the description.
type Config struct {
	// BaseURL ends with the version segment; its query string goes on every request.
	BaseURL string
	// APIKey is the bearer token, redacted from everything a session records.
	APIKey string
	// Client sends the requests; nil means NewClient with Timeout. Either way it follows no
	// redirect and caps response headers.
	Client *http.Client
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
	// Headers are added to every request that does not set them itself.
	Headers http.Header
	// Wait sleeps between retries; nil means Sleep. Tests make it instant.
	Wait func(context.Context, time.Duration) error
	// Workers caps the requests in flight at once, across every rule and case (0: one).
	Workers int
	// Rate caps the requests per second of the session, across its workers (0: no cap).
	Rate float64
	// Facts are the description's, read once.
	Facts *spec.Facts
	// ReadOnly lets only GET and HEAD requests leave the session.
	ReadOnly bool
	// MaxWait bounds the time the session waits in all for 429 and 503 answers; zero means
	// DefaultMaxWait.
	MaxWait time.Duration
	// Halted, if set, is called once when the target cannot be judged any more (the wait
	// budget spent, the target gone), with the CannotJudgeError.
	Halted func(error)
}

// ErrBaseURL is wrapped by New's error when the base URL does not end with the spec's
// version segment: every rule would fail for that one reason.
var ErrBaseURL = errors.New("base URL does not end with the version segment")

// New returns the session of one run against cfg.BaseURL.
func New(cfg Config) (*Session, error) {
	base, err := url.Parse(strings.TrimSuffix(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		// Not written back: a URL that does not parse cannot be masked, and may hold secrets.
		return nil, errors.New("conformance: the base URL is not an http(s)://host[:port]/path URL")
	}
	f := cfg.Facts
	red := Secrets{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Headers: cfg.Headers}.redactor()
	if err := checkVersionSegment(base, f.BasePath, red); err != nil {
		return nil, err
	}
	cov, err := coverage.New(f.Doc)
	if err != nil {
		return nil, err
	}
	instant := cfg.Wait != nil // a test's wait, which takes no time
	if cfg.Wait == nil {
		cfg.Wait = Sleep
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	client := cfg.Client
	if client == nil {
		client, _ = NewClient(ClientOptions{Timeout: cfg.Timeout}) // no file to read: no error
	}
	// Paths are appended to baseURL; a query string of the base URL (a gateway's code) goes
	// on every request instead (Session.WithBaseQuery).
	bare := *base
	bare.RawQuery, bare.ForceQuery = "", false
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	client = harden(client)
	fresh, cl := client, &closes{}
	if tr, ok := client.Transport.(*http.Transport); ok {
		t := tr.Clone()
		t.DisableKeepAlives = true
		c := *client
		c.Transport = t
		fresh = &c
		if tr.DialTLSContext == nil && tr.DialTLS == nil {
			kept := tr.Clone()
			watch(kept, cl)
			c := *client
			c.Transport = kept
			client = &c
		}
	}
	s := &Session{client: client, fresh: fresh, closes: cl, maxWait: cfg.MaxWait, halt: halting{notify: cfg.Halted},
		listPath: f.ByID[spec.OpList].Path, timeout: cfg.Timeout, base: base, baseURL: bare.String(),
		key: cfg.APIKey, red: red, headers: cfg.Headers, wait: cfg.Wait, specBase: f.BasePath,
		validator: f.Validator, checks: compileResponses(f), facts: f, coverage: cov, pace: newPacer(cfg.Rate),
		inflight: make(chan struct{}, max(cfg.Workers, 1)), readOnly: cfg.ReadOnly, staticSegments: staticSegmentsOf(f)}
	if instant {
		// The time waited is measured on a clock that the waits move on, as they would.
		wait := s.wait
		s.wait = func(ctx context.Context, d time.Duration) error {
			s.waits.skip(d)
			return wait(ctx, d)
		}
	}
	return s, nil
}

var versionSegment = regexp.MustCompile(`^v[0-9]+$`)

// checkVersionSegment refuses a base URL whose path does not end with the spec's base path
// ("/v1"), and suggests the URL that does: the last segment replaced when it is another
// version ("/v2"), else the base path appended.
func checkVersionSegment(base *url.URL, specBase string, red *redactor) error {
	p := strings.TrimSuffix(base.Path, "/")
	if specBase == "" || strings.HasSuffix(p, specBase) {
		return nil
	}
	if versionSegment.MatchString(path.Base(p)) {
		p = path.Dir(p)
	}
	fixed := *base
	fixed.Path, fixed.RawPath = strings.TrimSuffix(p, "/")+specBase, ""
	return fmt.Errorf("conformance: %w %s: the base URL %s has path %q; did you mean %s?", ErrBaseURL, specBase,
		red.baseURL(base), cmp.Or(base.Path, "/"), red.baseURL(&fixed))
}

// BaseURL is the target's base URL without its query string or a trailing slash.
func (s *Session) BaseURL() string { return s.baseURL }

// Target is the target's base URL as reports show it (the key redacted).
func (s *Session) Target() string { return s.red.baseURL(s.base) }

// Key is the API key.
func (s *Session) Key() string { return s.key }

// Wait sleeps d between attempts, as the session was configured to.
func (s *Session) Wait(ctx context.Context, d time.Duration) error { return s.wait(ctx, d) }

// Created counts the createPet requests answered 2xx; Requests counts every request sent.
func (s *Session) Created() int64  { return s.created.Load() }
func (s *Session) Requests() int64 { return s.requests.Load() }

// Coverage is what the session's requests exercised of the description so far.
func (s *Session) Coverage() coverage.Coverage { return s.coverage.Snapshot() }

// Sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Redactor replaces the API key and the other secrets given in texts and URLs, for what is
// written outside a session (a run that could not be made, a command line).
type Redactor struct{ r *redactor }

// NewRedactor returns a redactor for key.
func NewRedactor(key string) Redactor { return Redactor{newRedactor(key)} }

// Redactor returns a redactor of every secret of s.
func (s Secrets) Redactor() Redactor { return Redactor{s.redactor()} }

// Text replaces every known form of the key and of the other secrets in s.
func (r Redactor) Text(s string) string { return r.r.text(s) }

// Value replaces every secret, whatever its length, in a header's or a parameter's value.
func (r Redactor) Value(s string) string { return r.r.value(s) }

// URL writes a base URL with its userinfo and query values masked and every secret replaced.
func (r Redactor) URL(u *url.URL) string { return r.r.baseURL(u) }

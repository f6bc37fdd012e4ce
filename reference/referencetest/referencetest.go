// Package referencetest starts the pet store reference server for the tests of a Go client:
// on httptest, with a key, a seed, a clock and chosen answers, closed through t.Cleanup. The
// returned Server is the client's base URL and key, and a handle on what the client did:
// the journal of its requests and the report on its use of the interface. A client that
// breaks a MUST rule of the interface document (double.ClientRule) fails the test.
package referencetest

import (
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
)

// DefaultAPIKey is the key a Server accepts unless Options.APIKey says otherwise.
const DefaultAPIKey = "referencetest-api-key"

// Options configure Start; the zero value is an empty store, the wall clock, no scenarios.
type Options struct {
	// APIKey is the accepted bearer key; "" means DefaultAPIKey.
	APIKey string
	// Seed is the initial content of the store (ids 1, 2, 3 ... in order).
	Seed []reference.NewPet
	// Now, when set, is the server's clock: fixed at that instant until SetNow moves it, so
	// that a test does not depend on the day it runs. Zero is the wall clock.
	Now time.Time
	// Scenarios lets requests choose their answer with Prefer: code=NNN and delay=MS.
	Scenarios bool
	// Journal is how many requests are kept; 0 means 1000.
	Journal int
	// Vary, when not 0, makes the server take the open choices this seed picks
	// (double.ChooseVariations: ids beyond 2^53, listings out of order, short pages ...),
	// as petstore serve --vary does.
	Vary uint64
	// AllowViolations names the client rules (double.RuleAuthBearer ...) whose MUST
	// violations do not fail the test: a test that breaks one on purpose says so here.
	AllowViolations []string
	// Config, when set, changes anything else before the server starts (Double.Latency
	// with Double.Sleep, Double.FailRate with Double.Rand, a Spec ...).
	Config func(*reference.Config)
}

// Server is a running reference server for one test.
type Server struct {
	URL      string // the base URL, ending in the version segment: http://127.0.0.1:PORT/v1
	APIKey   string
	AdminKey string // for the endpoints under /_admin/, should the client test want them
	// Reference is the server itself, for what the helpers below do not cover.
	Reference *reference.Server
	t         testing.TB
}

// Start serves the reference on a loopback port until the test ends. It fails the test if
// the server cannot start; when the test fails, the client report is logged.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{APIKey: opts.APIKey, AdminKey: rand.Text(), t: t}
	if s.APIKey == "" {
		s.APIKey = DefaultAPIKey
	}
	cfg := reference.Config{
		APIKeys:  []string{s.APIKey},
		AdminKey: s.AdminKey,
		Seed:     opts.Seed,
		Double:   double.Double{Scenarios: opts.Scenarios, Journal: opts.Journal, Vary: opts.Vary},
	}
	if cfg.Double.Journal == 0 {
		cfg.Double.Journal = 1000
	}
	if !opts.Now.IsZero() {
		now := opts.Now
		cfg.Now = func() time.Time { return now }
	}
	if opts.Config != nil {
		opts.Config(&cfg)
	}
	ref, err := reference.New(cfg)
	if err != nil {
		t.Fatalf("referencetest: %v", err)
	}
	srv := httptest.NewUnstartedServer(ref)         // httptest listens on 127.0.0.1
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	s.URL, s.Reference = srv.URL+ref.Facts().BasePath, ref
	t.Cleanup(func() {
		srv.Close()
		s.judge(opts.AllowViolations)
		if t.Failed() {
			s.logReport()
		}
	})
	return s
}

// Client returns an http.Client that sends the API key, and the given header pairs, with
// every request: Client("Prefer", "code=401") makes every answer a 401.
func (s *Server) Client(header ...string) *http.Client {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+s.APIKey)
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	return &http.Client{Transport: withHeader{h: h, next: http.DefaultTransport}}
}

// withHeader adds its fields to requests that do not set them.
type withHeader struct {
	h    http.Header
	next http.RoundTripper
}

func (wh withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range wh.h {
		if r.Header.Get(k) == "" {
			r.Header[k] = vs
		}
	}
	return wh.next.RoundTrip(r)
}

// Requests returns the journal's entries that f selects, oldest first.
func (s *Server) Requests(f double.RequestFilter) []double.JournalEntry {
	s.t.Helper()
	j, err := s.Reference.Requests(f)
	if err != nil {
		s.t.Fatalf("referencetest: %v", err)
	}
	return j.Requests
}

// Report returns the report on the client's use of the interface so far.
func (s *Server) Report() double.ClientReport {
	s.t.Helper()
	rep, err := s.Reference.Report()
	if err != nil {
		s.t.Fatalf("referencetest: %v", err)
	}
	return rep
}

// SetNow moves the server's clock, across getPet's removal date for instance.
func (s *Server) SetNow(now time.Time) {
	s.t.Helper()
	if err := s.Reference.SetNow(now); err != nil {
		s.t.Fatalf("referencetest: %v", err)
	}
}

// Reset restores the seed and the clock, and empties the journal.
func (s *Server) Reset() {
	s.t.Helper()
	if err := s.Reference.Reset(); err != nil {
		s.t.Fatalf("referencetest: %v", err)
	}
}

// judge fails the test when the client broke a MUST rule of the interface document (the
// client report's rules), other than those allowed.
func (s *Server) judge(allowed []string) {
	rep, err := s.Reference.Report()
	if err != nil {
		return
	}
	for _, rule := range rep.MustBroken(allowed...) {
		s.t.Errorf("referencetest: the client broke %s (allow it with Options.AllowViolations)", rule)
	}
}

func (s *Server) logReport() {
	rep, err := s.Reference.Report()
	if err != nil {
		return
	}
	var b strings.Builder
	_ = rep.WriteMarkdown(&b)
	s.t.Logf("referencetest: what the client did:\n%s", b.String())
}

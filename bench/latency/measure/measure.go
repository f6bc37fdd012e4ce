// Package measure runs the conformance catalogue against a fresh in-process reference server
// through the latency proxy and says what the run cost: wall time, requests, and the most
// requests in flight at once. The latency command prints one row per delay, and
// BenchmarkRunThroughDelay times the same.
package measure

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/petstore/petstore/bench/latency"
	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// Setup is a reference server on a loopback port with a proxy in front of it.
type Setup struct {
	// Target is the reference through the proxy, as a run would be given it; Direct is the
	// reference itself.
	Target, Direct conformance.Target
	Proxy          *latency.Proxy
	ref            *http.Server
}

// Start serves a fresh reference server (an empty store, opts.Spec, its clock opts.Now or
// else the wall clock, as `conformance run` starts one) and a proxy in front of it that
// waits delay each way.
func Start(delay time.Duration, opts conformance.Options) (*Setup, error) {
	doc := opts.Spec
	if doc == nil {
		var err error
		if doc, err = spec.Load(); err != nil {
			return nil, err
		}
	}
	base, err := spec.BasePath(doc)
	if err != nil {
		return nil, err
	}
	clock := time.Now
	if !opts.Now.IsZero() {
		clock = func() time.Time { return opts.Now }
	}
	key := "latency-" + rand.Text()
	h, err := reference.NewServer(reference.Config{Spec: doc, APIKeys: []string{key}, Now: clock})
	if err != nil {
		return nil, fmt.Errorf("measure: reference: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	s := &Setup{ref: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}}
	go func() { _ = s.ref.Serve(reference.Listener(ln)) }()
	origin := "http://" + ln.Addr().String()
	if s.Proxy, err = latency.Start(origin, latency.Options{Delay: delay, Listener: reference.Listener}); err != nil {
		_ = s.ref.Close()
		return nil, err
	}
	s.Target = conformance.Target{BaseURL: s.Proxy.URL + base, APIKey: key}
	s.Direct = conformance.Target{BaseURL: origin + base, APIKey: key}
	return s, nil
}

// Close stops the proxy and the reference.
func (s *Setup) Close() {
	_ = s.Proxy.Close()
	_ = s.ref.Close()
}

// Row is one run of the catalogue through the proxy.
type Row struct {
	// Delay is the proxy's delay each way.
	Delay time.Duration
	// Wall is how long conformance.Run took (starting the servers excluded).
	Wall time.Duration
	// Requests and MaxInFlight are counted by the proxy.
	Requests, MaxInFlight int64
	Report                *conformance.Report
}

// Run runs the catalogue with opts through a fresh Setup with the given delay.
func Run(ctx context.Context, delay time.Duration, opts conformance.Options) (Row, error) {
	s, err := Start(delay, opts)
	if err != nil {
		return Row{}, err
	}
	defer s.Close()
	start := time.Now()
	rep, err := conformance.Run(ctx, s.Target, opts)
	wall := time.Since(start)
	if err != nil {
		return Row{}, err
	}
	st := s.Proxy.Stats()
	return Row{Delay: delay, Wall: wall, Requests: st.Requests, MaxInFlight: st.MaxInFlight, Report: rep}, nil
}

// ParseDelays reads a comma-separated list of delays each way, such as "0,25ms,100ms"
// (a bare 0 is allowed, as time.ParseDuration allows).
func ParseDelays(list string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(list, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("delays %q: %w", list, err)
		}
		if d < 0 {
			return nil, fmt.Errorf("delays %q: %v: want 0 or more", list, d)
		}
		out = append(out, d)
	}
	return out, nil
}

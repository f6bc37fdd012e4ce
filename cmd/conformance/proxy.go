package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/proxy"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/spec"
)

// The tools for live and recorded traffic: proxy and check-har.

// startTimeout bounds the reachability check of the upstream at start.
const startTimeout = 10 * time.Second

// proxyCommand runs `conformance proxy`. It listens first, prints the address a client
// should use as its base URL, serves until ctx is done, then prints the summary and writes
// the HAR file. Violation and client rule lines go to stdout as they happen. Exit 0 when no
// violation and no MUST client rule broken was seen (SHOULD and ADVISORY client rules'
// findings are reported, never failed), 1 when some were, 2 for bad flags, an unreadable
// spec, an unreachable upstream or a HAR file that cannot be written.
// proxyFlags are the proxy's flags.
type proxyFlags struct {
	upstream, listen, spec, record string
	failOn                         bool
}

// flagSet defines the proxy's flags over f.
func (f *proxyFlags) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.StringVar(&f.upstream, "upstream", "", "base `URL` of the server to forward to, e.g. https://staging.example/v1; default PETSTORE_BASE_URL")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:9090", "`address` to listen on (port 0 picks a free one)")
	fs.StringVar(&f.spec, "spec", "", "OpenAPI description `FILE` to check against; default the embedded spec/openapi.yaml")
	fs.BoolVar(&f.failOn, "fail-on-violation", false, "answer an exchange that breaks the description or a MUST client rule with 502 and an Error body")
	fs.StringVar(&f.record, "record", "", "write the traffic seen to this HAR `FILE` on exit")
	return fs
}

func proxyCommand(ctx context.Context, e env, args []string) error {
	var f proxyFlags
	if err := parseFlags(f.flagSet(), args, e); err != nil {
		return err
	}
	base := first(f.upstream, e.getenv("PETSTORE_BASE_URL"))
	if base == "" {
		return cli.Usagef("conformance proxy: --upstream URL is required (or set PETSTORE_BASE_URL)")
	}
	u, err := url.Parse(base)
	if err != nil {
		return cli.Usagef("conformance proxy: --upstream: %v", err)
	}
	doc, err := loadSpec(e, "proxy", f.spec)
	if err != nil {
		return err
	}
	var rec *proxy.Recorder
	if f.record != "" {
		rec = proxy.NewRecorder()
	}
	p, err := proxy.New(proxy.Config{Upstream: u, Spec: doc, FailOnViolation: f.failOn, Log: e.stdout, Record: rec,
		Secrets: []string{e.getenv("PETSTORE_API_KEY")}})
	if err != nil {
		// The library's errors carry its own prefix ("proxy: upstream ...: no host").
		return cli.Usagef("conformance proxy: %s", strings.TrimPrefix(err.Error(), "proxy: "))
	}
	var harOut *os.File
	if f.record != "" {
		// Created now, so that a path that cannot be written fails before the session, not after.
		if harOut, err = os.Create(f.record); err != nil {
			return cli.Usagef("conformance proxy: --record: %v", err)
		}
		defer harOut.Close()
	}
	if err := reachable(ctx, u); err != nil {
		return cli.Usagef("conformance proxy: upstream %s is unreachable: %v", u.Redacted(), err)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return cli.Usagef("conformance proxy: --listen: %v", err)
	}
	if err := serveProxy(ctx, e, p, ln, u); err != nil {
		return err
	}
	return proxySummary(e, p, rec, harOut, f.record)
}

// serveProxy serves p on ln until ctx ends (the user's interrupt); then in-flight exchanges
// finish, and stragglers are cut after 5s.
func serveProxy(ctx context.Context, e env, p *proxy.Proxy, ln net.Listener, u *url.URL) error {
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(e.stdout, "conformance proxy: listening on http://%s%s, forwarding to %s (report: http://%s%s)\n",
		ln.Addr(), p.BasePath(), u.Redacted(), ln.Addr(), proxy.ReportPath)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return cli.Usagef("conformance proxy: %v", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	return nil
}

// proxySummary writes what the session saw and, with --record, its HAR file; exit 1 when an
// exchange broke the description or a MUST client rule (proxy.Summary.Fails).
func proxySummary(e env, p *proxy.Proxy, rec *proxy.Recorder, harOut *os.File, record string) error {
	sum := p.Summary()
	if err := sum.WriteText(e.stdout); err != nil {
		return cli.Usagef("conformance proxy: %v", err)
	}
	if rec != nil {
		if _, err := rec.WriteTo(harOut); err != nil {
			return cli.Usagef("conformance proxy: --record: %v", err)
		}
		if err := harOut.Close(); err != nil {
			return cli.Usagef("conformance proxy: --record: %v", err)
		}
		fmt.Fprintf(e.stdout, "recorded %s to %s\n", words.Plural(rec.Len(), "exchange"), record)
	}
	if sum.Fails() {
		return cli.Failed("")
	}
	return nil
}

// reachable checks that the upstream answers HTTP at all: any status will do (a base URL
// often answers 404 or 401 to HEAD); a refused connection, a DNS or TLS failure will not.
func reachable(ctx context.Context, u *url.URL) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is already in the message
		}
		return err
	}
	return resp.Body.Close()
}

// checkHARCommand runs `conformance check-har FILE.har [--spec FILE] [--host HOST]`. It
// prints one line per violation and per client rule's finding, and the summary. Exit 0 when
// the traffic conforms, 1 when it has violations or breaks a MUST client rule, 2 when the file cannot be read or holds nothing under the base path.
func checkHARCommand(_ context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("check-har", flag.ContinueOnError)
	specFile := fs.String("spec", "", "OpenAPI description `FILE` to check against; default the embedded spec/openapi.yaml")
	host := fs.String("host", "", "check only entries for this `host`; default every host")
	files, err := parseArgs(fs, args, e)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return cli.Usagef("conformance check-har: want one HAR file, got %s", words.Plural(len(files), "argument"))
	}
	doc, err := loadSpec(e, "check-har", *specFile)
	if err != nil {
		return err
	}
	name := files[0]
	f, err := os.Open(name)
	if err != nil {
		return cli.Usagef("conformance check-har: %v", err)
	}
	defer f.Close()
	var opts []proxy.HAROption
	if *host != "" {
		opts = append(opts, proxy.OnlyHost(*host))
	}
	sum, err := proxy.CheckHAR(f, doc, opts...)
	if err != nil {
		return cli.Usagef("conformance check-har: %s: %v", name, err)
	}
	for _, fd := range sum.Findings {
		fmt.Fprintln(e.stdout, fd.String())
	}
	if n := sum.Reported() - len(sum.Findings); n > 0 {
		fmt.Fprintf(e.stdout, "(%s not listed)\n", words.Plural(n, "further finding"))
	}
	if err := sum.WriteText(e.stdout); err != nil {
		return cli.Usagef("conformance check-har: %v", err)
	}
	if sum.Checked == 0 {
		base, _ := spec.BasePath(doc)
		return cli.Usagef("conformance check-har: %s: no entry under the base path %s (%d ignored): nothing was checked", name, base, sum.Ignored)
	}
	if sum.Fails() {
		return cli.Failed("")
	}
	return nil
}

package proxy

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/spec"
)

// startTimeout bounds the reachability check of the upstream at start.
const startTimeout = 10 * time.Second

// Command runs `conformance proxy`; args are the arguments after the command name. It
// listens first, prints the address a client should use as its base URL, serves until ctx is
// done, then prints the Summary and writes the HAR file. Violation lines go to stdout as
// they happen. It returns nil when no violation was seen, cli.Failed (exit 1) when some
// were, and a cli.Usagef error (exit 2) for bad flags, an unreadable spec, an unreachable
// upstream or a HAR file that cannot be written.
func Command(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, specFile := commandFlags("conformance proxy",
		"conformance proxy --upstream URL [--listen 127.0.0.1:9090] [--spec FILE] [--fail-on-violation] [--record FILE.har]", stderr)
	upstream := fs.String("upstream", getenv("PETSTORE_BASE_URL"), "base URL of the server to forward to, e.g. https://staging.example/v1 (default $PETSTORE_BASE_URL)")
	listen := fs.String("listen", "127.0.0.1:9090", "address to listen on")
	failOn := fs.Bool("fail-on-violation", false, "answer an exchange that breaks the description with 502 and an Error body")
	record := fs.String("record", "", "write the traffic seen to this HAR file on exit")
	if help, err := parseInterleaved(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("proxy: unexpected argument %q", fs.Arg(0))
	}
	if *upstream == "" {
		return cli.Usagef("proxy: --upstream URL is required (or set PETSTORE_BASE_URL)")
	}
	u, err := url.Parse(*upstream)
	if err == nil {
		err = checkUpstream(u)
	}
	if err != nil {
		return cli.Usagef("proxy: --upstream: %v", err)
	}
	doc, err := loadSpec(*specFile)
	if err != nil {
		return err
	}
	var rec *Recorder
	var harOut *os.File
	if *record != "" {
		// Created now, so that a path that cannot be written fails before the session, not after.
		if harOut, err = os.Create(*record); err != nil {
			return cli.Usagef("proxy: --record: %v", err)
		}
		defer harOut.Close()
		rec = NewRecorder()
	}
	if err := reachable(ctx, u); err != nil {
		return cli.Usagef("proxy: upstream %s is unreachable: %v", u.Redacted(), err)
	}
	p, err := New(Config{Upstream: u, Spec: doc, FailOnViolation: *failOn, Log: stdout, Record: rec,
		Secrets: []string{getenv("PETSTORE_API_KEY")}})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return cli.Usagef("proxy: --listen: %v", err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stdout, "conformance proxy: listening on http://%s%s, forwarding to %s (report: http://%s%s)\n",
		ln.Addr(), p.BasePath(), u.Redacted(), ln.Addr(), ReportPath)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err = <-served:
		return cli.Usagef("proxy: %v", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx) // in-flight exchanges finish; stragglers are cut after 5s
	sum := p.Summary()
	if err := sum.WriteText(stdout); err != nil {
		return cli.Usagef("proxy: %v", err)
	}
	if rec != nil {
		if _, err := rec.WriteTo(harOut); err != nil {
			return cli.Usagef("proxy: --record: %v", err)
		}
		if err := harOut.Close(); err != nil {
			return cli.Usagef("proxy: --record: %v", err)
		}
		fmt.Fprintf(stdout, "recorded %d exchanges to %s\n", rec.Len(), *record)
	}
	if sum.Violations > 0 {
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

// CheckHARCommand runs `conformance check-har FILE.har [--spec FILE] [--host HOST]`; args
// are the arguments after the command name. It prints one line per violation and the
// Summary, and returns nil when the traffic conforms, cli.Failed (exit 1) when it has
// violations, and a cli.Usagef error (exit 2) when the file cannot be read or holds nothing
// under the base path.
func CheckHARCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_ = ctx // the check reads one file and does no I/O worth cancelling
	fs, specFile := commandFlags("conformance check-har", "conformance check-har FILE.har [--spec FILE] [--host HOST]", stderr)
	host := fs.String("host", "", "check only entries for this host (default: every host)")
	if help, err := parseInterleaved(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.Usagef("check-har: want one HAR file, got %d arguments", fs.NArg())
	}
	doc, err := loadSpec(*specFile)
	if err != nil {
		return err
	}
	name := fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		return cli.Usagef("check-har: %v", err)
	}
	defer f.Close()
	var opts []HAROption
	if *host != "" {
		opts = append(opts, OnlyHost(*host))
	}
	sum, err := CheckHAR(f, doc, opts...)
	if err != nil {
		return cli.Usagef("check-har: %s: %v", name, err)
	}
	for _, fd := range sum.Findings {
		fmt.Fprintln(stdout, fd.String())
	}
	if len(sum.Findings) < sum.Violations {
		fmt.Fprintf(stdout, "(%d further violations not listed)\n", sum.Violations-len(sum.Findings))
	}
	if err := sum.WriteText(stdout); err != nil {
		return cli.Usagef("check-har: %v", err)
	}
	if sum.Checked == 0 {
		base, _ := spec.BasePath(doc)
		return cli.Usagef("check-har: %s: no entry under the base path %s (%d ignored): nothing was checked", name, base, sum.Ignored)
	}
	if sum.Violations > 0 {
		return cli.Failed("")
	}
	return nil
}

// commandFlags returns a flag set that reports to stderr, with the --spec flag both
// commands take.
func commandFlags(name, usage string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+usage)
		fs.PrintDefaults()
	}
	return fs, fs.String("spec", "", "OpenAPI description to check against (default: the embedded spec/openapi.yaml)")
}

// parseInterleaved parses flags that may come before or after positional arguments
// (`check-har FILE.har --spec x.yaml`), which flag.Parse alone stops at. help is true
// after -h, which printed the usage and is no error; a bad flag is an exit-2 error.
func parseInterleaved(fs *flag.FlagSet, args []string) (help bool, err error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return true, nil
			}
			return false, cli.Usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	return false, fs.Parse(append([]string{"--"}, positional...))
}

func loadSpec(path string) (*openapi3.T, error) {
	if path == "" {
		doc, err := spec.Load()
		if err != nil {
			return nil, cli.Usagef("%v", err)
		}
		return doc, nil
	}
	doc, err := spec.LoadFile(path)
	if err != nil {
		return nil, cli.Usagef("--spec: %v", err)
	}
	return doc, nil
}

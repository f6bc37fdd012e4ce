package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

type runFlags struct {
	baseURL, apiKey, now, format, output, spec, caCert, waivers string
	depth                                                       string
	insecure                                                    bool
	only, skip                                                  globList
	strict, readOnly, failFast, keep, noKeyElsewhere            bool
	headers                                                     headerList
	timeout, maxWait                                            time.Duration
	reports                                                     reportList
	minCoverage                                                 float64
	seed                                                        uint64
	fuzz, strength, maxCreates, workers                         int
	rate                                                        float64
}

// flagSet defines run's flags over f.
func (f *runFlags) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&f.baseURL, "base-url", "", "base `URL` of the service, ending in /v1; default PETSTORE_BASE_URL, else the reference in-process")
	fs.StringVar(&f.apiKey, "api-key", "", "API `key` sent as bearer token; default PETSTORE_API_KEY")
	fs.Var(&f.only, "only", "run only rules whose ID matches this `glob` or prefix (repeatable, comma-separated)")
	fs.Var(&f.headers, "header", "add this request header, `'Name: value'`, to every request, e.g. for a gateway (repeatable)")
	cli.Shorthand(fs, "H", "header")
	fs.BoolVar(&f.failFast, "fail-fast", false, "stop at the first MUST rule that fails or cannot be evaluated; the rest are skipped")
	fs.Var(&f.skip, "skip", "skip rules whose ID matches this `glob` or prefix (repeatable, comma-separated)")
	fs.BoolVar(&f.strict, "strict", false, "count SHOULD failures and failures of experimental or beta operations")
	fs.BoolVar(&f.readOnly, "read-only", false, "send only GET and HEAD requests: create, change and remove nothing; the report says what that left unjudged")
	fs.BoolVar(&f.keep, "keep", false, "leave the animals the run created; otherwise, when the spec has a delete operation, the run removes them at the end")
	fs.StringVar(&f.now, "now", "", "the run's clock, `DATE` as 2006-01-02 or RFC 3339 (decides whether removed operations are gone)")
	fs.DurationVar(&f.timeout, "timeout", conformance.DefaultTimeout, "per-request timeout, a `duration` such as 30s")
	fs.StringVar(&f.format, "format", "text", "report `format`: "+formatNames())
	fs.StringVar(&f.output, "output", "", "write the report to `FILE` instead of stdout")
	fs.Var(&f.reports, "report", "also write a report as `FORMAT=FILE`, e.g. html=out/report.html (repeatable; creates the directories)")
	fs.Float64Var(&f.minCoverage, "min-coverage", 0, "fail the run when it exercises less than this `PERCENT` of the documented operation × status pairs")
	fs.StringVar(&f.waivers, "waivers", "", "YAML `FILE` of waivers: a list of {rule, reason, expires: YYYY-MM-DD}")
	fs.StringVar(&f.caCert, "ca-cert", "", "trust the certificate authorities in this PEM `FILE` too (a target with a private CA)")
	fs.BoolVar(&f.insecure, "insecure", false, "do not verify the target's TLS certificate")
	fs.StringVar(&f.spec, "spec", "", "OpenAPI description `FILE`; default the embedded spec/openapi.yaml")
	fs.Uint64Var(&f.seed, "seed", 0, "`seed` of the generated cases (names, --fuzz combinations); default one from the clock, printed in every report")
	fs.IntVar(&f.fuzz, "fuzz", 0, "add `N` random combinations of request variants (shrunk when they fail), and combine a rejected key with every triple of other variants")
	fs.BoolVar(&f.noKeyElsewhere, "no-key-elsewhere", false, "do not offer the key outside the Authorization header (a query string, a cookie, another field), where logs on the way would keep it; those cases are counted as not judged")
	fs.StringVar(&f.depth, "depth", "default", "how much of the request space to send: `default` or deep (every anatomy value, every rejected key with every other variant; docs/anatomy.md)")
	fs.IntVar(&f.strength, "strength", 0, "combine a rejected key with every `t`-tuple of other variants (1 to 3; default 2, 3 with --fuzz)")
	fs.IntVar(&f.maxCreates, "max-creates", conformance.DefaultMaxCreates, "create at most `N` animals; cases that would create more are not sent, and counted")
	fs.IntVar(&f.workers, "workers", conformance.DefaultWorkers, "send at most `N` requests at once: rules, and the cases of a rule, side by side (1: one at a time)")
	fs.Float64Var(&f.rate, "rate", 0, "send at most `R` requests per second in all, for a shared staging (0: no cap)")
	fs.DurationVar(&f.maxWait, "max-wait", exchange.DefaultMaxWait, "wait at most this `duration` in all for a target that answers 429 or 503; then it cannot be judged (exit 2)")
	return fs
}

// check refuses flags no run can be made with (exit 2, before anything is sent or written).
func (f *runFlags) check() error {
	if _, ok := conformance.Formats[f.format]; !ok {
		return cli.Usagef("conformance run: unknown --format %q (%s)", f.format, formatNames())
	}
	if f.timeout <= 0 {
		return cli.Usagef("conformance run: --timeout must be positive")
	}
	if f.depth != "default" && f.depth != "deep" {
		return cli.Usagef("conformance run: --depth %q: want default or deep", f.depth)
	}
	if f.strength < 0 || f.strength > 3 {
		return cli.Usagef("conformance run: --strength %d: want 1, 2 or 3", f.strength)
	}
	if f.fuzz < 0 {
		return cli.Usagef("conformance run: --fuzz %d: want a number of combinations, 0 or more", f.fuzz)
	}
	if f.maxCreates < 1 {
		return cli.Usagef("conformance run: --max-creates %d: want 1 or more (use --read-only to create nothing)", f.maxCreates)
	}
	if f.workers < 1 {
		return cli.Usagef("conformance run: --workers %d: want 1 or more", f.workers)
	}
	if f.rate < 0 {
		return cli.Usagef("conformance run: --rate %g: want requests per second, 0 (no cap) or more", f.rate)
	}
	if f.headers.bad {
		return cli.Usagef("conformance run: -H: want 'Name: value', e.g. 'X-Gateway-Key: abc' (the value given is not repeated: it may be a secret)")
	}
	if f.maxWait <= 0 {
		return cli.Usagef("conformance run: --max-wait %s: want a positive duration", f.maxWait)
	}
	if f.minCoverage < 0 || f.minCoverage > 100 {
		return cli.Usagef("conformance run: --min-coverage %g: want a percentage from 0 to 100", f.minCoverage)
	}
	return nil
}

func runCommand(ctx context.Context, e env, args []string) error {
	var f runFlags
	fs := f.flagSet()
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	return f.run(ctx, e, fs, nil)
}

// run makes the run the flags ask for. catalogue, when set, gives the rules to run instead
// of the rule catalogue (conformance pact verify).
func (f *runFlags) run(ctx context.Context, e env, fs *flag.FlagSet, catalogue func(*spec.Facts) ([]rules.Rule, error)) error {
	if err := f.check(); err != nil {
		return err
	}
	write := conformance.Formats[f.format]
	target := conformance.Target{BaseURL: first(f.baseURL, e.getenv("PETSTORE_BASE_URL")), APIKey: first(f.apiKey, e.getenv("PETSTORE_API_KEY"))}
	opts, err := f.options(e, fs, target.APIKey)
	// From here on, a run that cannot be made still writes the reports asked for, with the
	// reason, so that a CI job always has its artifacts.
	notRun := func(err error) error {
		writeReports(e, *f, write, conformance.NotRunReport(target, opts, err), true)
		return cli.Usagef("%v", err)
	}
	if err != nil {
		return notRun(err)
	}
	// The catalogue as the runner will build it, selected before a reference server is
	// started for the run; the progress lines follow it.
	all := rules.All(opts.Facts)
	if opts.Fuzz > 0 {
		all = append(all, rules.Fuzz(opts.Facts, opts.Fuzz)...)
	}
	if catalogue != nil {
		if all, err = catalogue(opts.Facts); err != nil {
			return notRun(err)
		}
		opts.Rules = all
	}
	selected, err := conformance.Select(all, opts.Only, opts.Skip)
	if err != nil {
		return notRun(err)
	}
	if target.BaseURL == "" {
		stop, err := startReference(&target, opts)
		if err != nil {
			return notRun(fmt.Errorf("conformance run: in-process reference: %w", err))
		}
		defer stop()
	}
	if target.Client, err = conformance.NewClient(conformance.ClientOptions{Timeout: f.timeout, CACertFile: f.caCert, Insecure: f.insecure}); err != nil {
		return notRun(fmt.Errorf("conformance %s: %w", fs.Name(), err))
	}
	var done func()
	opts.Progress, opts.Finished, done = progress(e, ids(selected))
	rep, err := conformance.Run(ctx, target, opts)
	done()
	if err != nil && rep == nil {
		return notRun(err)
	}
	if err != nil {
		// Stopped before its end: the reports hold what was judged, and the one line why.
		if werr := writeReports(e, *f, write, rep, false); werr != nil {
			return werr
		}
		return cli.Usagef("conformance: cannot judge %s: %s", rep.Target, rep.GateFailures[len(rep.GateFailures)-1].Message)
	}
	if err := writeReports(e, *f, write, rep, false); err != nil {
		return err
	}
	writeSecretVars(e.stderr, exchange.Secrets{BaseURL: target.BaseURL, Headers: opts.Headers})
	return runVerdict(e, rep)
}

// writeSecretVars says, when the run was given secrets besides the key, which environment
// variables the curl lines of its reports read them from: reports never show them.
func writeSecretVars(w io.Writer, s exchange.Secrets) {
	vars := s.Vars()
	if len(vars) == 0 {
		return
	}
	names := []string{"PETSTORE_API_KEY (the API key)"}
	for _, v := range vars {
		names = append(names, v.Var+" ("+v.What+")")
	}
	fmt.Fprintf(w, "conformance: reports show the secrets given as variables; to run a curl line, export %s\n", strings.Join(names, ", "))
}

// options are the run's options as the flags give them, with the waivers, the clock and the
// facts read; on an error, as far as they got (a report that the run was not made needs them).
func (f *runFlags) options(e env, fs *flag.FlagSet, apiKey string) (conformance.Options, error) {
	opts := conformance.Options{Only: f.only, Skip: f.skip, Strict: f.strict, ReadOnly: f.readOnly, Keep: f.keep, Timeout: f.timeout,
		MinCoverage: f.minCoverage, Seed: f.seed, Fuzz: f.fuzz, Strength: f.strength, Deep: f.depth == "deep", NoKeyElsewhere: f.noKeyElsewhere, MaxCreates: f.maxCreates, Headers: f.headers.h, FailFast: f.failFast,
		Workers: f.workers, Rate: f.rate, MaxWait: f.maxWait}
	var err error
	if f.waivers != "" {
		if opts.Waivers, err = conformance.ReadWaivers(f.waivers); err != nil {
			return opts, err
		}
	}
	if opts.Now, err = parseNow(f.now); err != nil {
		return opts, err
	}
	if opts.Facts, err = loadFacts(e, "run", f.spec); err != nil {
		return opts, err
	}
	opts.Spec = opts.Facts.Doc
	prov := provenance(fs, f.spec, apiKey)
	opts.Provenance = &prov
	return opts, nil
}

// runVerdict is how a run that reached its end exits, its reports written: 0 when
// conforming, 1 with the gates that failed, 2 when every selected rule was skipped.
func runVerdict(e env, rep *conformance.Report) error {
	if ciLog(e) {
		writeUnjudged(e.stderr, rep)
	}
	if rep.Verdict == conformance.NotRun {
		// The library's verdict when every selected rule was skipped: no verdict.
		return cli.Usagef("conformance: %s", rep.GateFailures[0].Message)
	}
	if len(rep.GateFailures) > 0 {
		lines := make([]string, len(rep.GateFailures))
		for i, g := range rep.GateFailures {
			lines[i] = "conformance: " + g.Message
		}
		return cli.Failed("%s", strings.Join(lines, "\n"))
	}
	if !rep.Conforming() {
		return cli.Failed("")
	}
	return nil
}

// provenance is what the report records of this command line: the flags given as
// --name=value (the key masked by report.NewProvenance, a header's value by its name only,
// since a gateway's header may be a secret too) and the sha256 of the description read.
func provenance(fs *flag.FlagSet, specFile, key string) conformance.Provenance {
	var flags []string
	fs.Visit(func(fl *flag.Flag) {
		name, value := fl.Name, maskedFlag(fl)
		if h, ok := fl.Value.(*headerList); ok { // --header and its shorthand -H
			name, value = "header", strings.Join(slices.Sorted(maps.Keys(h.h)), ",")+": ***"
		}
		flags = append(flags, "--"+name+"="+value)
	})
	data := spec.Bytes()
	if specFile != "" {
		data, _ = os.ReadFile(specFile) // read already by loadFacts; a failure there stopped the run
	}
	return report.NewProvenance("", report.SpecSHA256(data), 0, flags, key)
}

func formatNames() string {
	names := make([]string, 0, len(conformance.Formats))
	for name := range conformance.Formats {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// reportList is the repeatable --report FORMAT=FILE.
type reportList []reportFile

type reportFile struct{ format, file string }

func (l *reportList) String() string {
	parts := make([]string, len(*l))
	for i, r := range *l {
		parts[i] = r.format + "=" + r.file
	}
	return strings.Join(parts, ",")
}

func (l *reportList) Set(v string) error {
	format, file, ok := strings.Cut(v, "=")
	if !ok || file == "" {
		return fmt.Errorf("want FORMAT=FILE, e.g. html=out/report.html")
	}
	if _, known := conformance.Formats[format]; !known {
		return fmt.Errorf("unknown format %q (%s)", format, formatNames())
	}
	*l = append(*l, reportFile{format, file})
	return nil
}

func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func parseNow(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, cli.Usagef("conformance: --now %q: want a date 2006-01-02 or an RFC 3339 time", s)
}

// startReference serves the reference on a loopback port with a fresh key and the run's
// clock (so --now past a removal date finds the operation gone), and points target at it.
func startReference(target *conformance.Target, opts conformance.Options) (stop func(), err error) {
	key := make([]byte, 16)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	clock := time.Now
	if !opts.Now.IsZero() {
		clock = func() time.Time { return opts.Now }
	}
	target.APIKey = "conformance-" + hex.EncodeToString(key)
	h, err := reference.NewServer(reference.Config{Spec: opts.Spec, APIKeys: []string{target.APIKey}, Now: clock})
	if err != nil {
		return nil, err
	}
	base, err := spec.BasePath(opts.Spec)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(reference.Listener(ln)) }()
	target.BaseURL = "http://" + ln.Addr().String() + base
	return func() { _ = srv.Close() }, nil
}

// writeReports writes the report to stdout (or --output) and every --report file. For a
// run that could not be made (notRun), the text report is not printed (the reason is the
// one line on stderr), and a report that cannot be written is not the error to show.
func writeReports(e env, f runFlags, write conformance.Writer, rep *conformance.Report, notRun bool) error {
	if !notRun || f.output != "" || f.format != "text" {
		if err := writeReport(e, f, write, rep, notRun); err != nil && !notRun {
			return cli.Usagef("conformance run: %v", err)
		}
	}
	for _, r := range f.reports {
		if err := writeFile(r.file, conformance.Formats[r.format], rep); err != nil && !notRun {
			return cli.Usagef("conformance run: --report %s=%s: %v", r.format, r.file, err)
		}
	}
	return nil
}

func writeReport(e env, f runFlags, write conformance.Writer, rep *conformance.Report, notRun bool) error {
	if f.output == "" {
		if f.format == "text" && e.colour() {
			write = conformance.WriteColorText
		}
		return write(e.stdout, rep)
	}
	if err := writeFile(f.output, write, rep); err != nil || notRun {
		return err
	}
	c := rep.Counts
	unstarted := ""
	if c.NotRun > 0 {
		unstarted = fmt.Sprintf(", %d not run", c.NotRun)
	}
	_, err := fmt.Fprintf(e.stdout, "conformance: %s: %s, %d pass, %d fail, %d warn, %d skip, %d error%s; report in %s\n",
		rep.Verdict, words.Plural(c.Total, "rule"), c.Pass, c.Fail, c.Warn, c.Skip, c.Error, unstarted, f.output)
	return err
}

// writeFile writes the report to path, creating its directory.
func writeFile(path string, write conformance.Writer, rep *conformance.Report) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(out, rep); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// headerList is the repeatable -H/--header 'Name: value'.
type headerList struct {
	h http.Header
	// bad is a -H that is no header line: said after parsing, in words of our own, since
	// the flag package's error would quote the value, which may be a secret.
	bad bool
}

func (l *headerList) String() string {
	if l == nil || l.h == nil {
		return ""
	}
	var parts []string
	for k, vs := range l.h {
		for _, v := range vs {
			parts = append(parts, k+": "+v)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func (l *headerList) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
		l.bad = true
		return nil
	}
	if l.h == nil {
		l.h = http.Header{}
	}
	l.h.Add(name, strings.TrimSpace(value))
	return nil
}

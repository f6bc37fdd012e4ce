package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/explore"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/spec"
)

// targetFlags are the flags explore and replay share with run: where the service is, its
// key, TLS, the spec and the clock.
type targetFlags struct {
	baseURL, apiKey, caCert, spec, now, format, output string
	insecure                                           bool
	timeout, maxWait                                   time.Duration
	maxCreates                                         int
	lag                                                time.Duration
}

func (f *targetFlags) register(fs *flag.FlagSet, lag time.Duration) {
	fs.StringVar(&f.baseURL, "base-url", "", "base `URL` of the service, ending in /v1; default PETSTORE_BASE_URL, else the reference in-process")
	fs.StringVar(&f.apiKey, "api-key", "", "send `KEY` as the bearer token; default PETSTORE_API_KEY")
	fs.DurationVar(&f.timeout, "timeout", explore.DefaultTimeout, "per-request timeout `D`, a duration such as 30s")
	fs.DurationVar(&f.maxWait, "max-wait", exchange.DefaultMaxWait, "wait at most `D` in all for a target that answers 429 or 503; then it cannot be judged (exit 2)")
	fs.StringVar(&f.caCert, "ca-cert", "", "trust the certificate authorities in this PEM `FILE` too (a target with a private CA)")
	fs.BoolVar(&f.insecure, "insecure", false, "do not verify the target's TLS certificate")
	fs.StringVar(&f.spec, "spec", "", "OpenAPI description `FILE`; default the embedded spec/openapi.yaml")
	fs.StringVar(&f.now, "now", "", "the run's clock, `DATE` as 2006-01-02 or RFC 3339 (decides whether getPet is gone)")
	fs.StringVar(&f.format, "format", "text", "report `FORMAT`: text or json")
	fs.StringVar(&f.output, "output", "", "write the report to `FILE` instead of stdout")
	fs.IntVar(&f.maxCreates, "max-creates", explore.DefaultMaxCreates, "create at most `N` animals exploring (shrinking and the replays may create as many again each)")
	fs.DurationVar(&f.lag, "lag", lag, "a new animal may stay missing from listings and getPet for `D`, a duration such as 2s")
}

// session is what the shared flags resolve to.
type session struct {
	doc      *openapi3.T
	facts    *spec.Facts // doc's, read once for the run, its replays and the reference
	specHash string
	now      time.Time
	target   conformance.Target
	fresh    func() (conformance.Target, func(), error) // nil for a target given by URL
	stop     func()
}

func (f *targetFlags) check(cmd string) error {
	switch {
	case f.timeout <= 0:
		return cli.Usagef("conformance %s: --timeout must be positive", cmd)
	case f.maxWait <= 0:
		return cli.Usagef("conformance %s: --max-wait must be positive", cmd)
	case f.maxCreates < 0:
		return cli.Usagef("conformance %s: --max-creates must not be negative", cmd)
	case f.lag < 0:
		return cli.Usagef("conformance %s: --lag must not be negative", cmd)
	case f.format != "text" && f.format != "json":
		return cli.Usagef("conformance %s: unknown --format %q (text, json)", cmd, f.format)
	}
	return nil
}

// open loads the spec, builds the client and finds the target: the URL given, or a reference
// started in-process (then every replay gets a fresh one too).
func (f *targetFlags) open(cmd string, e env) (*session, error) {
	return f.openAt(cmd, e, first(f.baseURL, e.getenv("PETSTORE_BASE_URL")))
}

// openAt is open with the target's base URL decided by the caller ("": the reference,
// in-process).
func (f *targetFlags) openAt(cmd string, e env, baseURL string) (*session, error) {
	s := &session{stop: func() {}}
	var data []byte
	var err error
	if f.spec == "" {
		data = spec.Bytes()
	} else if data, err = os.ReadFile(f.spec); err != nil {
		return nil, cli.Usagef("conformance %s: %v", cmd, err)
	}
	if s.doc, err = spec.Parse(data); err != nil {
		return nil, cli.Usagef("conformance %s: %v", cmd, err)
	}
	if s.facts, err = spec.ReadFacts(s.doc); err != nil {
		return nil, specError(cmd, f.spec, err)
	}
	s.specHash = explore.SpecSHA256(data)
	if s.now, err = parseNow(f.now); err != nil {
		return nil, err
	}
	client, err := conformance.NewClient(conformance.ClientOptions{Timeout: f.timeout, CACertFile: f.caCert, Insecure: f.insecure})
	if err != nil {
		return nil, cli.Usagef("conformance %s: %v", cmd, err)
	}
	s.target = conformance.Target{BaseURL: baseURL, APIKey: first(f.apiKey, e.getenv("PETSTORE_API_KEY")), Client: client}
	if s.target.BaseURL != "" {
		if s.target.APIKey == "" {
			return nil, cli.Usagef("conformance %s: want an API key (--api-key or PETSTORE_API_KEY)", cmd)
		}
		return s, nil
	}
	s.fresh = func() (conformance.Target, func(), error) {
		var t conformance.Target
		stop, err := startReference(&t, conformance.Options{Spec: s.doc, Facts: s.facts, Now: s.now})
		if err != nil {
			return conformance.Target{}, nil, err
		}
		return conformance.Target{BaseURL: t.BaseURL, APIKey: t.APIKey, Client: client}, stop, nil
	}
	if s.target, s.stop, err = s.fresh(); err != nil {
		return nil, cli.Usagef("conformance %s: in-process reference: %v", cmd, err)
	}
	return s, nil
}

// writeOut writes the report of command cmd with write to its destination: --output (its
// directories created) or stdout.
func (f *targetFlags) writeOut(cmd string, e env, write func(io.Writer) error) error {
	if f.output == "" {
		if err := write(e.stdout); err != nil {
			return cli.Usagef("conformance %s: %v", cmd, err)
		}
		return nil
	}
	if dir := filepath.Dir(f.output); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return cli.Usagef("conformance %s: --output: %v", cmd, err)
		}
	}
	file, err := os.Create(f.output)
	if err != nil {
		return cli.Usagef("conformance %s: --output: %v", cmd, err)
	}
	if err := write(file); err != nil {
		file.Close()
		return cli.Usagef("conformance %s: %v", cmd, err)
	}
	if err := file.Close(); err != nil {
		return cli.Usagef("conformance %s: --output: %v", cmd, err)
	}
	return nil
}

// unable is the exit-2 error of a run that could not be made (unreachable target, refused
// key, a description without the facts explore needs).
func unable(cmd string, err error) error { return cli.Usagef("conformance %s: %v", cmd, err) }

type exploreFlags struct {
	targetFlags
	duration, shrinkTime time.Duration
	steps, workers       int
	replays, maxFindings int
	seed                 uint64
	rate                 float64
	replayFile           string
	adminKey             string
}

// flagSet defines explore's flags over f.
func (f *exploreFlags) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	f.register(fs, explore.DefaultLag)
	fs.DurationVar(&f.duration, "duration", 0, "explore for `D`, a duration such as 60s or 5m (default 30s when --steps is not given either)")
	fs.IntVar(&f.steps, "steps", 0, "explore for at most `N` steps of all workers together")
	fs.IntVar(&f.workers, "workers", 4, "`W` concurrent clients, each with its own sequence")
	fs.Uint64Var(&f.seed, "seed", 0, "seed `S` of the sequences; default a random one, printed in the report")
	fs.Float64Var(&f.rate, "rate", 0, "at most `R` requests per second across all workers (0: as fast as the target answers)")
	fs.IntVar(&f.replays, "replays", explore.DefaultReplays, "replay a shrunk finding `N` times to tell deterministic from intermittent")
	fs.DurationVar(&f.shrinkTime, "shrink-time", explore.DefaultShrinkTime, "spend at most `D` shrinking a finding")
	fs.IntVar(&f.maxFindings, "max-findings", explore.DefaultMaxFindings, "stop after `N` distinct findings (one per cause; a cause met again is counted on its finding)")
	fs.StringVar(&f.replayFile, "replay-file", "explore-replay.json", "write the first finding's shrunk sequence to `FILE`, the next ones' to FILE with -2, -3, ... before its extension (for conformance replay)")
	fs.StringVar(&f.adminKey, "admin-key", "", "the target's admin `KEY` (default PETSTORE_ADMIN_KEY): a finding shrunk on the store the exploration changed "+
		"is played once more after POST /_admin/reset (the store back as it started) to see whether it reproduces on a fresh one")
	return fs
}

// check refuses flags no exploration can be made with.
func (f *exploreFlags) check() error {
	if err := f.targetFlags.check("explore"); err != nil {
		return err
	}
	switch {
	case f.duration < 0 || f.steps < 0:
		return cli.Usagef("conformance explore: --duration and --steps must not be negative")
	case f.workers < 1:
		return cli.Usagef("conformance explore: --workers must be at least 1")
	case f.rate < 0 || f.replays < 0 || f.shrinkTime < 0:
		return cli.Usagef("conformance explore: --rate, --replays and --shrink-time must not be negative")
	case f.maxFindings < 1:
		return cli.Usagef("conformance explore: --max-findings must be at least 1")
	}
	return nil
}

func exploreCommand(ctx context.Context, e env, args []string) error {
	var f exploreFlags
	fs := f.flagSet()
	if err := parseFlags(fs, args, e); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.duration == 0 && f.steps == 0 {
		f.duration = 30 * time.Second
	}
	if !flagSet(fs, "seed") {
		var b [8]byte
		_, _ = rand.Read(b[:])
		f.seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	s, err := f.open("explore", e)
	if err != nil {
		return err
	}
	defer s.stop()
	cfg := explore.Config{Target: s.target, Doc: s.doc, Facts: s.facts, Now: s.now, Seed: f.seed, Workers: f.workers, Duration: f.duration,
		Steps: f.steps, MaxFindings: f.maxFindings, MaxCreates: f.maxCreates, Rate: f.rate, Lag: f.lag, Replays: f.replays, ShrinkTime: f.shrinkTime,
		Timeout: f.timeout, MaxWait: f.maxWait, Fresh: s.fresh, EmptyStore: s.fresh != nil, AdminKey: first(f.adminKey, e.getenv("PETSTORE_ADMIN_KEY")),
		Provenance: explore.NewProvenance(s.specHash, f.seed, givenFlags(fs), s.target.APIKey)}
	rep, err := explore.Run(ctx, cfg)
	if err != nil {
		return unable("explore", err)
	}
	if s.fresh != nil {
		rep.Target += explore.InProcessNote
		rep.InProcess = true
	}
	if f.replayFile != "" {
		for i := range rep.Findings {
			path := replayFileOf(f.replayFile, i)
			if err := explore.WriteReplayFile(path, explore.NewReplayFile(rep, rep.Findings[i])); err != nil {
				return cli.Usagef("conformance explore: --replay-file: %v", err)
			}
			rep.Findings[i].ReplayFile = path
		}
	}
	write := explore.WriteText
	if f.format == "json" {
		write = explore.WriteJSON
	}
	if err := f.writeOut("explore", e, func(w io.Writer) error { return write(w, rep) }); err != nil {
		return err
	}
	return exploreVerdict(e, fs, f, rep)
}

// replayFileOf is where the shrunk sequence of finding i (from 0) goes: file for the first,
// file with -2, -3, ... before its extension for the next ones.
func replayFileOf(file string, i int) string {
	if i == 0 {
		return file
	}
	ext := filepath.Ext(file)
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(file, ext), i+1, ext)
}

// exploreVerdict is how explore ends after its report: exit 1 with where the shrunk
// sequences are when it found something, exit 2 when it was stopped before its budget.
func exploreVerdict(e env, fs *flag.FlagSet, f exploreFlags, rep *explore.Report) error {
	switch {
	case len(rep.Findings) > 1:
		parts := []string{fmt.Sprintf("%d findings", len(rep.Findings))}
		if f.replayFile != "" {
			files := make([]string, len(rep.Findings))
			for i, fd := range rep.Findings {
				files[i] = fd.ReplayFile
			}
			parts = append(parts, fmt.Sprintf("shrunk sequences in %s; run the first again with: %s", strings.Join(files, ", "),
				explore.ReplayCommand(f.replayFile, rep, replayFlags(fs)...)))
		}
		return cli.Failed("conformance explore: %s", strings.Join(parts, "; "))
	case len(rep.Findings) > 0:
		var parts []string
		if fd := rep.Findings[0]; fd.StateChanged {
			parts = append(parts, freshNote(fd.FreshStore, f.adminKey != "" || e.getenv("PETSTORE_ADMIN_KEY") != ""))
		}
		if f.replayFile != "" {
			parts = append(parts, fmt.Sprintf("shrunk sequence in %s; run it again with: %s", f.replayFile,
				explore.ReplayCommand(f.replayFile, rep, replayFlags(fs)...)))
		}
		if len(parts) == 0 {
			return cli.Failed("")
		}
		return cli.Failed("conformance explore: %s", strings.Join(parts, "; "))
	case rep.StoppedBy == explore.StopInterrupt:
		return cli.Usagef("conformance explore: interrupted after %.1fs; nothing found in what ran", rep.Seconds)
	case rep.StoppedBy == explore.StopCannotJudge:
		return cli.Usagef("conformance explore: the target cannot be judged after %.1fs (nothing found in what ran): %s", rep.Seconds, rep.CannotJudge)
	}
	return nil
}

// freshNote says, on the one line of a finding, that its sequence was shrunk on a store the
// exploration had changed, and how it went after a reset.
func freshNote(c *explore.FreshCheck, adminKey bool) string {
	const changed = "shrunk on a store the exploration had changed"
	switch {
	case c == nil:
		return changed
	case c.Made && c.Reproduced:
		return changed + "; it reproduced on a fresh store (after a reset)"
	case c.Made:
		return changed + "; it did not reproduce on a fresh store (after a reset): it needs that state"
	case !adminKey:
		return changed + "; the fresh-store check could not be made: no admin key (--admin-key or PETSTORE_ADMIN_KEY) to reset the target"
	}
	return changed + "; the fresh-store check could not be made: " + c.Reason
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// replayFlags are the flags given to explore that conformance replay needs too, to reach the
// target and judge it alike, as --name=value (--base-url and the key ReplayCommand writes).
func replayFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "spec", "ca-cert", "timeout", "max-wait":
			out = append(out, "--"+f.Name+"="+f.Value.String())
		case "insecure":
			if f.Value.String() == "true" {
				out = append(out, "--insecure")
			}
		}
	})
	return out
}

// givenFlags lists the flags given, as --name=value (explore.NewProvenance masks the key).
func givenFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		value := maskedFlag(f)
		if f.Name == "admin-key" {
			value = "***"
		}
		out = append(out, "--"+f.Name+"="+value)
	})
	return out
}

// maskedFlag is the value of f as a record of the command line writes it: a base URL with its
// userinfo and query values masked ($PETSTORE_URL_USER, $PETSTORE_QUERY_1), since a gateway's
// code or a password there is a secret as much as the key.
func maskedFlag(f *flag.Flag) string {
	value := f.Value.String()
	if f.Name == "base-url" {
		if u, err := url.Parse(value); err == nil && u.Host != "" {
			value = exchange.NewRedactor("").URL(u)
		}
	}
	return value
}

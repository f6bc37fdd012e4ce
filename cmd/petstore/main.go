// Command petstore runs the pet store reference server: the interface of
// pet-store-interface.md, served from memory, every request and response validated against
// spec/openapi.yaml.
//
//	petstore serve [--addr 127.0.0.1:8080] [--spec FILE] [--api-key K]... [--seed FILE] [--admin-key K]
//	               [--max-body BYTES] [--max-pets N] [--cors-origin O]... [--no-validation] [--lenient]
//	               [--proxy-headers]
//	               [--read-header-timeout D] [--read-timeout D] [--write-timeout D] [--idle-timeout D]
//	               [--max-header-bytes N] [--shutdown-timeout D]
//	               [--now DATE] [--scenarios] [--vary SEED] [--latency D] [--fail-rate P] [--rate-limit N/s]
//	               [--journal N] [--client-report FILE]
//
// Keys come from --api-key (repeatable), else PETSTORE_API_KEYS (comma-separated), else one
// random key is generated and printed. The admin key comes from --admin-key, else
// PETSTORE_ADMIN_KEY; keys are never written to the log. The server stops gracefully on SIGINT
// or SIGTERM: it stops accepting connections, lets the requests in flight finish, and closes
// what is left after --shutdown-timeout (exit 1 then, 0 otherwise).
//
// --spec serves another description than the embedded spec/openapi.yaml: the operations it
// adds are served by their shape, or answered 501 (reference/internal/core/generic.go); the start-up lines
// say which spec (with its sha256), and what of it is not served or not acted on.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/petstore/petstore/internal/buildinfo"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

func main() {
	if err := run(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(cli.Code(err))
	}
}

const usage = `usage: petstore serve [flags]

Serves the pet store interface from memory, validating every request and response against
the embedded spec/openapi.yaml, or the --spec file. Environment: PETSTORE_API_KEYS (comma-separated),
PETSTORE_ADMIN_KEY; a flag beats the environment. --now, --scenarios, --vary, --latency,
--fail-rate, --rate-limit, --admin-key, --journal, --client-report and --pact make it a test
double for client developers (README "Testing your client").

flags:
`

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// options are the parsed command line.
type options struct {
	addr, seed, adminKey string
	specFile             string
	apiKeys, corsOrigins stringList
	maxBody              int64
	maxPets              int
	noValidation         bool
	lenient              bool
	proxyHeaders         bool
	limits               serverLimits
	double               doubleFlags
}

// flagSet declares every flag of `petstore serve` into o.
func flagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("petstore serve", flag.ContinueOnError)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen `address` (port 0 picks a free port)")
	fs.StringVar(&o.specFile, "spec", "", "OpenAPI `file` to serve instead of the embedded spec/openapi.yaml")
	fs.Var(&o.apiKeys, "api-key", "accepted bearer `key` (repeatable); default PETSTORE_API_KEYS, else a random key")
	fs.StringVar(&o.seed, "seed", "", "JSON `file` of animals to start with (e.g. testdata/pets.json)")
	fs.StringVar(&o.adminKey, "admin-key", "", "enables the endpoints under /_admin/ with this bearer `key`; default PETSTORE_ADMIN_KEY")
	fs.Int64Var(&o.maxBody, "max-body", reference.DefaultMaxBodyBytes, "maximum request body `bytes` (413 beyond)")
	fs.IntVar(&o.maxPets, "max-pets", reference.DefaultMaxPets, "maximum `number` of animals in the store (507 beyond)")
	fs.Var(&o.corsOrigins, "cors-origin", "allow CORS from this `origin` (repeatable); off when not given")
	fs.BoolVar(&o.noValidation, "no-validation", false, "skip request and response validation (for measurement only)")
	fs.BoolVar(&o.proxyHeaders, "proxy-headers", false, "log the client address from X-Forwarded-For/X-Real-IP/Forwarded (only behind a proxy that sets them)")
	fs.BoolVar(&o.lenient, "lenient", false, "log an off-spec response instead of replacing it with a 500 Error")
	o.limits = defaultLimits
	o.limits.flags(fs)
	o.double.flags(fs)
	return fs
}

// printUsage writes the usage and every flag, written --flag as the README writes them.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	cli.PrintFlags(w, fs)
}

func parse(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flagSet(&o)
	if len(args) < 2 || args[1] != "serve" {
		if len(args) >= 2 && (args[1] == "--version" || args[1] == "version") {
			fmt.Fprintln(stdout, "petstore", buildinfo.Read())
			return o, flag.ErrHelp
		}
		if len(args) >= 2 && (args[1] == "-h" || args[1] == "--help" || args[1] == "help") {
			printUsage(stdout, fs)
			return o, flag.ErrHelp
		}
		return o, cli.Usagef("petstore: want the command serve (petstore serve --help)")
	}
	positional, err := cli.Parse(fs, args[2:])
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout, fs)
		return o, err
	}
	if err != nil {
		return o, cli.Usagef("petstore serve: %v", err)
	}
	if len(positional) > 0 {
		return o, cli.Usagef("petstore serve: unexpected argument %q", positional[0])
	}
	fs.Visit(func(f *flag.Flag) { o.double.journalSet = o.double.journalSet || f.Name == "journal" })
	if o.maxBody <= 0 || o.maxPets <= 0 {
		return o, cli.Usagef("petstore serve: --max-body and --max-pets must be positive")
	}
	if err := o.limits.check(); err != nil {
		return o, cli.Usagef("petstore serve: %v", err)
	}
	if o.double.latency >= o.limits.writeTimeout {
		return o, cli.Usagef("petstore serve: --latency %v must be below --write-timeout %v", o.double.latency, o.limits.writeTimeout)
	}
	return o, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parse(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	// Everything the server logs goes through one batching writer (batchlog.go), in order;
	// what this function says itself goes to stderr directly, after the log's last batch.
	tick := time.NewTicker(logFlushEvery)
	defer tick.Stop()
	serverLog := newBatchLog(stderr, tick.C)
	defer serverLog.Close()
	cfg, keys, err := o.config(getenv, serverLog)
	if err != nil {
		return err
	}
	specText := spec.Bytes()
	if o.specFile != "" {
		if specText, err = os.ReadFile(o.specFile); err != nil {
			return cli.Usagef("petstore: --spec: %v", err)
		}
		if cfg.Spec, err = spec.Parse(specText); err != nil {
			return cli.Usagef("petstore: --spec %s: %v", o.specFile, err)
		}
	}
	srv, err := reference.New(cfg)
	if err != nil {
		if se := (*reference.SeedError)(nil); errors.As(err, &se) {
			return cli.Usagef("petstore: seed %s: %v", o.seed, se)
		}
		return cli.Usagef("petstore: %v", err)
	}
	// The store keeps the seed as its own records: the decoded file is garbage now, and so is
	// what decoding it left. Collect it and hand it back to the system once, rather than
	// carry it as headroom for as long as the server runs (a seed of 1,000,000 animals leaves
	// about 300 MB behind; issue 28).
	animals := len(cfg.Seed)
	cfg.Seed = nil
	debug.FreeOSMemory()
	base := srv.Facts().BasePath
	if wd, err := os.Getwd(); err == nil && o.specFile == "" {
		if w := spec.Stale(wd); w != "" {
			fmt.Fprintln(stderr, "petstore: "+w) // a binary built before the checkout's spec changed
		}
	}

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return cli.Usagef("petstore: %v", err)
	}
	hs := newHTTPServer(srv, o.limits, serverLog)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(reference.Listener(ln)) }()

	fmt.Fprintf(stdout, "petstore: serving %s%s (%s)\n", baseURL(ln.Addr()), base, words.Plural(animals, "animal"))
	fmt.Fprintln(stdout, keys)
	if line := o.double.describe(cfg); line != "" {
		fmt.Fprintln(stdout, line)
	}
	for _, line := range coverageLines(o.specFile, specText, srv.Coverage()) {
		fmt.Fprintln(stdout, line)
	}

	select {
	case err := <-served:
		return cli.Usagef("petstore: %v", err)
	case <-ctx.Done():
	}
	err = shutdown(hs, o.limits.shutdownTimeout, stdout)
	_ = serverLog.Close() // the requests in flight have finished: their lines are the last
	// After the requests in flight: the report counts them too.
	if rerr := o.double.writeClientReport(srv, stdout); rerr != nil && err == nil {
		err = cli.Failed("petstore: %v", rerr)
	}
	if rerr := o.double.pact.write(srv, stdout); rerr != nil && err == nil {
		err = cli.Failed("petstore: %v", rerr)
	}
	return err
}

// config is the reference server's configuration from the flags and, where they give none,
// the environment (PETSTORE_API_KEYS, PETSTORE_ADMIN_KEY; a random key when neither names
// one); keys is the line that says where the API keys came from.
func (o options) config(getenv func(string) string, log io.Writer) (cfg reference.Config, keys string, err error) {
	cfg = reference.Config{
		APIKeys:      o.apiKeys,
		AdminKey:     o.adminKey,
		Log:          log,
		MaxBodyBytes: o.maxBody,
		MaxPets:      o.maxPets,
		NoValidation: o.noValidation,
		Lenient:      o.lenient,
		CORSOrigins:  o.corsOrigins,
		ProxyHeaders: o.proxyHeaders,
	}
	keySource := "--api-key"
	if len(cfg.APIKeys) == 0 {
		keySource = "PETSTORE_API_KEYS"
		for _, k := range strings.Split(getenv("PETSTORE_API_KEYS"), ",") {
			if k = strings.TrimSpace(k); k != "" {
				cfg.APIKeys = append(cfg.APIKeys, k)
			}
		}
	}
	generated := len(cfg.APIKeys) == 0
	if generated {
		cfg.APIKeys = []string{randomKey()}
	}
	if cfg.AdminKey == "" {
		cfg.AdminKey = getenv("PETSTORE_ADMIN_KEY")
	}
	if err := o.double.config(&cfg, cfg.AdminKey != ""); err != nil {
		return cfg, "", cli.Usagef("petstore serve: %v", err)
	}
	if o.seed != "" {
		if cfg.Seed, err = reference.LoadSeed(o.seed); err != nil {
			return cfg, "", cli.Usagef("petstore: %v", err)
		}
	}
	if generated {
		return cfg, "petstore: API key: " + cfg.APIKeys[0], nil
	}
	return cfg, fmt.Sprintf("petstore: %s from %s", words.Plural(len(cfg.APIKeys), "API key"), keySource), nil
}

// coverageLines are the start-up lines about the spec: which one (with the sha256 of its
// text), and what of it the server does not serve (501) or accepts without acting on it.
func coverageLines(file string, text []byte, c reference.Coverage) []string {
	which := "the embedded spec/openapi.yaml"
	if file != "" {
		which = file
	}
	lines := []string{fmt.Sprintf("petstore: spec %s (sha256 %x)", which, sha256.Sum256(text))}
	for _, l := range c.ByShape {
		lines = append(lines, "petstore: served by its shape: "+l)
	}
	for _, l := range c.Unserved {
		lines = append(lines, "petstore: not served (answered 501 not_implemented): "+l)
	}
	for _, l := range c.Ignored {
		lines = append(lines, "petstore: accepted, not acted on: "+l)
	}
	return lines
}

// baseURL is the address clients use; a wildcard listen address is reached on loopback.
func baseURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(tcp.Port))
}

func randomKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

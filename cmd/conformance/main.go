// Command conformance checks that a service implements the pet store interface.
//
//	conformance run [--base-url URL] [--api-key KEY] [--only GLOB]... [--skip GLOB]... [--strict]
//	                [--read-only] [--now DATE] [--timeout D] [--ca-cert FILE] [--insecure]
//	                [--format text|json|junit|html|markdown] [--output FILE]
//	                [--report FORMAT=FILE]... [--min-coverage PERCENT] [--waivers FILE] [--spec FILE]
//	conformance list [--format text|markdown|json] [--spec FILE]
//	conformance lint [FILE]
//	conformance diff BASE HEAD [--allow-breaking] [--format text|json]
//	conformance proxy --upstream URL [--listen ADDR] [--spec FILE] [--fail-on-violation] [--record FILE.har]
//	conformance check-har FILE.har [--spec FILE] [--host HOST]
//	conformance explore [--duration D] [--steps N] [--workers W] [--seed S] [--max-creates N] [--rate R] [--lag D] [--replay-file FILE]
//	conformance replay FILE [--replays N] [--base-url URL] [--api-key KEY]
//	conformance --version
//
// Without --base-url, run starts the reference server in-process on a loopback port and
// runs against it. Exit codes: 0 conforming, 1 not conforming, 2 the run could not be made.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/petstore/petstore/internal/buildinfo"
	"github.com/petstore/petstore/internal/cli"
)

func main() {
	if err := run(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(cli.Code(err))
	}
}

// env is what a subcommand may touch of the outside world.
type env struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

// command is one subcommand.
type command struct {
	name, summary string
	run           func(ctx context.Context, e env, args []string) error
}

var commands = []command{
	{"run", "run the rule catalogue against a service (default: the reference, in-process)", runCommand},
	{"list", "print the rule catalogue: ID, section, severity, title", listCommand},
	{"lint", "check a spec: kin-openapi validation, house rules, rules-to-spec cross-check", lintCommand},
	{"diff", "list the changes between two specs, breaking ones first (exit 1 if any breaks)", diffCommand},
	{"proxy", "forward traffic to a service and check every exchange against the spec", proxyCommand},
	{"check-har", "check recorded traffic (a HAR file) against the spec", checkHARCommand},
	{"explore", "random concurrent sequences checked against a model of the document; shrinks what fails", exploreCommand},
	{"replay", "run a replay file that explore wrote, to see whether its finding reproduces", replayCommand},
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: conformance <command> [flags]   (conformance <command> --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 conforming (or done), 1 not conforming, 2 the run could not be made")
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		return cli.Usagef("conformance: want a command: %s (conformance --help)", names())
	}
	name := args[1]
	if name == "-h" || name == "--help" || name == "help" {
		usage(stdout)
		return nil
	}
	if name == "--version" || name == "version" {
		_, err := fmt.Fprintln(stdout, "conformance", buildinfo.Read())
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, c := range commands {
		if c.name == name {
			return c.run(ctx, env{getenv: getenv, stdout: stdout, stderr: stderr}, args[2:])
		}
	}
	return cli.Usagef("conformance: unknown command %q: want %s (conformance --help)", name, names())
}

func names() string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return strings.Join(out, ", ")
}

// parseFlags parses args into fs with one-line errors; --help prints the flags and
// returns flag.ErrHelp, which callers turn into a clean exit.
func parseFlags(fs *flag.FlagSet, args []string, e env) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(e.stdout, "usage: conformance %s [flags]\n\nflags:\n", fs.Name())
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		return err
	}
	if err != nil {
		return cli.Usagef("conformance %s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return cli.Usagef("conformance %s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// globList is a repeatable flag whose values may also be comma-separated.
type globList []string

func (l *globList) String() string { return strings.Join(*l, ",") }

func (l *globList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

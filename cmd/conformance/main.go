// Command conformance checks that a service implements the pet store interface.
//
//	conformance run [--base-url URL] [--api-key KEY] [--only GLOB]... [--skip GLOB]... [--strict]
//	                [--read-only] [--now DATE] [--timeout D] [--ca-cert FILE] [--insecure]
//	                [--format text|json|junit|html|markdown] [--output FILE]
//	                [--report FORMAT=FILE]... [--min-coverage PERCENT] [--waivers FILE] [--spec FILE]
//	conformance list [--format text|markdown|json] [--spec FILE]
//	conformance lint [FILE]
//	conformance diff BASE HEAD [--allow-breaking] [--format text|json]   (- reads one from stdin)
//	conformance proxy --upstream URL [--listen ADDR] [--spec FILE] [--fail-on-violation] [--record FILE.har]
//	conformance check-har FILE.har [--spec FILE] [--host HOST]
//	conformance explore [--duration D] [--steps N] [--workers W] [--seed S] [--max-creates N] [--rate R] [--lag D] [--replay-file FILE]
//	                    [--admin-key KEY]
//	conformance replay FILE [--replays N] [--base-url URL [--elsewhere]] [--api-key KEY]
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
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/petstore/petstore/internal/buildinfo"
	"github.com/petstore/petstore/internal/cli"
)

func main() {
	// Go's HTTP client writes to the standard logger on its own (an answer no request asked
	// for); the command words it.
	log.SetFlags(0)
	log.SetOutput(&transportLog{w: os.Stderr})
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
	stdin          io.Reader
	stdout, stderr io.Writer
	// isTerminal reports whether w is a terminal; nil means the real check (a test fakes one).
	isTerminal func(w io.Writer) bool
}

// command is one subcommand: its name, its arguments as help shows them after the name,
// a one-line summary, and more help text (or "").
type command struct {
	name, args, summary, about string
	run                        func(ctx context.Context, e env, args []string) error
}

// commands are the subcommands, in the order help lists them. A function, not a variable:
// the commands' help reads it.
func commands() []command {
	return []command{
		{"run", "[flags]", "run the rule catalogue against a service (default: the reference, in-process)",
			"Exit 0: conforming; 1: not conforming (or a CI gate failed); 2: the run could not be made.", runCommand},
		{"list", "[flags]", "print the rule catalogue: ID, section, severity, title", "", listCommand},
		{"lint", "[FILE] [flags]", "check a spec: kin-openapi validation, house rules, departures from the interface document, rules-to-spec cross-check",
			"FILE defaults to the embedded spec/openapi.yaml. One line per finding, FILE:LINE:COLUMN: SEVERITY RULE POINTER MESSAGE.\nExit 1 on an error finding (warnings are printed); --allow-departures accepts departures from the document.", lintCommand},
		{"diff", "BASE HEAD [flags]", "list the changes between two specs, breaking ones first (exit 1 if any breaks clients or providers)",
			"BASE and HEAD are OpenAPI files; - reads one of them from stdin. Each change says whether it breaks clients,\nwhether it breaks providers (deployments conforming to BASE that fail HEAD's catalogue), and which rules\nand case families change.", diffCommand},
		{"proxy", "--upstream URL [flags]", "forward traffic to a service and check every exchange against the spec",
			"Prints one line per violation; on Ctrl-C, the summary. Exit 1 if any exchange broke the spec.", proxyCommand},
		{"check-har", "FILE.har [flags]", "check recorded traffic (a HAR file) against the spec",
			"Exit 1 on a violation; 2 when the file holds nothing under the base path.", checkHARCommand},
		{"pact", "verify FILE... [flags]", "verify consumer contracts (Pact files) against a service, judged by the document",
			"Replays each interaction as run sends its rules (the flags are run's), the path ids mapped to animals\n" +
				"the replay creates, and judges each answer by the document and by the pact's matchers. Pact files\n" +
				"of specification 2 to 4 are read. Exit 0: every interaction holds; 1: one does not; 2: the\n" +
				"verification could not be made.", pactCommand},
		{"explore", "[flags]", "random concurrent sequences checked against a model of the document; shrinks what fails", "", exploreCommand},
		{"replay", "FILE [flags]", "run a replay file that explore wrote, to see whether its finding reproduces",
			"It replays against the target the file records (PETSTORE_BASE_URL is not read), or against a fresh\n" +
				"reference in-process for each run when the file was recorded in-process. A --base-url other than\n" +
				"the recorded one needs --elsewhere, and the report then says so. Exit 0: not reproduced; 1: at\n" +
				"least one run failed; 2: the replay could not be made (a missing or bad file, a refused target).", replayCommand},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: conformance <command> [flags]   (conformance <command> --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
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
	for _, c := range commands() {
		if c.name == name {
			err := c.run(ctx, env{getenv: getenv, stdin: os.Stdin, stdout: stdout, stderr: stderr}, args[2:])
			if errors.Is(err, flag.ErrHelp) {
				return nil // the help asked for is printed
			}
			return err
		}
	}
	return cli.Usagef("conformance: unknown command %q: want %s (conformance --help)", name, names())
}

func names() string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return strings.Join(out, ", ")
}

// parseArgs parses args into fs, the flag set of the command named fs.Name(), and returns
// the positional arguments (flags may come before or after them). --help prints the
// command's help on stdout and returns flag.ErrHelp, which run turns into exit 0; a bad
// flag is one line, exit 2.
func parseArgs(fs *flag.FlagSet, args []string, e env) ([]string, error) {
	positional, err := cli.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		help(e.stdout, fs)
		return nil, err
	}
	if err != nil {
		return nil, cli.Usagef("conformance %s: %v", fs.Name(), err)
	}
	return positional, nil
}

// parseFlags is parseArgs for a command that takes no positional argument.
func parseFlags(fs *flag.FlagSet, args []string, e env) error {
	positional, err := parseArgs(fs, args, e)
	if err == nil && len(positional) > 0 {
		return cli.Usagef("conformance %s: unexpected argument %q", fs.Name(), positional[0])
	}
	return err
}

// help writes the help of the command whose flag set is fs, its flags written --flag.
func help(w io.Writer, fs *flag.FlagSet) {
	for _, c := range commands() {
		if c.name != fs.Name() {
			continue
		}
		fmt.Fprintf(w, "usage: conformance %s %s\n\n%s\n", c.name, c.args, strings.ToUpper(c.summary[:1])+c.summary[1:]+".")
		if c.about != "" {
			fmt.Fprintln(w, c.about)
		}
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nflags:")
		cli.PrintFlags(w, fs)
	}
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

// Command mutants runs the conformance catalogue against every faulty server of
// conformance/mutants and prints a markdown table: mutant, fault, the rules that caught it,
// and the mutation score.
//
//	mutants [-run REGEXP] [-ablate] [-workers N]
//
// -run keeps the mutants whose name matches (as go test -run does for tests).
// With -ablate it also skips each rule in turn and lists the mutants that then pass, which
// shows whether every rule earns its place. Exit codes: 0 every mutant caught, 1 a mutant
// survived, 2 the runs could not be made.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/spec"
)

func main() {
	if err := run(context.Background(), os.Args, os.Stdout, os.Stderr); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(cli.Code(err))
	}
}

// limit bounds the whole command: a hung mutant ends with an error, not a stuck build.
const limit = 5 * time.Minute

// ablation skips each rule, and each family of generated cases, in turn and writes the
// mutants that then pass: what each rule alone holds up.
func ablation(ctx context.Context, stdout io.Writer, doc *openapi3.T, outcomes []mutants.Outcome, workers int) error {
	rules, err := conformance.All(doc)
	if err != nil {
		return cli.Usagef("mutants: %v", err)
	}
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	words, err := familyWords(doc)
	if err != nil {
		return cli.Usagef("mutants: %v", err)
	}
	as, err := mutants.Ablate(ctx, doc, outcomes, append(mutants.Singles(ids), mutants.Families(ids, words)...), workers, false)
	if err != nil {
		return cli.Usagef("mutants: %v", err)
	}
	fmt.Fprintln(stdout)
	return mutants.WriteAblation(stdout, as)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	ablate := fs.Bool("ablate", false, "also skip each rule in turn and list the mutants that then pass")
	pattern := fs.String("run", "", "run only the mutants whose name matches this regular expression")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "mutants run at the same time")
	if err := fs.Parse(args[1:]); err != nil {
		return cli.Usagef("mutants: %v", err)
	}
	if fs.NArg() > 0 {
		return cli.Usagef("mutants: unexpected argument %q", fs.Arg(0))
	}
	match, err := regexp.Compile(*pattern)
	if err != nil {
		return cli.Usagef("mutants: -run: %v", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	doc, err := spec.Load()
	if err != nil {
		return cli.Usagef("mutants: %v", err)
	}
	all, err := mutants.Catalogue(doc)
	if err != nil {
		return cli.Usagef("mutants: %v", err)
	}
	ms := slices.DeleteFunc(all, func(m mutants.Mutant) bool { return !match.MatchString(m.Name) })
	if len(ms) == 0 {
		return cli.Usagef("mutants: no mutant matches -run %q", *pattern)
	}
	outcomes, err := mutants.RunAll(ctx, doc, ms, *workers)
	if err != nil {
		return cli.Usagef("mutants: %v", err)
	}
	if err := mutants.WriteTable(stdout, outcomes); err != nil {
		return err
	}
	if *ablate {
		if err := ablation(ctx, stdout, doc, outcomes, *workers); err != nil {
			return err
		}
	}
	if killed, total := mutants.Score(outcomes); killed < total {
		return cli.Failed("mutants: %d of %d mutants survived", total-killed, total)
	}
	return nil
}

// familyWords are the words rule IDs are generated from: the operationIds and the status
// values.
func familyWords(doc *openapi3.T) ([]string, error) {
	ops, err := spec.Operations(doc)
	if err != nil {
		return nil, err
	}
	words, err := spec.StatusValues(doc)
	if err != nil {
		return nil, err
	}
	for _, op := range ops {
		words = append(words, op.ID)
	}
	return words, nil
}

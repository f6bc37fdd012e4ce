// Command explore-mutants runs conformance explore against every sequence mutant of
// conformance/explore/seqmutants on several seeds and prints a markdown table: the budget, on how many
// seeds the mutant was found, the median time to find it, the median length of the shrunk
// sequence, and whether its replay file reproduces it against a fresh server (on every run
// for a deterministic finding, on at least one for an intermittent one).
//
//	explore-mutants [-seeds 20] [-run REGEXP] [-shrink-time 10s] [-replays 10] [-replay-file-runs 10] [-max-findings 1] [-allowed]
//
// Each run stops at its first finding, which is what is measured; with -max-findings N it
// goes on to N distinct findings, and the Rules column counts every one (one fault reported
// as several causes shows there). With -allowed it runs the servers that make the document's open choices otherwise instead,
// where nothing must be found. Exit codes: 0 every mutant found on at least 19 of 20 seeds
// (the same share for other counts), every replay file reproducing its finding, and nothing
// found in an allowed server; 1 otherwise; 2 the runs could not be made.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/conformance/explore/seqmutants"
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

// runSeeds explores the server of row's mutant with row's options on seeds 1..seeds, saying on
// stderr what each found.
func runSeeds(ctx context.Context, stderr io.Writer, doc *openapi3.T, row seqmutants.Row, seeds int) (seqmutants.Row, error) {
	m, o := row.Mutant, row.Options
	for seed := 1; seed <= seeds; seed++ {
		out, err := seqmutants.RunOne(ctx, doc, m, uint64(seed), o)
		if err != nil {
			return row, cli.Usagef("explore-mutants: %v", err)
		}
		row.Outcomes = append(row.Outcomes, out)
		if !out.Found {
			fmt.Fprintf(stderr, "  %s seed %d: nothing found in %d steps, %.1fs\n", m.Name, seed, out.Report.Steps, out.Report.Seconds)
			continue
		}
		fmt.Fprintf(stderr, "  %s seed %d: found %s after %s, shrunk to %d, %s, replay file %d/%d\n", m.Name, seed,
			out.Rule, out.After.Round(time.Millisecond), out.Shrunk, out.Class, out.Reproduced, o.ReplayFileRuns)
		if len(out.Rules) > 1 {
			fmt.Fprintf(stderr, "    then %s\n", strings.Join(out.Rules[1:], ", "))
		}
	}
	return row, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 20, "seeds per mutant (1..N)")
	pattern := fs.String("run", "", "run only the mutants whose name matches this regular expression")
	o := seqmutants.Options{}
	fs.DurationVar(&o.ShrinkTime, "shrink-time", 10*time.Second, "shrinking budget per finding")
	fs.IntVar(&o.Replays, "replays", 10, "replays of each shrunk finding")
	fs.IntVar(&o.ReplayFileRuns, "replay-file-runs", 10, "runs of each written replay file against a fresh server")
	fs.IntVar(&o.MaxFindings, "max-findings", 1, "distinct findings each run makes before it stops (the first is measured; the Rules column counts them all)")
	allowed := fs.Bool("allowed", false, "run the allowed servers (nothing must be found) instead of the mutants")
	if err := fs.Parse(args[1:]); err != nil {
		return cli.Usagef("explore-mutants: %v", err)
	}
	if fs.NArg() > 0 || *seeds < 1 {
		return cli.Usagef("explore-mutants: want only flags, and -seeds at least 1")
	}
	match, err := regexp.Compile(*pattern)
	if err != nil {
		return cli.Usagef("explore-mutants: -run: %v", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	doc, err := spec.Load()
	if err != nil {
		return cli.Usagef("explore-mutants: %v", err)
	}
	ms := seqmutants.Catalogue()
	if *allowed {
		ms = seqmutants.Allowed()
		o.Budget = seqmutants.Budget{Workers: 8, Steps: 4000}
	}
	ms = slices.DeleteFunc(ms, func(m seqmutants.Mutant) bool { return !match.MatchString(m.Name) })
	if len(ms) == 0 {
		return cli.Usagef("explore-mutants: no mutant matches -run %q", *pattern)
	}
	fmt.Fprintf(stderr, "explore-mutants: %d servers × %d seeds, started %s\n", len(ms), *seeds, time.Now().Format(time.RFC3339))
	rows := make([]seqmutants.Row, 0, len(ms))
	ok := true
	for _, m := range ms {
		row, err := runSeeds(ctx, stderr, doc, seqmutants.Row{Mutant: m, Options: o}, *seeds)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		if *allowed && row.Found() > 0 || !*allowed && row.Found()*20 < 19**seeds || o.ReplayFileRuns > 0 && row.Reproducing() < row.Found() {
			ok = false
		}
	}
	if err := seqmutants.WriteTable(stdout, rows); err != nil {
		return err
	}
	if !ok {
		return cli.Failed("explore-mutants: a mutant was missed on more than 1 seed in 20, a replay file did not reproduce its finding, or an allowed server had a finding")
	}
	return nil
}

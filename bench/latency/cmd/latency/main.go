// Command latency runs the default conformance catalogue (generated cases included) against
// a fresh in-process reference server through a proxy that waits a delay each way, once per
// delay, and prints a markdown table: wall time, requests sent, the most requests in flight
// at once, and the verdict (issue 14). It exits 1 when a verdict is not conforming or
// differs from the first row's.
//
//	latency [-delays 0,25ms,100ms] [-seed 1] [-fuzz 0] [-workers N]
//
// `make latency LATENCYFLAGS='-delays 25ms'` runs it from the module root.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/bench/latency/measure"
	"github.com/petstore/petstore/bench/machine"
	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/cli"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, measure.Run); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(cli.Code(err))
	}
}

// measureFunc is measure.Run; the tests give rows of their own.
type measureFunc func(ctx context.Context, delay time.Duration, opts conformance.Options) (measure.Row, error)

func run(ctx context.Context, args []string, stdout, stderr io.Writer, measureRow measureFunc) error {
	fs := flag.NewFlagSet("latency", flag.ContinueOnError)
	fs.SetOutput(stderr)
	delayList := fs.String("delays", "0,25ms,100ms", "comma-separated `delays`, each waited once each way per request")
	seed := fs.Uint64("seed", 1, "`seed` of the generated cases, the same for every row; 0 picks one from the clock per run")
	fuzz := fs.Int("fuzz", 0, "add `N` random combinations of request variants, as conformance run --fuzz")
	workers := fs.Int("workers", 0, "requests side by side (conformance run --workers); 0 is the runner's default")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return cli.Usagef("latency: %v", err)
	}
	if fs.NArg() > 0 {
		return cli.Usagef("latency: unexpected argument %q", fs.Arg(0))
	}
	delays, err := measure.ParseDelays(*delayList)
	if err != nil {
		return cli.Usagef("latency: -%v", err)
	}
	if *fuzz < 0 {
		return cli.Usagef("latency: -fuzz %d: want 0 or more", *fuzz)
	}
	if *workers < 0 {
		return cli.Usagef("latency: -workers %d: want 1 or more (0: the runner's default)", *workers)
	}
	opts := conformance.Options{Seed: *seed, Fuzz: *fuzz, Workers: *workers}
	runner := fmt.Sprintf("%d workers", cmp.Or(*workers, conformance.DefaultWorkers))

	fmt.Fprintf(stdout, "machine: %d cores, load average %s; %s; %s; seed %d, fuzz %d\n\n",
		runtime.NumCPU(), machine.LoadAverage(), runtime.Version(), runner, *seed, *fuzz)
	fmt.Fprintln(stdout, "| delay each way | wall time | requests | most in flight | verdict |")
	fmt.Fprintln(stdout, "|---:|---:|---:|---:|---|")
	var first *conformance.Report
	var problems []string
	for _, delay := range delays {
		row, err := measureRow(ctx, delay, opts)
		if err != nil {
			return cli.Usagef("latency: at %s each way: %v", ms(delay), err)
		}
		fmt.Fprintf(stdout, "| %s | %.2f s | %d | %d | %s |\n",
			ms(delay), row.Wall.Seconds(), row.Requests, row.MaxInFlight, row.Report.Verdict)
		if !row.Report.Conforming() {
			problems = append(problems, fmt.Sprintf("at %s each way the reference is %s", ms(delay), row.Report.Verdict))
		}
		if first == nil {
			first = row.Report
		} else if changed := changes(first, row.Report); len(changed) > 0 {
			problems = append(problems, fmt.Sprintf("at %s each way the results differ from the first row's: %s",
				ms(delay), strings.Join(changed, ", ")))
		}
	}
	if len(problems) > 0 {
		return cli.Failed("latency: %s", strings.Join(problems, "; "))
	}
	return nil
}

// changes lists the rules whose outcome differs between two runs, as "ID pass→fail", in
// the order of a's results and then b's.
func changes(a, b *conformance.Report) []string {
	of := func(rep *conformance.Report) map[string]conformance.Status {
		m := make(map[string]conformance.Status, len(rep.Results))
		for _, r := range rep.Results {
			m[r.ID] = r.Status
		}
		return m
	}
	inA, inB := of(a), of(b)
	var out []string
	for _, r := range a.Results {
		if now, ok := inB[r.ID]; !ok || now != r.Status {
			out = append(out, fmt.Sprintf("%s %s→%s", r.ID, r.Status, cmp.Or(now, "(not run)")))
		}
	}
	for _, r := range b.Results {
		if _, ok := inA[r.ID]; !ok {
			out = append(out, fmt.Sprintf("%s (not run)→%s", r.ID, r.Status))
		}
	}
	return out
}

// ms writes a delay in milliseconds: "0 ms", "25 ms", "0.5 ms".
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + " ms"
}

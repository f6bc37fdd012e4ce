// Command bench-explore measures conformance explore against the in-process reference, the
// working tree's beside an earlier commit's, side by side: it builds cmd/conformance at -rev
// (from git archive, in a temporary directory) and from the working tree, runs the two in
// turn for the same duration, seed, workers and budget of creates (-rounds times, the order
// swapped each round, so that a change in the machine's load falls on both), and prints each
// run's requests per second and CPU time per request, then the totals and their ratios. It
// is a measurement, not a test: it fails only when a binary cannot be built or run.
//
//	bench-explore [-rev 85636d4] [-duration 10s] [-workers 8] [-seed 1] [-max-creates 1000] [-rounds 3]
//
// `make bench-explore` runs it from the module root (BENCH_REV, BENCHEXPLOREFLAGS).
package main

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/petstore/petstore/bench/machine"
	"github.com/petstore/petstore/internal/cli"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(cli.Code(err))
	}
}

type options struct {
	rev                         string
	duration                    time.Duration
	workers, maxCreates, rounds int
	seed                        uint64
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("bench-explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.rev, "rev", "85636d4", "the `commit` to compare the working tree with")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "each run explores for `D`")
	fs.IntVar(&o.workers, "workers", 8, "explore --workers `W`")
	fs.Uint64Var(&o.seed, "seed", 1, "explore --seed `S`, the same for every run")
	fs.IntVar(&o.maxCreates, "max-creates", 1000, "explore --max-creates `N`")
	fs.IntVar(&o.rounds, "rounds", 3, "run each binary `N` times, in turn")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return cli.Usagef("bench-explore: %v", err)
	}
	if fs.NArg() > 0 || o.rounds < 1 || o.duration <= 0 {
		return cli.Usagef("bench-explore: want flags only, -rounds of at least 1 and a positive -duration")
	}
	dir, err := os.MkdirTemp("", "bench-explore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(stdout, "building cmd/conformance at %s and from the working tree ...\n", o.rev)
	old, err := buildAt(ctx, o.rev, dir)
	if err != nil {
		return err
	}
	cur := filepath.Join(dir, "conformance-working-tree")
	if err := goBuild(ctx, ".", cur); err != nil {
		return err
	}
	binaries := []binary{{name: o.rev, path: old}, {name: "working tree", path: cur}}
	fmt.Fprintf(stdout, "explore --duration %s --workers %d --seed %d --max-creates %d against the in-process reference, %d rounds; load average %s\n",
		o.duration, o.workers, o.seed, o.maxCreates, o.rounds, machine.LoadAverage())
	var totals [2]measured
	for round := range o.rounds {
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			m, err := explore(ctx, binaries[i].path, o, dir)
			if err != nil {
				return fmt.Errorf("bench-explore: %s: %w", binaries[i].name, err)
			}
			fmt.Fprintf(stdout, "  round %d  %-14s %s\n", round+1, binaries[i].name, m)
			totals[i].add(m)
		}
	}
	fmt.Fprintf(stdout, "load average %s\n", machine.LoadAverage())
	for i, b := range binaries {
		fmt.Fprintf(stdout, "%-14s %s\n", b.name, totals[i])
	}
	fmt.Fprintf(stdout, "ratio (working tree / %s): %.2fx requests/s, %.2fx CPU time per request\n", o.rev,
		totals[1].perSecond()/totals[0].perSecond(), totals[1].cpuPerRequest()/totals[0].cpuPerRequest())
	return nil
}

type binary struct{ name, path string }

// measured is what one or more runs of explore did.
type measured struct {
	requests int64
	seconds  float64       // explore's own measure of its exploration
	cpu      time.Duration // the process's, user and system, the reference's included
	findings int
}

func (m *measured) add(o measured) {
	m.requests += o.requests
	m.seconds += o.seconds
	m.cpu += o.cpu
	m.findings += o.findings
}

func (m measured) perSecond() float64 { return float64(m.requests) / m.seconds }

func (m measured) cpuPerRequest() float64 { return float64(m.cpu.Microseconds()) / float64(m.requests) }

func (m measured) String() string {
	s := fmt.Sprintf("%8d requests in %5.1f s: %7.0f requests/s, %6.1f µs CPU per request", m.requests, m.seconds, m.perSecond(), m.cpuPerRequest())
	if m.findings > 0 {
		s += fmt.Sprintf(" (%d findings: not comparable)", m.findings)
	}
	return s
}

// explore runs one exploration with bin and reads its JSON report.
func explore(ctx context.Context, bin string, o options, dir string) (measured, error) {
	cmd := exec.CommandContext(ctx, bin, "explore", "--format", "json", "--duration", o.duration.String(),
		"--workers", fmt.Sprint(o.workers), "--seed", fmt.Sprint(o.seed), "--max-creates", fmt.Sprint(o.maxCreates),
		"--replay-file", filepath.Join(dir, "replay.json"))
	cmd.Env = withoutTarget(os.Environ())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var rep struct {
		Requests int64             `json:"requests"`
		Seconds  float64           `json:"seconds"`
		Findings []json.RawMessage `json:"findings"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil || rep.Requests == 0 {
		return measured{}, fmt.Errorf("no report (%v): %s", err, strings.TrimSpace(stderr.String()))
	}
	ps := cmd.ProcessState
	return measured{requests: rep.Requests, seconds: rep.Seconds, cpu: ps.UserTime() + ps.SystemTime(), findings: len(rep.Findings)}, nil
}

// withoutTarget is env without the variables that would point explore at another target
// than the in-process reference.
func withoutTarget(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PETSTORE_BASE_URL=") && !strings.HasPrefix(kv, "PETSTORE_API_KEY=") {
			out = append(out, kv)
		}
	}
	return out
}

// buildAt builds cmd/conformance from the tree of rev (git archive) and returns the binary.
func buildAt(ctx context.Context, rev, dir string) (string, error) {
	src := filepath.Join(dir, "src")
	archive := exec.CommandContext(ctx, "git", "archive", "--format=tar", rev)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	archive.Stderr = &stderr
	if err := archive.Start(); err != nil {
		return "", fmt.Errorf("bench-explore: git archive %s: %w", rev, err)
	}
	xerr := extract(pipe, src)
	if err := archive.Wait(); err != nil {
		return "", fmt.Errorf("bench-explore: git archive %s: %v: %s", rev, err, strings.TrimSpace(stderr.String()))
	}
	if xerr != nil {
		return "", xerr
	}
	bin := filepath.Join(dir, "conformance-"+rev)
	return bin, goBuild(ctx, src, bin)
}

// extract writes the files of a tar stream under dir.
func extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(path, dir+string(filepath.Separator)) {
			return fmt.Errorf("bench-explore: %q leaves the directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			err = writeFile(path, tr, h.FileInfo().Mode())
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(path string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func goBuild(ctx context.Context, dir, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-buildvcs=false", "-o", out, "./cmd/conformance")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("bench-explore: go build in %s: %v\n%s", dir, err, msg)
	}
	return nil
}

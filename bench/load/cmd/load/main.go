// Command load measures the reference server under load over loopback (issues 6 and 14) and
// prints markdown tables with the targets hit or missed.
//
//	load [-connections 16] [-duration 5s] [-slice 1s] [-warmup 1s] [-server-cores 1,2] [-pin=true]
//	     [-peers] [-seed-animals 1000]
//	load -memory [-animals 1000000] [-memory-post]
//
// The default run builds cmd/petstore into a temporary folder (run it from the module
// root), then, at each number of server cores, starts for each case a fresh process of each
// configuration: petstore serve (validation on), petstore serve --no-validation, and a
// baseline net/http handler sending the same bytes (this command, re-run as "load
// baseline"), and loads them in turns of -slice until each had -duration, so that what else
// the machine runs touches them alike. The server runs pinned to its cores and the load
// generator (this process) to the others, with taskset; where there are not enough cores for both, the generator shares
// the server's and the output says so, and without taskset the run is unpinned. -peers adds
// Stoplight Prism's mock, installed by `make load-peers` into .tools/prism. -memory instead
// starts two validated servers, one seeded from a file with 100 animals and one with
// -animals (-memory-post: filled through POST /v1/pets instead), serves the lists from both
// and reports the resident memory per animal of the big one over the small one, and the
// list latency on each.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/petstore/petstore/bench/load"
	"github.com/petstore/petstore/bench/machine"
	"github.com/petstore/petstore/internal/cli"
)

func main() {
	if err := run(context.Background(), os.Args, os.Stdout, os.Stderr); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(cli.Code(err))
	}
}

const apiKey = "load-test-key"

// options are the parsed command line.
type options struct {
	load.Options
	peers, memory      bool
	memoryPost         bool
	animals, seedCount int
	petstore, prism    string
	specPath           string
	baselineAddr       string
	baselineBase       string
	baselineCanned     string
	serverCores        []int // one comparison per entry
	pin                bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	if len(args) > 1 && args[1] == "baseline" {
		fs := flag.NewFlagSet("load baseline", flag.ContinueOnError)
		fs.SetOutput(stderr)
		fs.StringVar(&o.baselineAddr, "addr", "127.0.0.1:0", "listen `address`")
		fs.StringVar(&o.baselineBase, "base", "/v1", "base `path` of the operations")
		fs.StringVar(&o.baselineCanned, "canned", "", "JSON `file` of the answers (written by the load run)")
		if err := fs.Parse(args[2:]); err != nil {
			return o, cli.Usagef("load baseline: %v", err)
		}
		if o.baselineCanned == "" {
			return o, cli.Usagef("load baseline: --canned is required")
		}
		return o, nil
	}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.Connections, "connections", 16, "concurrent connections, one request in flight on each")
	fs.DurationVar(&o.Duration, "duration", 5*time.Second, "measured `time` per case and server")
	fs.DurationVar(&o.Warmup, "warmup", time.Second, "unmeasured `time` before each measurement")
	fs.BoolVar(&o.peers, "peers", false, "also measure Stoplight Prism's mock (see -prism)")
	fs.StringVar(&o.prism, "prism", ".tools/prism/node_modules/.bin/prism", "Prism CLI `path` (make load-peers installs it)")
	fs.StringVar(&o.specPath, "spec", "spec/openapi.yaml", "the `file` Prism mocks")
	fs.StringVar(&o.petstore, "petstore", "", "petstore `binary` to measure; default: go build ./cmd/petstore")
	fs.IntVar(&o.seedCount, "seed-animals", 1000, "animals the servers start with (a quarter of them sold)")
	cores := fs.String("server-cores", "1,2", "comma-separated `list` of server core counts, one comparison each")
	fs.DurationVar(&o.Slice, "slice", time.Second, "the servers under a case take turns of this `time` until each had -duration")
	fs.BoolVar(&o.pin, "pin", true, "pin the server and the load generator to separate cores with taskset (Linux); "+
		"without taskset the run is unpinned")
	fs.BoolVar(&o.memory, "memory", false, "measure memory per animal and list latency at 100 and at -animals animals")
	fs.IntVar(&o.animals, "animals", 1_000_000, "animals the big server holds in -memory mode")
	fs.BoolVar(&o.memoryPost, "memory-post", false, "in -memory mode, create the animals through POST /v1/pets instead of seeding them from a file")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, cli.Usagef("load: %v", err)
	}
	if fs.NArg() > 0 {
		return o, cli.Usagef("load: unexpected argument %q", fs.Arg(0))
	}
	if o.Connections < 1 || o.Duration <= 0 || o.Slice <= 0 || o.Warmup < 0 || o.seedCount < 1 || o.animals < 101 {
		return o, cli.Usagef("load: -connections, -duration, -slice, -seed-animals must be positive and -animals above 100")
	}
	for _, f := range strings.Split(*cores, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return o, cli.Usagef("load: -server-cores: want positive numbers separated by commas, got %q", *cores)
		}
		o.serverCores = append(o.serverCores, n)
	}
	o.APIKey = apiKey
	o.StartWithin = 30 * time.Second // Prism takes seconds; petstore is held to 150 ms below
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.baselineCanned != "" {
		return load.ServeBaseline(ctx, o.baselineAddr, o.baselineBase, o.baselineCanned)
	}
	dir, err := os.MkdirTemp("", "petstore-load-")
	if err != nil {
		return cli.Usagef("load: %v", err)
	}
	defer os.RemoveAll(dir)
	if o.petstore == "" {
		o.petstore = filepath.Join(dir, "petstore")
		build := exec.CommandContext(ctx, "go", "build", "-o", o.petstore, "./cmd/petstore")
		if out, err := build.CombinedOutput(); err != nil {
			return cli.Usagef("load: go build ./cmd/petstore (run from the module root): %v\n%s", err, out)
		}
	}
	fmt.Fprintf(stdout, "machine: %d cores, load average %s; %s; %d connections, %v per case and server in turns of %v, after %v warm-up\n\n",
		runtime.NumCPU(), machine.LoadAverage(), runtime.Version(), o.Connections, o.Duration, min(o.Slice, o.Duration), o.Warmup)
	if o.memory {
		return memory(ctx, o, dir, stdout)
	}
	return table(ctx, o, dir, stdout)
}

// table measures every configuration under every case at each number of server cores,
// and prints them side by side with the targets.
func table(ctx context.Context, o options, dir string, stdout io.Writer) error {
	servers, prismWhy, err := tableServers(ctx, o, dir)
	if err != nil {
		return err
	}
	runs, err := measure(ctx, o, servers, stdout)
	if err != nil {
		return err
	}
	writeRuns(stdout, o, runs, prismWhy)
	return nil
}

// tableServers are the servers the table compares: petstore serve validated and with
// --no-validation (both seeded in dir), the baseline that replays what the validated one
// answered and, with -peers, Prism (prismWhy says why not when it is missing).
func tableServers(ctx context.Context, o options, dir string) (servers []load.Server, prismWhy string, err error) {
	seed := filepath.Join(dir, "seed.json")
	if err := writeSeed(seed, o.seedCount); err != nil {
		return nil, "", cli.Usagef("load: %v", err)
	}
	serve := []string{o.petstore, "serve", "--addr", "127.0.0.1:{port}", "--api-key", apiKey, "--seed", seed}
	validated := load.Server{Name: load.Validated, Argv: serve, ReadyPath: "/healthz", Base: "/v1"}
	noValidation := load.Server{Name: load.NoValidation, Argv: append(slices.Clone(serve), "--no-validation"),
		ReadyPath: "/healthz", Base: "/v1"}

	// The baseline answers with what the validated server answered.
	p, err := load.Start(ctx, validated.Argv, validated.ReadyPath, o.StartWithin)
	if err != nil {
		return nil, "", cli.Usagef("load: %v", err)
	}
	canned, err := load.Capture(ctx, p.URL+validated.Base, apiKey, load.Cases)
	p.Stop()
	if err != nil {
		return nil, "", cli.Usagef("load: capture the reference answers: %v", err)
	}
	cannedPath := filepath.Join(dir, "canned.json")
	data, _ := json.Marshal(canned) // byte slices and strings always marshal
	if err := os.WriteFile(cannedPath, data, 0o600); err != nil {
		return nil, "", cli.Usagef("load: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, "", cli.Usagef("load: %v", err)
	}
	servers = []load.Server{validated, noValidation, {Name: load.BaselineServer,
		Argv: []string{self, "baseline", "--addr", "127.0.0.1:{port}", "--canned", cannedPath}, ReadyPath: "/healthz", Base: "/v1"}}
	if o.peers {
		if _, err := os.Stat(o.prism); err != nil {
			prismWhy = fmt.Sprintf("Prism not installed at %s (make load-peers installs it): %v", o.prism, err)
		} else {
			servers = append(servers, load.Server{Name: "prism mock -v error",
				Argv:      []string{o.prism, "mock", "-h", "127.0.0.1", "-p", "{port}", "-v", "error", o.specPath},
				ReadyPath: "/pets", Base: ""}) // Prism serves the paths without the servers' base path
		}
	}
	return servers, prismWhy, nil
}

// measure runs every case against every server on each -server-cores count that fits the
// machine, the servers pinned to their cores and the generator to the others.
func measure(ctx context.Context, o options, servers []load.Server, stdout io.Writer) ([]load.Comparison, error) {
	var err error
	taskset := ""
	if o.pin {
		if taskset, err = exec.LookPath("taskset"); err != nil {
			taskset = ""
			fmt.Fprintln(stdout, "taskset not found: the run is unpinned (the server's GOMAXPROCS is set to its core count, nothing more).")
			fmt.Fprintln(stdout)
		}
	}
	cpus := load.AllowedCPUs()
	var runs []load.Comparison
	for _, n := range o.serverCores {
		place, err := load.Place(cpus, n, taskset)
		if err != nil {
			fmt.Fprintf(stdout, "%s: not measured: %v\n\n", load.ServerCores(n), err)
			continue
		}
		if err := place.PinGenerator(); err != nil {
			return nil, cli.Usagef("load: %v", err)
		}
		pinned := make([]load.Server, len(servers))
		for i, srv := range servers {
			srv.Argv = place.Wrap(srv.Argv)
			pinned[i] = srv
		}
		var results []load.Result
		for _, c := range load.Cases {
			fmt.Fprintf(os.Stderr, "load: %s: %s...\n", load.ServerCores(n), c.Name)
			results = append(results, load.Interleave(ctx, pinned, c, o.Options)...)
			if ctx.Err() != nil {
				return nil, cli.Usagef("load: interrupted")
			}
		}
		runs = append(runs, load.Comparison{Cores: n, Placement: place, Results: results})
	}
	if len(runs) == 0 {
		return nil, cli.Usagef("load: no -server-cores count fits the %d CPUs of this machine", len(cpus))
	}
	return runs, nil
}

// writeRuns writes the comparison, then each core count's table and its targets.
func writeRuns(stdout io.Writer, o options, runs []load.Comparison, prismWhy string) {
	validated, noValidation := load.Validated, load.NoValidation
	load.WriteComparison(stdout, runs, load.Cases)
	fmt.Fprintf(stdout, "\nServers start with %d animals; the baseline sends the bytes the validated server sent. "+
		"Prism answers with the spec's examples.\n", o.seedCount)
	for _, run := range runs {
		fmt.Fprintf(stdout, "\n### %s\n\n", load.ServerCores(run.Cores))
		load.WriteTable(stdout, run.Results, validated)
		fmt.Fprintln(stdout, "\nTargets:")
		post, list := load.Cases[2].Name, load.Cases[0].Name
		goals := []load.Goal{
			load.RatioGoal("validated "+post+" >= 85% of --no-validation (throughput)", run.Results, validated, noValidation, post, 0.85, true),
			load.CPUGoal("validated "+post+" >= 85% of --no-validation (server CPU per request)", run.Results, validated, noValidation, post, 0.85),
		}
		for _, c := range load.Cases {
			if c.Method == "GET" {
				goals = append(goals,
					load.RatioGoal("validated "+c.Name+" >= 85% of the baseline (throughput)", run.Results, validated, load.BaselineServer, c.Name, 0.85, true),
					load.CPUGoal("validated "+c.Name+" >= 85% of the baseline (server CPU per request)", run.Results, validated, load.BaselineServer, c.Name, 0.85))
			}
		}
		goals = append(goals, load.ReadyGoal("petstore serve ready (GET /healthz answers) within 150 ms of start", run.Results, validated, 150*time.Millisecond))
		prism := load.Goal{Name: "validated " + list + " throughput >= 10× Prism mock's", Why: "run make load-peers"}
		if o.peers {
			prism = load.RatioGoal(prism.Name, run.Results, validated, "prism mock -v error", list, 10, false)
			if prismWhy != "" {
				prism.Why = prismWhy
			}
		}
		load.WriteGoals(stdout, append(goals, prism))
		if ceiling := load.RatioGoal("", run.Results, load.BaselineServer, "prism mock -v error", list, 0, false); ceiling.Measured != "" {
			fmt.Fprintf(stdout, "\nCeiling of this run: the baseline (no work at all) does %s Prism's %s.\n", ceiling.Measured, list)
		}
	}
}

// memory runs the memory mode on the validated server: seeded from files in dir, or filled
// through POST with -memory-post.
func memory(ctx context.Context, o options, dir string, stdout io.Writer) error {
	srv := load.Server{Name: "petstore", ReadyPath: "/healthz", Base: "/v1",
		Argv: []string{o.petstore, "serve", "--addr", "127.0.0.1:{port}", "--api-key", apiKey, "--max-pets", strconv.Itoa(o.animals)}}
	var seedArgs func(n int) ([]string, error)
	if !o.memoryPost {
		seedArgs = func(n int) ([]string, error) {
			path := filepath.Join(dir, fmt.Sprintf("seed-%d.json", n))
			return []string{"--seed", path}, writeSeed(path, n)
		}
	}
	m, err := load.MeasureMemory(ctx, srv, o.animals, seedArgs, o.Options, func(s string) { fmt.Fprintln(os.Stderr, "load: "+s) })
	if err != nil {
		return cli.Usagef("load: memory: %v", err)
	}
	how := "seeded from a file (petstore serve --seed)"
	if !m.Seeded {
		how = "created through POST /v1/pets"
		fmt.Fprintf(stdout, "Animals created through POST /v1/pets (validated server): %d in %.1f s (%s req/s, %d errors)\n\n",
			m.To, float64(m.Fill.Requests)/m.Fill.RPS, strconv.FormatFloat(m.Fill.RPS, 'f', 0, 64), m.Fill.Errors)
	}
	fmt.Fprintf(stdout, "Animals %s; memory read after the lists below were served.\n\n", how)
	fmt.Fprintln(stdout, "| animals | VmRSS | VmHWM (peak) |")
	fmt.Fprintln(stdout, "|---:|---:|---:|")
	fmt.Fprintf(stdout, "| %d | %.1f MiB | %.1f MiB |\n", m.From, mb(m.Small.RSS), mb(m.Small.Peak))
	fmt.Fprintf(stdout, "| %d | %.1f MiB | %.1f MiB |\n\n", m.To, mb(m.Big.RSS), mb(m.Big.Peak))
	load.WriteTable(stdout, m.Lists, "")
	fmt.Fprintln(stdout, "\nTargets:")
	per := m.PerAnimal()
	goals := []load.Goal{{Name: fmt.Sprintf("VmRSS per animal at %d animals, over the server holding %d, <= 64 B", m.To, m.From),
		Measured: fmt.Sprintf("%.0f B/animal (VmRSS %+.1f MiB for %d animals more)", per, mb(m.Big.RSS-m.Small.RSS), m.To-m.From),
		Hit:      per <= 64}}
	for _, c := range load.ListCases {
		small, big := m.MedianP50(m.SmallName(), c.Name), m.MedianP50(m.BigName(), c.Name)
		ratio := float64(big) / float64(small)
		goals = append(goals, load.Goal{
			Name: fmt.Sprintf("%s latency at %d animals <= 1.2× at %d (median of %d rounds' p50)",
				c.Name, m.To, m.From, load.Rounds),
			Measured: fmt.Sprintf("%.2f× (%v vs %v)", ratio, big.Round(time.Microsecond), small.Round(time.Microsecond)),
			Hit:      ratio <= 1.2})
	}
	load.WriteGoals(stdout, goals)
	return nil
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// writeSeed writes n animals: names pet1..petN, seven categories, the three statuses and
// none in turn (so a quarter are sold).
func writeSeed(path string, n int) error {
	var b strings.Builder
	b.WriteString("[")
	statuses := []string{`,"status":"available"`, `,"status":"pending"`, `,"status":"sold"`, ``}
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name":"pet%d","categoryId":%d%s}`, i, i%7, statuses[i%4])
	}
	b.WriteString("]\n")
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

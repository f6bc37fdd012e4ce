// Command zoo runs the harness against every implementation in zoo/ and prints a table row
// per implementation: it installs each (install.sh), starts it on a free loopback port
// (start.sh, with PORT and API_KEY), runs `conformance run` plain and --strict and a short
// `conformance explore`, stops it, and compares the strict run's failures with the verdicts
// recorded in zoo/verdicts.json.
//
//	zoo [-dir zoo] [-record zoo/verdicts.json] [-only NAME] [-update] [-steps N] [-docs FILE]
//
// Exit codes: 0 every verdict holds; 1 a recorded fault was lost, a false positive came
// back, or a failure is not judged yet; 2 the zoo could not be run, or an implementation
// could not be installed, started or judged (named, with the reason). Such an
// implementation passes only when zoo/verdicts.json holds a dated "unavailable" entry with
// a reason for it, which is printed. -update writes the observed failures into the record
// (new ones as "unjudged", to be judged by hand).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/zoo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(cli.Code(err))
	}
}

const key = "zoo-key-5b1e9c"

// compare writes the table row of implementation name, observed obs against its record r,
// says on stderr every verdict that changed and returns how many did; with update, the
// record takes the new failures (unjudged) and the explore findings.
func compare(tw, stderr io.Writer, name string, r *zoo.Implementation, obs zoo.Observed, update bool) int {
	if !obs.Ran {
		fmt.Fprintf(tw, "%s\t%s\tnot judged (below)\t\t\t\t\t\t\t\n", name, r.Framework)
		return 0
	}
	lost, unjudged, fps := zoo.Compare(r, obs)
	faults := 0
	for _, k := range obs.Failures {
		if j, ok := r.Failures[k]; ok && j.Verdict == zoo.Fault {
			faults++
		}
	}
	fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", name, r.Framework, obs.Plain, obs.Strict, obs.Cases,
		len(obs.Explore), faults, len(lost), len(unjudged), len(fps))
	for _, k := range lost {
		fmt.Fprintf(stderr, "zoo: %s: a recorded fault is no longer reported: %s\n", name, k)
	}
	for _, k := range unjudged {
		fmt.Fprintf(stderr, "zoo: %s: not judged yet: %s\n", name, k)
	}
	for _, k := range fps {
		fmt.Fprintf(stderr, "zoo: %s: a false positive is back: %s\n", name, k)
	}
	if update {
		for _, k := range unjudged {
			r.Failures[k] = zoo.Judgement{Verdict: zoo.Unjudged}
		}
		r.Explore = obs.Explore
	}
	return len(lost) + len(unjudged) + len(fps)
}

// writeDocs writes the Markdown table of the record to path (docs/zoo.md).
func writeDocs(path string, rec zoo.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return cli.Usagef("zoo: %v", err)
	}
	defer f.Close()
	return zoo.WriteMarkdown(f, rec)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "zoo", "the folder of implementations")
	recPath := fs.String("record", "zoo/verdicts.json", "the recorded verdicts")
	only := fs.String("only", "", "run only the implementation `NAME`")
	update := fs.Bool("update", false, "write the observed failures into the record (new ones unjudged)")
	steps := fs.Int("steps", 300, "explore budget in `steps`")
	docs := fs.String("docs", "", "only write the Markdown table of the record to `FILE` (docs/zoo.md) and stop")
	if err := fs.Parse(args[1:]); err != nil {
		return cli.Usagef("zoo: %v", err)
	}
	rec, err := zoo.ReadRecord(*recPath)
	if err != nil {
		return cli.Usagef("zoo: %v", err)
	}
	if *docs != "" {
		return writeDocs(*docs, rec)
	}
	names, err := zoo.Implementations(*dir)
	if err != nil {
		return cli.Usagef("zoo: %v", err)
	}
	bin, err := os.MkdirTemp("", "zoo-bin")
	if err != nil {
		return cli.Usagef("zoo: %v", err)
	}
	defer os.RemoveAll(bin)
	harness := filepath.Join(bin, "conformance")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", harness, "./cmd/conformance").CombinedOutput(); err != nil {
		return cli.Usagef("zoo: building the harness: %v: %s", err, out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "implementation\tframework\trules failed\tstrict\tcases failed\texplore findings\ttrue faults caught\tlost\tunjudged\tfalse positives")
	bad := 0
	var notJudged []string
	for _, name := range names {
		if *only != "" && name != *only {
			continue
		}
		fmt.Fprintf(stderr, "zoo: %s ...\n", name)
		obs := observe(ctx, harness, filepath.Join(*dir, name), name, *steps, stderr)
		if ctx.Err() != nil {
			return cli.Usagef("zoo: interrupted")
		}
		r := rec[name]
		if r == nil {
			r = &zoo.Implementation{Framework: name, Failures: map[string]zoo.Judgement{}}
			rec[name] = r
		}
		bad += compare(tw, stderr, name, r, obs, *update)
		failure, note := zoo.NotJudged(name, r, obs)
		if note != "" {
			fmt.Fprintf(stderr, "zoo: %s\n", note)
		}
		if failure != "" {
			fmt.Fprintf(stderr, "zoo: %s\n", failure)
			notJudged = append(notJudged, name)
		}
	}
	tw.Flush()
	if *update {
		if err := rec.Write(*recPath); err != nil {
			return cli.Usagef("zoo: %v", err)
		}
	}
	if len(notJudged) > 0 {
		return cli.Usagef("zoo: not judged: %s (see above; %d verdicts changed); a dated \"unavailable\" entry in %s accepts one on purpose",
			strings.Join(notJudged, ", "), bad, *recPath)
	}
	if bad > 0 {
		return cli.Failed("zoo: %d verdicts changed (see above)", bad)
	}
	return nil
}

// observe installs, starts, checks and stops one implementation.
func observe(ctx context.Context, harness, dir, name string, steps int, logw io.Writer) zoo.Observed {
	obs := zoo.Observed{Name: name}
	install := exec.CommandContext(ctx, "bash", "install.sh")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		obs.Skipped = "install failed: " + lastLine(out)
		return obs
	}
	var plain, strict *conformance.Report
	var plainErr, strictErr error
	if err := withServer(ctx, dir, func(base string) {
		plain, plainErr = runHarness(ctx, harness, base, false)
		strict, strictErr = runHarness(ctx, harness, base, true)
	}); err != nil {
		obs.Skipped = err.Error()
		return obs
	}
	if plainErr != nil {
		obs.Skipped = "the harness could not judge it: " + plainErr.Error()
		return obs
	}
	if strictErr != nil {
		obs.Skipped = "the harness could not judge it (--strict): " + strictErr.Error()
		return obs
	}
	obs.Ran = true
	obs.Plain, obs.Strict = plain.Counts.Fail+plain.Counts.Error, strict.Counts.Fail+strict.Counts.Error
	seen := map[string]bool{}
	for _, res := range strict.Results {
		// ADVISORY failures warn even in a strict run; they are recorded too.
		advisory := res.Status == conformance.Warn && res.Level == conformance.Advisory
		if res.Status != conformance.Fail && res.Status != conformance.Error && !advisory {
			continue
		}
		if res.Status == conformance.Error {
			k := zoo.Key(res.ID, "", "error: "+res.Reason)
			obs.Failures = append(obs.Failures, k)
			continue
		}
		for _, f := range res.Failures {
			if f.Case != "" {
				obs.Cases++
			}
			k := zoo.Key(res.ID, f.Case, f.Message)
			if !seen[k] {
				seen[k] = true
				obs.Failures = append(obs.Failures, k)
			}
		}
	}
	// A fresh server: what explore finds is its own, not what the runs left in the store.
	var exploreErr error
	if err := withServer(ctx, dir, func(base string) { obs.Explore, exploreErr = explore(ctx, harness, base, steps) }); err != nil {
		obs.Skipped = "not explored: " + err.Error()
	} else if exploreErr != nil {
		obs.Skipped = "not explored: " + exploreErr.Error()
	}
	return obs
}

// withServer starts the implementation in dir on a free port, calls use with its base URL
// once it answers, and stops it (the whole process group).
func withServer(ctx context.Context, dir string, use func(base string)) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	logf, err := os.CreateTemp("", "zoo-*.log")
	if err != nil {
		return err
	}
	defer os.Remove(logf.Name())
	defer logf.Close()
	srv := exec.Command("bash", "start.sh")
	srv.Dir = dir
	srv.Env = append(os.Environ(), "PORT="+port, "API_KEY="+key)
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		return fmt.Errorf("start failed: %w", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = srv.Wait(); close(exited) }()
	defer stopGroup(srv, exited)
	base := "http://127.0.0.1:" + port + "/v1"
	if err := ready(ctx, base, exited); err != nil {
		if errors.Is(err, errExited) {
			err = fmt.Errorf("start.sh ended (%v)", waitErr)
		}
		b, _ := os.ReadFile(logf.Name())
		return fmt.Errorf("did not start: %v: %s", err, lastLine(b))
	}
	use(base)
	return nil
}

// runHarness runs conformance run against base. With one worker: the record compares the
// failures of runs against a server that keeps what earlier runs created, and with workers
// side by side the order in which the create cases get their ids varies, and so which
// animals the first page of a later run's listing shows (an animal a server stored badly
// on that page or not).
// A run that ends with anything but 0 or 1 (exit 2: the target could not be judged) is an
// error carrying the harness's last line on stderr.
func runHarness(ctx context.Context, harness, base string, strict bool) (*conformance.Report, error) {
	args := []string{"run", "--base-url", base, "--api-key", key, "--seed", "1", "--format", "json", "--timeout", "5s", "--workers", "1"}
	if strict {
		args = append(args, "--strict")
	}
	cmd := exec.CommandContext(ctx, harness, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return nil, fmt.Errorf("%v: %s", err, lastLine(errOut.Bytes()))
	}
	var rep conformance.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("no JSON report: %v", err)
	}
	return &rep, nil
}

// explore runs a short exploration and returns its findings in words; an exploration that
// gives no report is an error.
func explore(ctx context.Context, harness, base string, steps int) ([]string, error) {
	dir, err := os.MkdirTemp("", "zoo-explore")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// The replay file of a finding goes to a scratch folder, not into the work tree.
	cmd := exec.CommandContext(ctx, harness, "explore", "--base-url", base, "--api-key", key, "--seed", "1",
		"--steps", fmt.Sprint(steps), "--workers", "2", "--format", "json", "--timeout", "5s",
		"--replay-file", filepath.Join(dir, "replay.json"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	var rep struct {
		Findings []struct {
			Rule    string `json:"rule"`
			Message string `json:"message"`
			Class   string `json:"class"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("explore gave no report (%v): %s", runErr, lastLine(errOut.Bytes()))
	}
	var found []string
	for _, f := range rep.Findings {
		found = append(found, fmt.Sprintf("%s: %s (%s)", f.Rule, f.Message, f.Class))
	}
	return found, nil
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port, nil
}

var errExited = errors.New("the server's process ended")

// ready polls the base URL until the server answers anything, for at most two minutes (a
// first start may build), and gives up at once when the server's process ends (exited).
func ready(ctx context.Context, base string, exited <-chan struct{}) error {
	deadline := time.Now().Add(2 * time.Minute)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/pets", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return errExited
		case <-time.After(200 * time.Millisecond):
		}
	}
	return errors.New("no answer within 2m")
}

// stopGroup stops the process group of cmd, whose Wait closes done.
func stopGroup(cmd *exec.Cmd, done <-chan struct{}) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
)

// doubleFlags are the flags that make the reference a test double for client developers
// (README "Testing your client"). Without them `petstore serve` is the pure reference.
type doubleFlags struct {
	now          string
	scenarios    bool
	latency      time.Duration
	failRate     float64
	rateLimit    string
	journal      int
	journalSet   bool // --journal was given
	clientReport string
	vary         uint64
	pact         pactFlags
}

func (d *doubleFlags) flags(fs *flag.FlagSet) {
	fs.StringVar(&d.now, "now", "", "start the server's clock at this `date` (2031-01-01 or RFC 3339); it runs on from there")
	fs.BoolVar(&d.scenarios, "scenarios", false, "let a request choose its answer with Prefer: code=NNN (a documented status, or 429, 503), delay=MS, fault=reset|close|slow, example=NAME")
	fs.DurationVar(&d.latency, "latency", 0, "delay every answer of the API by this `duration`")
	fs.Float64Var(&d.failRate, "fail-rate", 0, "answer this `share` (0 to 1) of API requests 503 with Retry-After")
	fs.StringVar(&d.rateLimit, "rate-limit", "", "answer at most `N/s` API requests per second; 429 with Retry-After beyond")
	fs.IntVar(&d.journal, "journal", 1000, "keep the last `N` requests for GET /_admin/requests (with --admin-key, --client-report or --pact; 0: none)")
	fs.Uint64Var(&d.vary, "vary", 0, "take the open choices this `seed` picks (ids, order, short pages, names, headers, chunked, jitter, 429/503); 0: none")
	fs.StringVar(&d.clientReport, "client-report", "", "at shutdown, write the client report to this `file` (.json: JSON, else Markdown; -: stdout)")
	d.pact.flags(fs)
}

// config fills the Double of cfg (and its clock) from the flags; adminKey says whether the
// admin endpoints are on, which is when the journal can be read.
func (d *doubleFlags) config(cfg *reference.Config, adminKey bool) error {
	if d.now != "" {
		start, err := double.ParseTime(d.now)
		if err != nil {
			return fmt.Errorf("--now: %v", err)
		}
		t0 := time.Now()
		cfg.Now = func() time.Time { return start.Add(time.Since(t0)) }
	}
	if d.latency < 0 {
		return fmt.Errorf("--latency must not be negative, got %v", d.latency)
	}
	if d.failRate < 0 || d.failRate > 1 || d.failRate != d.failRate {
		return fmt.Errorf("--fail-rate must be from 0 to 1, got %v", d.failRate)
	}
	if d.journal < 0 || d.journal > double.MaxJournal {
		return fmt.Errorf("--journal must be from 0 to %d, got %d", double.MaxJournal, d.journal)
	}
	cfg.Double = double.Double{Scenarios: d.scenarios, Latency: d.latency, FailRate: d.failRate, Vary: d.vary}
	if d.rateLimit != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(d.rateLimit, "/s"))
		if err != nil || n <= 0 {
			return fmt.Errorf("--rate-limit: want requests per second such as 10/s, got %q", d.rateLimit)
		}
		cfg.Double.RateLimit = n
	}
	if adminKey || d.clientReport != "" || d.pact.file != "" {
		cfg.Double.Journal = d.journal
	} else if d.journalSet && d.journal > 0 {
		return fmt.Errorf("--journal keeps requests for GET /_admin/requests or the client report: add --admin-key or --client-report")
	}
	if d.clientReport != "" && d.journal == 0 {
		return fmt.Errorf("--client-report needs a journal; drop --journal 0")
	}
	if err := d.pact.check(d.journal); err != nil {
		return err
	}
	return d.checkClientReport()
}

// checkClientReport refuses at start a --client-report the server could not write at
// shutdown (a missing directory, no permission, a directory), when the report would be lost.
func (d *doubleFlags) checkClientReport() error {
	return checkWritable("--client-report", d.clientReport)
}

// checkWritable refuses at start a file named by flag that could not be written at shutdown.
func checkWritable(flag, file string) error {
	if file == "" || file == "-" {
		return nil
	}
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s is a directory", flag, file)
	}
	f, err := os.CreateTemp(filepath.Dir(file), ".petstore-client-report-*")
	if err != nil {
		return fmt.Errorf("%s %s cannot be written: %w", flag, file, errors.Unwrap(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// describe is the start-up line that says which features are on, or "" when none is.
func (d *doubleFlags) describe(cfg reference.Config) string {
	var on []string
	if d.now != "" {
		on = append(on, "clock from "+d.now)
	}
	if d.scenarios {
		on = append(on, "Prefer scenarios")
	}
	if d.latency > 0 {
		on = append(on, "latency "+d.latency.String())
	}
	if d.failRate > 0 {
		on = append(on, fmt.Sprintf("fail rate %g", d.failRate))
	}
	if cfg.Double.RateLimit > 0 {
		on = append(on, fmt.Sprintf("rate limit %d/s", cfg.Double.RateLimit))
	}
	if cfg.Double.Journal > 0 {
		on = append(on, "journal of "+words.Plural(cfg.Double.Journal, "request"))
	}
	if d.vary != 0 {
		on = append(on, double.ChooseVariations(d.vary).String())
	}
	if len(on) == 0 {
		return ""
	}
	return "petstore: test double: " + strings.Join(on, ", ")
}

// writeClientReport writes the report where --client-report says, at shutdown; then it
// says which MUST rules the client broke, if any (exit 1).
func (d *doubleFlags) writeClientReport(srv *reference.Server, stdout io.Writer) error {
	if err := d.writeReport(srv, stdout); err != nil || d.clientReport == "" {
		return err
	}
	rep, err := srv.Report()
	if err != nil {
		return err
	}
	if broken := rep.MustBroken(); len(broken) > 0 {
		ids := make([]string, len(broken))
		for i, r := range broken {
			ids[i] = r.ID
		}
		return fmt.Errorf("the client broke %s of the interface document: %s (see the client report)",
			words.Plural(len(broken), "MUST rule"), strings.Join(ids, ", "))
	}
	return nil
}

func (d *doubleFlags) writeReport(srv *reference.Server, stdout io.Writer) error {
	if d.clientReport == "" {
		return nil
	}
	rep, err := srv.Report()
	if err != nil {
		return err
	}
	var b strings.Builder
	if strings.EqualFold(filepath.Ext(d.clientReport), ".json") {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(rep)
	} else {
		err = rep.WriteMarkdown(&b)
	}
	if err != nil {
		return err
	}
	if d.clientReport == "-" {
		_, err = io.WriteString(stdout, b.String())
		return err
	}
	if err := os.WriteFile(d.clientReport, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--client-report: %w", err)
	}
	fmt.Fprintf(stdout, "petstore: client report written to %s\n", d.clientReport)
	return nil
}

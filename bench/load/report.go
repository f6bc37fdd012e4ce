package load

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/internal/words"
)

// WriteTable writes the results as a markdown table, each case's throughput also as a
// ratio to the server named ref under the same case (no ratio column when ref is ""), and
// the cores the server and the load generator kept busy.
func WriteTable(w io.Writer, results []Result, ref string) {
	refRPS := map[string]float64{}
	for _, r := range results {
		if r.Server == ref && r.Err == nil {
			refRPS[r.Case] = r.RPS
		}
	}
	ratioHead, ratioRule := " vs "+ref+" |", "---:|"
	if ref == "" {
		ratioHead, ratioRule = "", ""
	}
	fmt.Fprintf(w, "| case | server | req/s |%s p50 | p99 | max | errors | peak RSS | server CPU | generator CPU |\n", ratioHead)
	fmt.Fprintf(w, "|---|---|---:|%s---:|---:|---:|---:|---:|---:|---:|\n", ratioRule)
	for _, r := range results {
		if r.Err != nil && r.Requests == 0 {
			fmt.Fprintf(w, "| %s | %s | not measured: %s | | | | | | | | |\n", r.Case, r.Server, oneLine(r.Err))
			continue
		}
		ratio := " -"
		if base := refRPS[r.Case]; base > 0 {
			ratio = fmt.Sprintf(" %.2f×", r.RPS/base)
		}
		if ref == "" {
			ratio = ""
		} else {
			ratio += " |"
		}
		errs := fmt.Sprint(r.Errors)
		if r.Err != nil {
			errs += " (" + oneLine(r.Err) + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s |%s %s | %s | %s | %s | %s | %s | %s |\n", r.Case, r.Server,
			thousands(r.RPS), ratio, ms(r.P50), ms(r.P99), ms(r.Max), errs, mib(r.PeakRSS), cores(r.ServerCPU), cores(r.GeneratorCPU))
	}
}

// Goal is one target of issue 6, measured or not.
type Goal struct {
	Name     string // the target, e.g. "validated GET /v1/pets >= 70% of --no-validation"
	Measured string // the figure, e.g. "93% (12,000 vs 12,900 req/s)"; "" when not measured
	Hit      bool
	Why      string // why it was not measured
}

// WriteGoals writes one line per goal: hit, MISSED or not measured.
func WriteGoals(w io.Writer, goals []Goal) {
	for _, g := range goals {
		switch {
		case g.Measured == "":
			fmt.Fprintf(w, "- not measured: %s (%s)\n", g.Name, g.Why)
		case g.Hit:
			fmt.Fprintf(w, "- hit: %s: %s\n", g.Name, g.Measured)
		default:
			fmt.Fprintf(w, "- MISSED: %s: %s\n", g.Name, g.Measured)
		}
	}
}

// Find returns the result of a server under a case.
func Find(results []Result, server, cs string) (Result, bool) {
	for _, r := range results {
		if r.Server == server && r.Case == cs && r.Err == nil && r.RPS > 0 {
			return r, true
		}
	}
	return Result{}, false
}

// RatioGoal compares a's throughput with b's under the same case: a/b >= min.
func RatioGoal(name string, results []Result, a, b, cs string, min float64, asPercent bool) Goal {
	g := Goal{Name: name}
	ra, okA := Find(results, a, cs)
	rb, okB := Find(results, b, cs)
	if !okA || !okB {
		g.Why = "no measurement of " + a + " and " + b + " under " + cs
		for _, r := range results {
			if (r.Server == a || r.Server == b) && r.Case == cs && r.Err != nil {
				g.Why = r.Server + ": " + oneLine(r.Err)
			}
		}
		return g
	}
	ratio := ra.RPS / rb.RPS
	figure := fmt.Sprintf("%.2f×", ratio)
	if asPercent {
		figure = fmt.Sprintf("%.0f%%", 100*ratio)
	}
	g.Measured = fmt.Sprintf("%s (%s vs %s req/s)", figure, thousands(ra.RPS), thousands(rb.RPS))
	g.Hit = ratio >= min
	return g
}

// CPUGoal compares the server CPU time per request of a and b under the same case: a's
// capacity as a share of b's, b/a >= min.
func CPUGoal(name string, results []Result, a, b, cs string, min float64) Goal {
	g := Goal{Name: name}
	ra, okA := Find(results, a, cs)
	rb, okB := Find(results, b, cs)
	if !okA || !okB || ra.CPUPerRequest == 0 || rb.CPUPerRequest == 0 {
		g.Why = "no CPU time of " + a + " and " + b + " under " + cs
		return g
	}
	ratio := float64(rb.CPUPerRequest) / float64(ra.CPUPerRequest)
	g.Measured = fmt.Sprintf("%.0f%% (%.1f vs %.1f µs of server CPU per request)", 100*ratio,
		float64(ra.CPUPerRequest)/1e3, float64(rb.CPUPerRequest)/1e3)
	g.Hit = ratio >= min
	return g
}

// ReadyGoal is the slowest start of the server's processes against limit.
func ReadyGoal(name string, results []Result, server string, limit time.Duration) Goal {
	g := Goal{Name: name}
	var worst time.Duration
	n := 0
	for _, r := range results {
		if r.Server == server && r.Ready > 0 {
			worst = max(worst, r.Ready)
			n++
		}
	}
	if n == 0 {
		g.Why = "the server did not start"
		return g
	}
	g.Measured = fmt.Sprintf("slowest of %d starts %s", n, ms(worst))
	g.Hit = worst <= limit
	return g
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strings.ReplaceAll(s, "|", "/")
}

func ms(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	}
}

// cores writes the cores a process kept busy on average.
func cores(c float64) string {
	if c == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", c)
}

func mib(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// thousands formats a rate with thousands separators: 12,345.
func thousands(f float64) string {
	s := fmt.Sprintf("%.0f", f)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// The servers of the comparison, by name.
const (
	Validated      = "petstore"
	NoValidation   = "petstore --no-validation"
	BaselineServer = "baseline net/http"
)

// Comparison is a run at one number of server cores: each server under each case.
type Comparison struct {
	Cores     int
	Placement Placement
	Results   []Result
}

// WriteComparison writes two tables with a row per number of server cores and case: the
// throughput of the validated server, of --no-validation and of the baseline side by side,
// with the ratios validated / --no-validation and validated / baseline; then the server's
// CPU time per request, with the same ratios taken the other way (the validated server's
// capacity as a share of the other's). The first is what a client sees; where the load
// generator is the limit it says little about the server, and the second does. A note per
// number of cores says where the server and the load generator ran.
func WriteComparison(w io.Writer, runs []Comparison, cases []Case) {
	servers := []string{Validated, NoValidation, BaselineServer}
	table := func(head string, value func(Result) float64, format func(float64) string, ratio func(v, ref float64) float64) {
		fmt.Fprintf(w, "| server cores | case | %s validated | --no-validation | baseline | validated / --no-validation | validated / baseline |\n", head)
		fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|")
		for _, run := range runs {
			for _, c := range cases {
				cells := []string{strconv.Itoa(run.Cores), c.Name}
				got := map[string]float64{}
				for _, srv := range servers {
					r, ok := Find(run.Results, srv, c.Name)
					if !ok || value(r) == 0 {
						cells = append(cells, "not measured")
						continue
					}
					got[srv] = value(r)
					cell := format(value(r))
					if r.Errors > 0 {
						cell += fmt.Sprintf(" (%d errors)", r.Errors)
					}
					cells = append(cells, cell)
				}
				for _, ref := range servers[1:] {
					if got[Validated] > 0 && got[ref] > 0 {
						cells = append(cells, fmt.Sprintf("%.0f%%", 100*ratio(got[Validated], got[ref])))
					} else {
						cells = append(cells, "-")
					}
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			}
		}
		fmt.Fprintln(w)
	}
	table("req/s:", func(r Result) float64 { return r.RPS }, thousands, func(v, ref float64) float64 { return v / ref })
	table("server CPU µs per request:", func(r Result) float64 { return float64(r.CPUPerRequest) / 1e3 },
		func(f float64) string { return fmt.Sprintf("%.1f", f) }, func(v, ref float64) float64 { return ref / v })
	for _, run := range runs {
		fmt.Fprintf(w, "- %s: %s.\n", ServerCores(run.Cores), run.Placement)
	}
}

// ServerCores says "1 server core", "2 server cores".
func ServerCores(n int) string { return words.Plural(n, "server core") }

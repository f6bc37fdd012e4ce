package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	yaml "github.com/oasdiff/yaml3"
	"github.com/petstore/petstore/conformance/report"
)

// ReadWaivers reads a waivers file (see Waiver).
func ReadWaivers(path string) ([]Waiver, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("conformance: waivers: %w", err)
	}
	ws, err := ParseWaivers(data)
	if err != nil {
		return nil, fmt.Errorf("conformance: waivers %s: %w", path, err)
	}
	return ws, nil
}

// ParseWaivers parses a YAML list of waivers; every entry needs rule, reason and an expiry
// date, and a rule may be waived once.
func ParseWaivers(data []byte) ([]Waiver, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// Dates stay strings, so that 2026-06-30 and "2026-06-30" read alike.
	dec.DisableTimestamps(true)
	var ws []Waiver
	if err := dec.Decode(&ws); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("want a YAML list of {rule, reason, expires}: %s", oneLineErr(err))
	}
	seen := map[string]bool{}
	for i, w := range ws {
		where := fmt.Sprintf("entry %d", i+1)
		if w.Rule != "" {
			where += " (" + w.Rule + ")"
		}
		switch {
		case w.Rule == "":
			return nil, fmt.Errorf("%s: rule is missing", where)
		case strings.TrimSpace(w.Reason) == "":
			return nil, fmt.Errorf("%s: reason is missing (say why the failure is accepted)", where)
		case seen[w.Rule]:
			return nil, fmt.Errorf("%s: the rule is waived twice", where)
		}
		if _, err := time.Parse(time.DateOnly, w.Expires); err != nil {
			return nil, fmt.Errorf("%s: expires %q: want a date YYYY-MM-DD", where, w.Expires)
		}
		seen[w.Rule] = true
	}
	return ws, nil
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// checkWaivers refuses a waiver that names no rule of the catalogue: a typo would otherwise
// leave the failure it meant to accept failing, or a renamed rule silently unwaived.
func checkWaivers(all []Rule, ws []Waiver) error {
	ids := make(map[string]bool, len(all))
	for _, r := range all {
		ids[r.ID] = true
	}
	for _, w := range ws {
		if !ids[w.Rule] {
			return fmt.Errorf("conformance: waiver for unknown rule %q (conformance list shows the IDs)", w.Rule)
		}
	}
	return nil
}

// waiverClock is the instant waivers are judged at: the run's clock, but never before the
// wall clock, so that --now in the past cannot revive an expired waiver.
func waiverClock(opts Options, wall time.Time) time.Time {
	if wall.After(opts.Now) {
		return wall
	}
	return opts.Now
}

// waive turns a failure or warning into Waived when a waiver in force at now names the rule.
func waive(res *Result, opts Options, now time.Time) {
	if res.Status != Fail && res.Status != Warn {
		return
	}
	for _, w := range opts.Waivers {
		if w.Rule == res.ID && !w.Expired(now) {
			res.Status, res.Waiver = Waived, &w
			return
		}
	}
}

// applyGates records what fails the run besides its rules (expired waivers and a coverage
// shortfall) and the waivers in force whose rule passed, which are no longer needed.
func applyGates(rep *Report, opts Options, now time.Time) {
	rep.MinCoverage = opts.MinCoverage
	for _, w := range opts.Waivers {
		if w.Expired(now) {
			rep.GateFailures = append(rep.GateFailures, GateFailure{Gate: "waiver/" + w.Rule,
				Message: fmt.Sprintf("the waiver for %s expired on %s (reason: %s): fix the rule's failure or renew the waiver",
					w.Rule, w.Expires, w.Reason)})
		}
	}
	for _, w := range opts.Waivers {
		if res, ok := rep.Result(w.Rule); ok && res.Status == Pass && !w.Expired(now) {
			rep.UnneededWaivers = append(rep.UnneededWaivers, w)
		}
	}
	if g := report.CoverageGate(rep.Coverage, opts.MinCoverage); g != nil {
		rep.GateFailures = append(rep.GateFailures, *g)
	}
}

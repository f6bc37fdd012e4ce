package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/bench/latency/measure"
	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/cli"
)

// fake answers each delay with the report that reports gives it, and records the calls.
type fake struct {
	calls   []time.Duration
	opts    []conformance.Options
	reports map[time.Duration]*conformance.Report
}

func (f *fake) measure(_ context.Context, delay time.Duration, opts conformance.Options) (measure.Row, error) {
	f.calls = append(f.calls, delay)
	f.opts = append(f.opts, opts)
	rep := f.reports[delay]
	if rep == nil {
		rep = report(conformance.Pass, conformance.Pass)
	}
	return measure.Row{Delay: delay, Wall: 10*time.Millisecond + 40*delay, Requests: 357, MaxInFlight: 1, Report: rep}, nil
}

// report is a run of two rules, a and b, with these outcomes.
func report(a, b conformance.Status) *conformance.Report {
	rep := &conformance.Report{Verdict: conformance.Conforming,
		Results: []conformance.Result{{ID: "r/a", Status: a}, {ID: "r/b", Status: b}}}
	for _, r := range rep.Results {
		if r.Status == conformance.Fail {
			rep.Counts.Fail++
			rep.Verdict = conformance.NotConforming
		}
	}
	return rep
}

func TestDefaultRows(t *testing.T) {
	f := &fake{}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), nil, &out, &out, f.measure))
	assert.Equal(t, []time.Duration{0, 25 * time.Millisecond, 100 * time.Millisecond}, f.calls)
	for _, o := range f.opts {
		assert.Equal(t, conformance.Options{Seed: 1}, o, "the default run, generated cases included, one seed for every row")
	}
	assert.Contains(t, out.String(), fmt.Sprintf("%d workers", conformance.DefaultWorkers))
	assert.Contains(t, out.String(), `| delay each way | wall time | requests | most in flight | verdict |
|---:|---:|---:|---:|---|
| 0 ms | 0.01 s | 357 | 1 | conforming |
| 25 ms | 1.01 s | 357 | 1 | conforming |
| 100 ms | 4.01 s | 357 | 1 | conforming |
`)
}

func TestFlags(t *testing.T) {
	f := &fake{}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-delays", "0.5ms", "-seed", "7", "-fuzz", "20"}, &out, &out, f.measure))
	assert.Equal(t, []time.Duration{500 * time.Microsecond}, f.calls)
	assert.Equal(t, []conformance.Options{{Seed: 7, Fuzz: 20}}, f.opts)
	assert.Contains(t, out.String(), "| 0.5 ms |")
}

func TestVerdictChanges(t *testing.T) {
	f := &fake{reports: map[time.Duration]*conformance.Report{100 * time.Millisecond: report(conformance.Pass, conformance.Fail)}}
	var out bytes.Buffer
	err := run(context.Background(), []string{"-delays", "0,100ms"}, &out, &out, f.measure)
	require.Error(t, err)
	assert.Equal(t, cli.ExitFail, cli.Code(err))
	assert.Contains(t, err.Error(), "at 100 ms each way the reference is not conforming")
	assert.Contains(t, err.Error(), "r/b pass→fail")
	assert.Contains(t, out.String(), "| 100 ms | 4.01 s | 357 | 1 | not conforming |", "the row is printed all the same")
}

func TestChangesListsMissingRules(t *testing.T) {
	a := report(conformance.Pass, conformance.Pass)
	b := &conformance.Report{Results: []conformance.Result{{ID: "r/b", Status: conformance.Pass}, {ID: "r/c", Status: conformance.Skip}}}
	assert.Equal(t, []string{"r/a pass→(not run)", "r/c (not run)→skip"}, changes(a, b))
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-delays", "25"}, {"-delays", "-1ms"}, {"-fuzz", "-1"}, {"extra"}, {"-nope"},
		{"-workers", "-1"},
	} {
		f := &fake{}
		var out bytes.Buffer
		err := run(context.Background(), args, &out, &out, f.measure)
		assert.Equal(t, cli.ExitUnable, cli.Code(err), "%q: %v", args, err)
		assert.Empty(t, f.calls, "%q", args)
	}
}

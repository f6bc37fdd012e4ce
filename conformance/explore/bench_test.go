package explore

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkExplore is an exploration of 4,000 steps by 8 workers against the reference on a
// loopback port, in this process as `conformance explore` runs it: req/s, and the CPU time of
// the process per request (the reference's share included), which a busy machine changes
// less. Each run creates at most 100 animals in the same store: as in a run of the command,
// where the budget of creates is spent early, most steps are listings and reads. make
// bench-explore compares the command itself with an earlier commit's.
func BenchmarkExplore(b *testing.B) {
	tg := serve(b, nil)
	b.ReportAllocs()
	var requests int64
	var seconds float64
	seed := uint64(1)
	cpu0 := cpuTime()
	for b.Loop() {
		cfg := config(tg, seed, 8, 4000)
		cfg.MaxCreates = 100
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Findings) > 0 {
			b.Fatalf("seed %d: a finding against the reference: %s", seed, rep.Findings[0].Violation.Message)
		}
		requests += rep.Requests
		seconds += rep.Seconds
		seed++
	}
	b.ReportMetric(float64(requests)/seconds, "req/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(requests), "cpu-µs/req")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

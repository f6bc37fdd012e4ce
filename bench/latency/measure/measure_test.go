package measure_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/bench/latency/measure"
	"github.com/petstore/petstore/conformance"
)

// A fixed clock and seed: the two runs of the test send the same requests. The key's
// combinations (hundreds of requests per operation, each alike for the proxy) are left to the
// benchmark, which runs the default catalogue whole: the tests' four runs under the race
// detector stay quick, and every other rule and family still runs side by side.
var opts = conformance.Options{Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Seed: 14, Skip: []string{"*/cases-auth"}}

// outcome is what a rule's result says about the target, without the addresses and times
// that differ from one run to another.
type outcome struct {
	ID                  string
	Status              conformance.Status
	Cases, CasesSkipped int
	Reason              string
	Failures            int
}

func outcomes(rep *conformance.Report) []outcome {
	out := make([]outcome, len(rep.Results))
	for i, r := range rep.Results {
		out[i] = outcome{r.ID, r.Status, r.Cases, r.CasesSkipped, r.Reason, len(r.Failures)}
	}
	return out
}

// TestSameThroughTheProxy: the catalogue, generated cases included, judges the
// reference the same through the proxy as straight, and the proxy sees every request the
// run counts.
func TestSameThroughTheProxy(t *testing.T) {
	ctx := context.Background()
	direct, err := measure.Start(0, opts)
	require.NoError(t, err)
	defer direct.Close()
	want, err := conformance.Run(ctx, direct.Direct, opts)
	require.NoError(t, err)
	require.True(t, want.Conforming(), "the reference conforms")

	row, err := measure.Run(ctx, 0, opts)
	require.NoError(t, err)
	assert.Equal(t, want.Verdict, row.Report.Verdict)
	assert.Equal(t, outcomes(want), outcomes(row.Report))
	assert.Equal(t, want.Counts, row.Report.Counts)
	assert.Equal(t, want.Requests, row.Report.Requests)
	// The proxy counts the requests its handler forwards; those its HTTP layer (net/http's)
	// refuses before any handler it never sees: the listing's anatomy cases without Host, with
	// two, with two Content-Lengths, with Transfer-Encoding: gzip, with %zz in the path and
	// with Expect: conformance, each with the key and without.
	const refusedBeforeTheProxy = 12
	assert.EqualValues(t, row.Report.Requests-refusedBeforeTheProxy, row.Requests, "requests the run counted, and the proxy")
	assert.GreaterOrEqual(t, row.MaxInFlight, int64(1))
	assert.LessOrEqual(t, row.MaxInFlight, int64(conformance.DefaultWorkers), "never more requests in flight than workers")
	assert.Zero(t, direct.Proxy.Stats().Requests, "the direct run bypassed its proxy")
}

// --workers bounds the requests in flight, whatever the rules and cases running side by
// side: through the proxy, the most in flight at once is at most the workers asked for.
func TestWorkersBoundRequestsInFlight(t *testing.T) {
	for _, workers := range []int{1, 3} {
		o := opts
		o.Workers = workers
		row, err := measure.Run(context.Background(), 0, o)
		require.NoError(t, err)
		assert.True(t, row.Report.Conforming())
		assert.LessOrEqual(t, row.MaxInFlight, int64(workers), "workers %d", workers)
	}
}

// BenchmarkRunThroughDelay is the default catalogue (generated cases included) against a
// fresh reference through the proxy; starting the servers is not timed. By default only
// 0 ms each way, so that make bench stays quick; LATENCY_DELAYS=0,25ms,100ms adds others
// (each run at 25 ms takes seconds). It reports the requests per run and the most in
// flight, and fails if the verdict is not conforming.
func BenchmarkRunThroughDelay(b *testing.B) {
	delays := []time.Duration{0}
	if env := os.Getenv("LATENCY_DELAYS"); env != "" {
		var err error
		if delays, err = measure.ParseDelays(env); err != nil {
			b.Fatalf("LATENCY_DELAYS: %v", err)
		}
	}
	for _, delay := range delays {
		b.Run("delay="+delay.String(), func(b *testing.B) {
			opts := opts
			opts.Skip = nil // the default catalogue, whole
			var requests, most int64
			for b.Loop() {
				b.StopTimer()
				s, err := measure.Start(delay, opts)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rep, err := conformance.Run(context.Background(), s.Target, opts)
				b.StopTimer()
				st := s.Proxy.Stats()
				s.Close()
				if err != nil {
					b.Fatal(err)
				}
				if !rep.Conforming() {
					b.Fatalf("verdict %q", rep.Verdict)
				}
				requests, most = st.Requests, max(most, st.MaxInFlight)
				b.StartTimer()
			}
			b.ReportMetric(float64(requests), "requests/op")
			b.ReportMetric(float64(most), "max-in-flight")
		})
	}
}

func TestParseDelays(t *testing.T) {
	got, err := measure.ParseDelays("0, 25ms,100ms,1s")
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{0, 25 * time.Millisecond, 100 * time.Millisecond, time.Second}, got)
	for _, bad := range []string{"", "25", "-1ms", "0,,1ms", "x"} {
		_, err := measure.ParseDelays(bad)
		assert.Error(t, err, "%q", bad)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "delays"), err.Error())
		}
	}
}

package load

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var canned = Canned{Bodies: map[string][]byte{
	Cases[0].Name: []byte(`[{"id":1,"name":"Rex","categoryId":1}]` + "\n"),
	Cases[1].Name: []byte(`[]` + "\n"),
	Cases[2].Name: []byte(`{"id":2,"name":"Rex","categoryId":1,"status":"sold"}` + "\n"),
}, Location: "/v1/pets/2"}

// The baseline answers each case with its canned status, bytes and Location.
func TestBaselineAnswersTheCannedBytes(t *testing.T) {
	srv := httptest.NewServer(Baseline(canned, Cases, "/v1"))
	defer srv.Close()
	got, err := Capture(context.Background(), srv.URL+"/v1", "k", Cases)
	require.NoError(t, err)
	assert.Equal(t, canned, got)

	resp, err := http.Get(srv.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// Capture refuses a server that answers a case with another status than the case wants.
func TestCaptureRefusesWrongStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, err := Capture(context.Background(), srv.URL+"/v1", "k", Cases)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "status 401, want 200")
}

// Attack counts requests and, as errors, answers with an unexpected status.
func TestAttackCountsRequestsAndErrors(t *testing.T) {
	srv := httptest.NewServer(Baseline(canned, Cases, "/v1"))
	defer srv.Close()
	o := Options{Connections: 2, APIKey: "k"}
	r := Attack(context.Background(), srv.URL+"/v1", Cases[2], o, 100*time.Millisecond)
	require.NoError(t, r.Err)
	assert.Positive(t, r.Requests)
	assert.Zero(t, r.Errors)
	assert.Positive(t, r.RPS)

	wrong := Cases[2]
	wrong.Want = http.StatusOK
	r = Attack(context.Background(), srv.URL+"/v1", wrong, o, 50*time.Millisecond)
	assert.Equal(t, r.Requests, r.Errors)
	require.Error(t, r.Err)
	assert.Contains(t, r.Err.Error(), "201")
}

// The fill pacer sends exactly the animals asked for, each a valid NewPet body.
func TestCountPacerCreatesExactly(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b)) // one connection: no concurrent appends
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	r := attack(context.Background(), "fill", http.StatusCreated, Options{Connections: 1, APIKey: "k"}, 0,
		countPacer(9), creates(srv.URL, "k", 100))
	require.NoError(t, r.Err)
	assert.EqualValues(t, 9, r.Requests)
	require.Len(t, bodies, 9)
	assert.Contains(t, bodies, `{"name":"pet101","categoryId":3,"status":"pending"}`)
	assert.Contains(t, bodies, `{"name":"pet103","categoryId":5}`)
}

func TestProcessCPU(t *testing.T) {
	d, err := parseStat("1234 (petstore serve) R 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 7 0")
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, d, "utime 250 + stime 50 ticks")
	_, err = parseStat("1234 (x) R 1")
	assert.Error(t, err)
	_, err = ProcessCPU(os.Getpid())
	assert.NoError(t, err)
	assert.Positive(t, selfCPU())
}

func TestParseStatus(t *testing.T) {
	m, err := parseStatus(strings.NewReader("Name:\tpetstore\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t7\n"))
	require.NoError(t, err)
	assert.Equal(t, Memory{RSS: 10 << 20, Peak: 20 << 20}, m)
	_, err = parseStatus(strings.NewReader("Name:\tx\n"))
	assert.Error(t, err)
	_, err = parseStatus(strings.NewReader("VmRSS:\t12 MB\nVmHWM:\t1 kB\n"))
	assert.Error(t, err)

	mine, err := ReadMemory(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, mine.RSS)
	assert.GreaterOrEqual(t, mine.Peak, mine.RSS)
}

// A process that exits before it answers is reported with its output.
func TestStartReportsEarlyExit(t *testing.T) {
	_, err := Start(context.Background(), []string{"sh", "-c", "echo no such flag; exit 2"}, "/healthz", 5*time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before it was ready: no such flag")
}

func TestTableAndGoals(t *testing.T) {
	results := []Result{
		{Server: "a", Case: "GET", RPS: 9000, P50: 400 * time.Microsecond, P99: 12 * time.Millisecond, Max: 40 * time.Millisecond, PeakRSS: 15 << 20, Ready: 20 * time.Millisecond,
			ServerCPU: 0.994, GeneratorCPU: 0.5},
		{Server: "b", Case: "GET", RPS: 10000, Errors: 3},
		{Server: "c", Case: "GET", Err: errors.New("prism exited | badly")},
	}
	var b bytes.Buffer
	WriteTable(&b, results, "a")
	assert.Contains(t, b.String(), "| GET | a | 9,000 | 1.00× | 0.40 ms | 12 ms | 40 ms | 0 | 15.0 MiB | 0.99 | 0.50 |")
	assert.Contains(t, b.String(), "| GET | b | 10,000 | 1.11× |")
	assert.Contains(t, b.String(), "| GET | c | not measured: prism exited / badly |")

	b.Reset()
	WriteTable(&b, results[:1], "")
	assert.Equal(t, "| case | server | req/s | p50 | p99 | max | errors | peak RSS | server CPU | generator CPU |\n"+
		"|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"+
		"| GET | a | 9,000 | 0.40 ms | 12 ms | 40 ms | 0 | 15.0 MiB | 0.99 | 0.50 |\n", b.String())

	b.Reset()
	WriteGoals(&b, []Goal{
		RatioGoal("a >= 70% of b", results, "a", "b", "GET", 0.7, true),
		RatioGoal("a >= 10× c", results, "a", "c", "GET", 10, false),
		RatioGoal("a >= 95% of b", results, "a", "b", "GET", 0.95, true),
		ReadyGoal("ready", results, "a", 150*time.Millisecond),
		CPUGoal("a >= 85% of b", []Result{{Server: "a", Case: "GET", RPS: 1, CPUPerRequest: 50 * time.Microsecond},
			{Server: "b", Case: "GET", RPS: 1, CPUPerRequest: 45 * time.Microsecond}}, "a", "b", "GET", 0.85),
		CPUGoal("a >= 85% of c", results, "a", "c", "GET", 0.85),
	})
	assert.Equal(t, "- hit: a >= 70% of b: 90% (9,000 vs 10,000 req/s)\n"+
		"- not measured: a >= 10× c (c: prism exited / badly)\n"+
		"- MISSED: a >= 95% of b: 90% (9,000 vs 10,000 req/s)\n"+
		"- hit: ready: slowest of 1 starts 20 ms\n"+
		"- hit: a >= 85% of b: 90% (50.0 vs 45.0 µs of server CPU per request)\n"+
		"- not measured: a >= 85% of c (no CPU time of a and c under GET)\n", b.String())
}

// Package load measures servers of the pet store interface under load over loopback: the
// reference server with and without validation, a baseline handler that only writes the
// same bytes (the machine's limit), and peers such as Stoplight Prism. The load generator
// is vegeta, used as a library, at a fixed concurrency for a fixed duration.
package load

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Case is one kind of request of the load.
type Case struct {
	Name         string
	Method, Path string // Path is below the base path (Server.Base)
	Body         []byte
	Want         int // the status a correct server answers with
}

// Cases are the requests of issue 6: the default list, a filtered list of 100, a create.
var Cases = []Case{
	{Name: "GET /v1/pets", Method: "GET", Path: "/pets", Want: http.StatusOK},
	{Name: "GET /v1/pets?status=sold&limit=100", Method: "GET", Path: "/pets?status=sold&limit=100", Want: http.StatusOK},
	{Name: "POST /v1/pets", Method: "POST", Path: "/pets", Body: []byte(`{"name":"Rex","categoryId":1,"status":"sold"}`), Want: http.StatusCreated},
}

func (c Case) header(apiKey string) http.Header {
	h := http.Header{"Authorization": {"Bearer " + apiKey}}
	if c.Body != nil {
		h.Set("Content-Type", "application/json")
	}
	return h
}

func (c Case) do(ctx context.Context, client *http.Client, base, apiKey string) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, c.Method, base+c.Path, bytes.NewReader(c.Body))
	if err != nil {
		return nil, err
	}
	r.Header = c.header(apiKey)
	resp, err := client.Do(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return resp, nil
}

// Server is one configuration under load, started afresh for each case.
type Server struct {
	Name      string
	Argv      []string // "{port}" is replaced by a free loopback port
	ReadyPath string   // a path that answers once the server is up
	Base      string   // the base path of the operations: "/v1", or "" for a mock that ignores it
}

// Options set the load.
type Options struct {
	Connections int           // concurrent connections, each with one request in flight
	Duration    time.Duration // measured, per case
	Warmup      time.Duration // before each measurement, not counted
	APIKey      string
	StartWithin time.Duration // how long a server may take to answer its ReadyPath
}

// Result is one server under one case.
type Result struct {
	Server, Case  string
	Requests      uint64
	RPS           float64
	P50, P99, Max time.Duration
	Errors        uint64        // transport errors and answers with another status than Case.Want
	PeakRSS       int64         // VmHWM of the server process after the case
	Ready         time.Duration // from process start until ReadyPath answered
	Err           error         // the case could not be measured
	// ServerCPU and GeneratorCPU are the cores each kept busy on average while measured
	// (CPU time over wall time): a generator as busy as its cores are many is the limit of
	// the run, not the server. 0: not known.
	ServerCPU, GeneratorCPU float64
}

// Measure runs every case against a fresh process of srv.
func Measure(ctx context.Context, srv Server, cases []Case, o Options) []Result {
	var out []Result
	for _, c := range cases {
		res := Result{Server: srv.Name, Case: c.Name}
		p, err := Start(ctx, srv.Argv, srv.ReadyPath, o.StartWithin)
		if err != nil {
			res.Err = err
			out = append(out, res)
			continue
		}
		res.Ready = p.Ready
		if o.Warmup > 0 {
			Attack(ctx, p.URL+srv.Base, c, o, o.Warmup)
		}
		before, _ := ProcessCPU(p.PID())
		start := time.Now()
		m := Attack(ctx, p.URL+srv.Base, c, o, o.Duration)
		if after, err := ProcessCPU(p.PID()); err == nil && before > 0 {
			m.ServerCPU = (after - before).Seconds() / time.Since(start).Seconds()
		}
		m.Server, m.Ready = srv.Name, p.Ready
		if mem, err := ReadMemory(p.PID()); err != nil {
			m.Err = err
		} else {
			m.PeakRSS = mem.Peak
		}
		p.Stop()
		out = append(out, m)
	}
	return out
}

// Attack loads base (the URL up to the base path) with the case for d at o.Connections requests in flight.
func Attack(ctx context.Context, base string, c Case, o Options, d time.Duration) Result {
	return attack(ctx, c.Name, c.Want, o, d, vegeta.ConstantPacer{}, vegeta.NewStaticTargeter(vegeta.Target{
		Method: c.Method, URL: base + c.Path, Body: c.Body, Header: c.header(o.APIKey),
	}))
}

// attack runs vegeta at an unbounded rate (ConstantPacer{} paces nothing) with a fixed pool
// of workers and connections, so that the concurrency is o.Connections.
func attack(ctx context.Context, name string, want int, o Options, d time.Duration,
	pacer vegeta.Pacer, tr vegeta.Targeter) Result {
	n := o.Connections
	atk := vegeta.NewAttacker(
		vegeta.Workers(uint64(n)), vegeta.MaxWorkers(uint64(n)),
		vegeta.Connections(n), vegeta.MaxConnections(n),
		vegeta.KeepAlive(true), vegeta.Timeout(10*time.Second),
		vegeta.MaxBody(0), // the body is read and dropped; the status is what is checked
	)
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	cpu0, start := selfCPU(), time.Now()
	var m vegeta.Metrics
	var errs uint64
	var sample atomic.Value
	for r := range atk.Attack(tr, pacer, d, name) {
		if int(r.Code) != want || r.Error != "" {
			errs++
			if sample.Load() == nil {
				sample.Store(fmt.Sprintf("%d %s", r.Code, strings.TrimSpace(r.Error)))
			}
		}
		m.Add(r)
	}
	m.Close()
	res := Result{Case: name, Requests: m.Requests, P50: m.Latencies.P50, P99: m.Latencies.P99,
		Max: m.Latencies.Max, Errors: errs, GeneratorCPU: (selfCPU() - cpu0).Seconds() / time.Since(start).Seconds()}
	if wall := m.Duration + m.Wait; wall > 0 {
		res.RPS = float64(m.Requests) / wall.Seconds()
	}
	if errs > 0 && errs == m.Requests {
		res.Err = fmt.Errorf("every request failed, e.g. %v", sample.Load())
	}
	return res
}

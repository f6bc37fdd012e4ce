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
	Duration    time.Duration // measured, per case (and server)
	Slice       time.Duration // Interleave's turn: each server is loaded this long, then the next
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
	// CPUPerRequest is the server's CPU time per request answered: where the generator, not
	// the server, is the limit, the figure that compares servers. 0: not known.
	CPUPerRequest time.Duration
}

// Interleave measures servers side by side under c: a fresh process of each, warmed up,
// then o.Duration of load on each in slices of o.Slice, the servers taking turns (each round
// of slices starts with the next server), so that a change in what else the machine runs
// touches them all alike. A server that does not start gets a Result with Err.
func Interleave(ctx context.Context, servers []Server, c Case, o Options) []Result {
	type running struct {
		srv Server
		p   *Proc
		t   tally
		err error
	}
	rs := make([]*running, len(servers))
	for i, srv := range servers {
		r := &running{srv: srv}
		rs[i] = r
		if r.p, r.err = Start(ctx, srv.Argv, srv.ReadyPath, o.StartWithin); r.err != nil {
			continue
		}
		defer r.p.Stop()
		if o.Warmup > 0 {
			Attack(ctx, r.p.URL+srv.Base, c, o, o.Warmup)
		}
	}
	slice := o.Slice
	if slice <= 0 || slice > o.Duration {
		slice = o.Duration
	}
	for k := time.Duration(0); k < o.Duration && ctx.Err() == nil; k += slice {
		for j := range rs {
			r := rs[(int(k/slice)+j)%len(rs)]
			if r.p == nil {
				continue
			}
			before, err := ProcessCPU(r.p.PID())
			r.t.run(ctx, c.Name, c.Want, o, slice, vegeta.ConstantPacer{}, c.targeter(r.p.URL+r.srv.Base, o.APIKey))
			if after, err2 := ProcessCPU(r.p.PID()); err == nil && err2 == nil {
				r.t.serverCPU += after - before
			}
		}
	}
	out := make([]Result, len(rs))
	for i, r := range rs {
		if r.p == nil {
			out[i] = Result{Server: r.srv.Name, Case: c.Name, Err: r.err}
			continue
		}
		res := r.t.result(c.Name)
		res.Server, res.Ready = r.srv.Name, r.p.Ready
		if mem, err := ReadMemory(r.p.PID()); err != nil {
			res.Err = err
		} else {
			res.PeakRSS = mem.Peak
		}
		out[i] = res
	}
	return out
}

// Attack loads base (the URL up to the base path) with the case for d at o.Connections requests in flight.
func Attack(ctx context.Context, base string, c Case, o Options, d time.Duration) Result {
	return attack(ctx, c.Name, c.Want, o, d, vegeta.ConstantPacer{}, c.targeter(base, o.APIKey))
}

func (c Case) targeter(base, apiKey string) vegeta.Targeter {
	return vegeta.NewStaticTargeter(vegeta.Target{Method: c.Method, URL: base + c.Path, Body: c.Body, Header: c.header(apiKey)})
}

// attack runs vegeta at an unbounded rate (ConstantPacer{} paces nothing) with a fixed pool
// of workers and connections, so that the concurrency is o.Connections.
func attack(ctx context.Context, name string, want int, o Options, d time.Duration,
	pacer vegeta.Pacer, tr vegeta.Targeter) Result {
	var t tally
	t.run(ctx, name, want, o, d, pacer, tr)
	return t.result(name)
}

// tally adds up the slices of one measurement.
type tally struct {
	all          vegeta.Metrics // every result, for the latencies
	requests     uint64
	errs         uint64
	sample       string        // one failure, as an example
	wall         time.Duration // measured time: each slice from its first request to its last answer
	elapsed      time.Duration // each slice's time from its start to its end, for the CPU figures
	generatorCPU time.Duration
	serverCPU    time.Duration // added by the caller, which knows the server
}

// run adds one slice of d (0: until the pacer stops).
func (t *tally) run(ctx context.Context, name string, want int, o Options, d time.Duration,
	pacer vegeta.Pacer, tr vegeta.Targeter) {
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
	for r := range atk.Attack(tr, pacer, d, name) {
		if int(r.Code) != want || r.Error != "" {
			t.errs++
			if t.sample == "" {
				t.sample = fmt.Sprintf("%d %s", r.Code, strings.TrimSpace(r.Error))
			}
		}
		m.Add(r)
		t.all.Add(r)
	}
	m.Close()
	t.requests += m.Requests
	t.wall += m.Duration + m.Wait
	t.elapsed += time.Since(start)
	t.generatorCPU += selfCPU() - cpu0
}

func (t *tally) result(name string) Result {
	t.all.Close()
	res := Result{Case: name, Requests: t.requests, P50: t.all.Latencies.P50, P99: t.all.Latencies.P99,
		Max: t.all.Latencies.Max, Errors: t.errs}
	if t.wall > 0 {
		res.RPS = float64(t.requests) / t.wall.Seconds()
	}
	if t.elapsed > 0 {
		res.GeneratorCPU = t.generatorCPU.Seconds() / t.elapsed.Seconds()
		res.ServerCPU = t.serverCPU.Seconds() / t.elapsed.Seconds()
	}
	if t.requests > 0 {
		res.CPUPerRequest = t.serverCPU / time.Duration(t.requests)
	}
	if t.errs > 0 && t.errs == t.requests {
		res.Err = fmt.Errorf("every request failed, e.g. %v", t.sample)
	}
	return res
}

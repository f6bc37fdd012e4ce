package load

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// ListCases are the lists whose latency must not grow with the store: limit=20, with and
// without a status filter.
var ListCases = []Case{
	{Name: "GET /v1/pets?limit=20", Method: "GET", Path: "/pets?limit=20", Want: http.StatusOK},
	{Name: "GET /v1/pets?status=sold&limit=20", Method: "GET", Path: "/pets?status=sold&limit=20", Want: http.StatusOK},
}

// MemoryResult is what the memory mode measured on one server process.
type MemoryResult struct {
	From, To      int    // animals at the two measurements
	Before, After Memory // of the server process, at From and at To animals
	Fill          Result // the creates from From to To
	At100, AtTo   []Result
}

// PerAnimal is the growth of the resident set per animal added.
func (m MemoryResult) PerAnimal() float64 {
	return float64(m.After.RSS-m.Before.RSS) / float64(m.To-m.From)
}

// MeasureMemory starts srv (empty), creates 100 animals through the API and measures the
// lists (which also warms every connection up), reads the process's memory, creates
// animals up to total through the API, reads the memory again and measures the lists
// again. The animals are created as clients create them, with POST /v1/pets at
// o.Connections in flight, so the figure includes the garbage collector's headroom.
func MeasureMemory(ctx context.Context, srv Server, total int, o Options, progress func(string)) (MemoryResult, error) {
	res := MemoryResult{From: 100, To: total}
	if total <= res.From {
		return res, fmt.Errorf("memory mode: want more than %d animals, got %d", res.From, total)
	}
	p, err := Start(ctx, srv.Argv, srv.ReadyPath, o.StartWithin)
	if err != nil {
		return res, err
	}
	defer p.Stop()
	fill := func(from, to int) (Result, error) {
		r := attack(ctx, "fill", http.StatusCreated, o, 0, countPacer(to-from), creates(p.URL+srv.Base, o.APIKey, from))
		if r.Err == nil && r.Errors > 0 {
			r.Err = fmt.Errorf("%d of %d creates failed", r.Errors, r.Requests)
		}
		return r, r.Err
	}
	lists := func() ([]Result, error) {
		var out []Result
		for _, c := range ListCases {
			r := Attack(ctx, p.URL+srv.Base, c, o, o.Duration)
			if r.Err != nil {
				return out, fmt.Errorf("%s: %w", c.Name, r.Err)
			}
			out = append(out, r)
		}
		return out, nil
	}
	if _, err := fill(0, res.From); err != nil {
		return res, err
	}
	if res.At100, err = lists(); err != nil {
		return res, err
	}
	if res.Before, err = ReadMemory(p.PID()); err != nil {
		return res, err
	}
	progress(fmt.Sprintf("creating %d animals through POST /v1/pets...", total-res.From))
	if res.Fill, err = fill(res.From, total); err != nil {
		return res, err
	}
	if res.After, err = ReadMemory(p.PID()); err != nil {
		return res, err
	}
	res.AtTo, err = lists()
	return res, err
}

// countPacer sends n requests as fast as the workers allow, then stops.
type countPacer uint64

func (n countPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	return 0, hits >= uint64(n)
}

func (n countPacer) Rate(time.Duration) float64 { return 0 }

// creates is a targeter of POST /v1/pets whose animals look like a real catalogue: names
// pet1 .. petN, seven categories, the three statuses and none in turn.
func creates(base, apiKey string, from int) vegeta.Targeter {
	var next atomic.Int64
	next.Store(int64(from))
	statuses := []string{`,"status":"available"`, `,"status":"pending"`, `,"status":"sold"`, ``}
	hdr := Case{Body: []byte{}}.header(apiKey)
	return func(t *vegeta.Target) error {
		i := next.Add(1)
		t.Method, t.URL, t.Header = http.MethodPost, base+"/pets", hdr
		t.Body = []byte(`{"name":"pet` + strconv.FormatInt(i, 10) + `","categoryId":` +
			strconv.FormatInt(i%7, 10) + statuses[i%4] + `}`)
		return nil
	}
}

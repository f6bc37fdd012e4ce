package load

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
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

// MemoryResult is what the memory mode measured.
type MemoryResult struct {
	From, To int  // animals in the small server and in the big one
	Seeded   bool // the servers started from seed files; otherwise the animals came through POST
	// Small and Big are the memory of the two servers, read after they served the lists.
	Small, Big Memory
	Fill       Result // without Seeded: the creates into the big server
	// Lists are the list cases in rounds, alternating between the two servers, so that a
	// change in the machine's load hits both alike.
	Lists []Result
}

// Rounds is how many times each list is measured on each server in the memory mode.
const Rounds = 3

// PerAnimal is the resident memory per animal: what the big server holds over the small one,
// divided by the animals it holds over it.
func (m MemoryResult) PerAnimal() float64 {
	return float64(m.Big.RSS-m.Small.RSS) / float64(m.To-m.From)
}

// MedianP50 is the median over the rounds of the p50 latency of a list case on a server.
func (m MemoryResult) MedianP50(server, cs string) time.Duration {
	var ds []time.Duration
	for _, r := range m.Lists {
		if strings.HasPrefix(r.Server, server) && r.Case == cs {
			ds = append(ds, r.P50)
		}
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// SmallName and BigName name the two servers of the memory mode.
func (m MemoryResult) SmallName() string { return fmt.Sprintf("%d animals", m.From) }
func (m MemoryResult) BigName() string   { return fmt.Sprintf("%d animals", m.To) }

// MeasureMemory starts two processes of srv, one holding 100 animals and one holding total,
// serves the lists from both in rounds and then reads the memory of each. With seedArgs, a
// server of n animals starts with srv.Argv and seedArgs(n) (a seed file of n animals);
// without, it starts empty and the animals are created as clients create them, with POST at
// o.Connections in flight, so that the figure includes what creating leaves behind.
func MeasureMemory(ctx context.Context, srv Server, total int, seedArgs func(n int) ([]string, error),
	o Options, progress func(string)) (MemoryResult, error) {
	res := MemoryResult{From: 100, To: total, Seeded: seedArgs != nil}
	if total <= res.From {
		return res, fmt.Errorf("memory mode: want more than %d animals, got %d", res.From, total)
	}
	start := func(n int) (*Proc, Result, error) {
		argv := srv.Argv
		if seedArgs != nil {
			progress(fmt.Sprintf("starting a server seeded with %d animals...", n))
			extra, err := seedArgs(n)
			if err != nil {
				return nil, Result{}, err
			}
			argv = append(slices.Clone(argv), extra...)
		}
		p, err := Start(ctx, argv, srv.ReadyPath, o.StartWithin)
		if err != nil || seedArgs != nil {
			return p, Result{}, err
		}
		progress(fmt.Sprintf("creating %d animals through POST /v1/pets...", n))
		r := fill(ctx, o, p.URL+srv.Base, 0, n)
		if r.Err != nil {
			p.Stop()
			return nil, r, r.Err
		}
		return p, r, nil
	}
	big, fillResult, err := start(total)
	if err != nil {
		return res, err
	}
	defer big.Stop()
	res.Fill = fillResult
	small, _, err := start(res.From)
	if err != nil {
		return res, err
	}
	defer small.Stop()
	progress(fmt.Sprintf("measuring the lists, %d rounds...", Rounds))
	for round := 1; round <= Rounds; round++ {
		for _, c := range ListCases {
			for _, s := range []struct {
				name string
				p    *Proc
			}{{res.SmallName(), small}, {res.BigName(), big}} {
				if o.Warmup > 0 {
					Attack(ctx, s.p.URL+srv.Base, c, o, o.Warmup)
				}
				r := Attack(ctx, s.p.URL+srv.Base, c, o, o.Duration)
				if r.Err != nil {
					return res, fmt.Errorf("%s on %s: %w", c.Name, s.name, r.Err)
				}
				r.Server = fmt.Sprintf("%s (round %d)", s.name, round)
				res.Lists = append(res.Lists, r)
			}
		}
	}
	if res.Small, err = ReadMemory(small.PID()); err != nil {
		return res, err
	}
	if res.Big, err = ReadMemory(big.PID()); err != nil {
		return res, err
	}
	return res, nil
}

// countPacer sends n requests as fast as the workers allow, then stops.
type countPacer uint64

func (n countPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	return 0, hits >= uint64(n)
}

// fill creates n animals at base, named from from+1 on, as fast as o allows; a create that
// failed is the result's error.
func fill(ctx context.Context, o Options, base string, from, n int) Result {
	r := attack(ctx, "fill", http.StatusCreated, o, 0, countPacer(n), creates(base, o.APIKey, from))
	if r.Err == nil && r.Errors > 0 {
		r.Err = fmt.Errorf("%d of %d creates failed", r.Errors, r.Requests)
	}
	return r
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

package double

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/reference/internal/core"
)

// varied serves the API with the choices of VaryChoices (vary.go) around next.
type varied struct {
	c         VaryChoices
	ids       idMap
	petPrefix string // the path of getPet up to its parameter: /v1/pets/
	listPath  string // the path of listPets: /v1/pets
	sleep     func(context.Context, time.Duration)
	ew        *core.ErrorWriter
	next      http.Handler

	n      atomic.Uint64 // API requests so far
	counts VaryCounts
}

// VaryCounts counts what a varied server did, for its tests and the client developer's.
type VaryCounts struct {
	Faults    atomic.Int64 // 429 and 503 answered
	Short     atomic.Int64 // listings cut below what the store returned
	Reordered atomic.Int64 // listings of 2 animals or more sent in another order
}

func newVaried(c VaryChoices, petPrefix, listPath string, sleep func(context.Context, time.Duration), ew *core.ErrorWriter, next http.Handler) *varied {
	return &varied{c: c, ids: newIDMap(c), petPrefix: petPrefix, listPath: listPath, sleep: sleep, ew: ew, next: next}
}

func (v *varied) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k := v.n.Add(1)
	rng := rand.New(rand.NewPCG(v.c.Seed, k))
	if v.c.Jitter > 0 {
		v.sleep(r.Context(), time.Duration(rng.Int64N(int64(v.c.Jitter)+1)))
	}
	if v.c.FaultEvery > 0 && k%uint64(v.c.FaultEvery) == 0 {
		v.fault(w, r, rng)
		return
	}
	r, asked := v.translatePath(r)
	rec := core.GetRecorder()
	defer core.PutRecorder(rec)
	v.next.ServeHTTP(capture{Recorder: rec, under: w}, r)
	status, body, h := rec.Status, rec.Body.Bytes(), rec.Headers
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case status >= 200 && status < 300:
		body = v.ids.rewrite(body)
		if loc := h.Get("Location"); loc != "" {
			h.Set("Location", v.publicLocation(loc))
		}
		if r.Method == http.MethodGet && r.URL.Path == v.listPath {
			body = v.page(body, rng)
		}
	case status == http.StatusNotFound && asked != "":
		body = v.notFoundAs(body, asked)
	}
	if v.c.Headers {
		h.Set("X-Request-Id", fmt.Sprintf("%016x", rng.Uint64()))
		h.Set("Server-Timing", fmt.Sprintf("app;dur=%d", rng.IntN(50)))
		h.Set("Cache-Control", "no-store")
	}
	v.write(w, status, h, body, rng)
}

// fault answers as a gateway in front of the service: 429 or 503, with Retry-After.
func (v *varied) fault(w http.ResponseWriter, r *http.Request, rng *rand.Rand) {
	v.counts.Faults.Add(1)
	w.Header().Set("Retry-After", strconv.Itoa(FaultRetryAfter))
	if rng.IntN(2) == 0 {
		v.ew.WriteError(w, r, core.NewError(http.StatusTooManyRequests, CodeRateLimited,
			"too many requests (a varied server's choice, --vary %d); retry after %d s", v.c.Seed, FaultRetryAfter))
		return
	}
	v.ew.WriteError(w, r, core.NewError(http.StatusServiceUnavailable, CodeUnavailable,
		"the service is unavailable (a varied server's choice, --vary %d); retry after %d s", v.c.Seed, FaultRetryAfter))
}

// translatePath returns r with the public id of a getPet path turned into the store's (r
// itself when the path holds none), and the id as the client wrote it ("" for none). The
// request the client sent, which the journal keeps, is left as it was.
func (v *varied) translatePath(r *http.Request) (*http.Request, string) {
	rest, ok := strings.CutPrefix(r.URL.Path, v.petPrefix)
	if !ok || rest == "" || strings.Contains(rest, "/") || strings.Contains(strings.ToUpper(r.URL.RawPath), "%2F") {
		return r, ""
	}
	p, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		return r, ""
	}
	moved, u := new(http.Request), *r.URL
	*moved = *r
	u.Path, u.RawPath = v.petPrefix+strconv.FormatInt(v.ids.store(p), 10), ""
	moved.URL = &u
	return moved, rest
}

// publicLocation is a Location header with the public id of the created animal.
func (v *varied) publicLocation(loc string) string {
	if rest, ok := strings.CutPrefix(loc, v.petPrefix); ok {
		if n, err := strconv.ParseInt(rest, 10, 64); err == nil {
			return v.petPrefix + strconv.FormatInt(v.ids.public(n), 10)
		}
	}
	return loc
}

// notFoundAs words a getPet 404 with the id the client sent instead of the store's.
func (v *varied) notFoundAs(body []byte, asked string) []byte {
	var e core.Error
	if json.Unmarshal(body, &e) != nil || e.Code == "" {
		return body
	}
	p, _ := strconv.ParseInt(asked, 10, 64)
	e.Message = strings.ReplaceAll(e.Message, "pet "+strconv.FormatInt(v.ids.store(p), 10)+" ", "pet "+asked+" ")
	out, err := json.Marshal(e)
	if err != nil {
		return body
	}
	return append(out, '\n')
}

// page reorders a listing's animals and may cut it, never below one animal.
func (v *varied) page(body []byte, rng *rand.Rand) []byte {
	var pets []json.RawMessage
	if json.Unmarshal(body, &pets) != nil || len(pets) < 2 {
		return body
	}
	switch v.c.Order {
	case OrderReversed:
		for i, j := 0, len(pets)-1; i < j; i, j = i+1, j-1 {
			pets[i], pets[j] = pets[j], pets[i]
		}
		v.counts.Reordered.Add(1)
	case OrderShuffled:
		rng.Shuffle(len(pets), func(i, j int) { pets[i], pets[j] = pets[j], pets[i] })
		v.counts.Reordered.Add(1)
	}
	if v.c.ShortPages && rng.IntN(2) == 0 {
		keep := len(pets)/2 + rng.IntN(len(pets)-len(pets)/2) // from half to all but one
		pets = pets[:max(1, keep)]
		v.counts.Short.Add(1)
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, p := range pets {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// write sends the answer: in one piece with Content-Length, or chunked in up to four pieces.
func (v *varied) write(w http.ResponseWriter, status int, h http.Header, body []byte, rng *rand.Rand) {
	out := w.Header()
	for k, vs := range h {
		out[k] = vs
	}
	if !v.c.Chunked || len(body) < 2 {
		out.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	out.Del("Content-Length")
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	for pieces := 2 + rng.IntN(3); len(body) > 0; pieces-- {
		n := len(body)
		if pieces > 1 {
			n = 1 + rng.IntN(len(body))
		}
		if _, err := w.Write(body[:n]); err != nil {
			return
		}
		_ = rc.Flush()
		body = body[n:]
	}
}

// capture holds the answer of the layers below until it is varied: the api's recorder, and
// the connection for a fault below that takes it (Prefer: fault=reset).
type capture struct {
	*core.Recorder
	under http.ResponseWriter
}

// Unwrap lets http.ResponseController reach the connection.
func (c capture) Unwrap() http.ResponseWriter { return c.under }

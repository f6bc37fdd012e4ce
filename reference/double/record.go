package double

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/internal/clientrules"
	"github.com/petstore/petstore/reference/internal/core"
)

// recording feeds the journal and the client report. It sits outside everything else, so
// that it sees every answer as the client got it (a recovered panic's 500 included).
type recording struct {
	journal *journal
	tally   *tally
	judge   *clientrules.Judge
	mask    masker
	keys    *core.KeySet
	now     func() time.Time
	opOf    func(*http.Request) string // the operationId of a request, "" for none
	// arrivals counts the requests arrived, in order: Retry-After's wait is judged by it.
	arrivals atomic.Uint64
}

// arrival is when a request came: the server's clock, the wall clock, and its place.
type arrival struct {
	at, wall time.Time
	n        uint64
}

// unrecorded are the paths the journal leaves out: its own and the readiness probe's.
func unrecorded(path string) bool {
	return strings.HasPrefix(path, "/_admin/") || path == "/healthz"
}

func (rc *recording) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unrecorded(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		at, wall, arrived := rc.now(), rc.judge.Wall(), rc.arrivals.Add(1)
		e := JournalEntry{
			Time:    at,
			Method:  r.Method,
			Path:    capText(rc.mask.mask(r.URL.EscapedPath())),
			Query:   capText(rc.mask.query(r.URL.RawQuery)),
			Headers: rc.mask.maskHeaders(r.Header),
			Key:     "none",
		}
		if _, ok := r.Header["Authorization"]; ok {
			e.Key = "invalid"
			if rc.keys.Check(r) {
				e.Key = "valid"
			}
		}
		var body *teeBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &teeBody{ReadCloser: r.Body}
			r.Body = body
		}
		aw := &answerWriter{ResponseWriter: w, clock: rc.judge.Wall, arrivals: &rc.arrivals}
		in := arrival{at, wall, arrived}
		// No answer at all (Prefer: fault=reset or close): status 0, chosen. It is journaled
		// as the connection is taken, before it is broken, so that a client that saw the
		// break finds it in the journal (a server's Close does not wait for taken ones).
		aw.hijacking = func() { rc.finish(&e, aw, body, r, in, true) }
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler && aw.status == 0 && !aw.hijacked {
					rc.finish(&e, aw, body, r, in, true)
				}
				panic(v)
			}
		}()
		next.ServeHTTP(aw, r)
		rc.finish(&e, aw, body, r, in, false)
	})
}

// finish completes the journal entry of an answered request (or of one that got no answer,
// aborted) and counts it in the report.
func (rc *recording) finish(e *JournalEntry, aw *answerWriter, body *teeBody, r *http.Request, in arrival, aborted bool) {
	at := in.at
	e.Status = aw.status
	if e.Status == 0 && !aborted {
		e.Status = http.StatusOK
	}
	e.Operation = rc.opOf(r) // after the api normalised the path
	if body != nil {
		e.Body = rc.mask.mask(string(body.kept))
		e.BodyTruncated = body.read > int64(len(body.kept))
	}
	if e.Status >= 400 {
		var rec core.Error
		if json.Unmarshal(aw.body, &rec) == nil && rec.Code != "" {
			rec.Message = rc.mask.mask(rec.Message)
			e.Error = &rec
		}
	}
	h := aw.Header()
	// Chosen: the answer is the test double's, not the server's own: a status or fault the
	// request chose with Prefer, the 400 of a Prefer the double refused (its message names
	// it), a fail rate's or rate limit's answer.
	e.Chosen = aborted || strings.Contains(h.Get("Preference-Applied"), "code=") ||
		(e.Error != nil && (e.Error.Code == CodeRateLimited || e.Error.Code == CodeUnavailable)) ||
		(e.Status == http.StatusBadRequest && e.Error != nil && strings.HasPrefix(e.Error.Message, "Prefer: "))
	rejected := e.Status >= 400 && e.Status < 500 && e.Status != http.StatusTooManyRequests && !e.Chosen
	rc.tally.count(e.Operation, e.Status, e.Error, rejected, at)
	// The wall clock as the answer was written: by the time the journal is, a client that
	// got a 429 may have waited already, and its retry would look early.
	answered, after := aw.wall, aw.after
	if answered.IsZero() {
		answered, after = rc.judge.Wall(), rc.arrivals.Load()
	}
	s := clientrules.Request{R: r, Method: e.Method, Path: e.Path, Query: e.Query, Operation: e.Operation,
		Status: e.Status, AnswerHeader: h, At: at, Wall: in.wall, Arrived: in.n, Answered: answered, AnsweredAfter: after}
	if body != nil {
		s.Body, s.Whole = body.kept, body.eof && body.read == int64(len(body.kept))
	}
	rc.tally.broke(rc.judge.Judge(s))
	rc.journal.add(*e)
}

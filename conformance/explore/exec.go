package explore

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/wire"
	"github.com/petstore/petstore/spec"
)

// maxKept is what a violation's message keeps of an answer's body.
const maxKept = 2 << 10

// Exchange is one step as it ran: the request, the answer, and the curl line that repeats it.
type Exchange struct {
	Worker       int     `json:"worker"`
	Index        int     `json:"index"`
	Step         Step    `json:"step"`
	Method       string  `json:"method,omitempty"`
	URL          string  `json:"url,omitempty"`
	RequestBody  string  `json:"requestBody,omitempty"`
	Status       int     `json:"status,omitempty"`
	ResponseBody string  `json:"responseBody,omitempty"`
	Error        string  `json:"error,omitempty"`
	Skipped      string  `json:"skipped,omitempty"`
	Millis       float64 `json:"ms"`
	Curl         string  `json:"curl,omitempty"`
	start        time.Time
	// rec holds what the session recorded until fill writes it here.
	rec *exchange.Recorder
}

// errBudget ends a replay whose createPet steps would exceed the budget of creates.
var errBudget = errors.New("the budget of animals to create (--max-creates) is spent")

// budget counts the animals a phase may create.
type budget struct {
	max  int64
	used atomic.Int64
}

func (b *budget) take() bool {
	if b.used.Add(1) > b.max {
		b.used.Add(-1)
		return false
	}
	return true
}

func (b *budget) give() { b.used.Add(-1) }

// runner sends steps and judges the answers; it is shared by the workers and by every
// replay of a run. Every request goes through its exchange.Session, which paces it, waits
// out a 429 or 503, caps and records the answer, validates it against the description and
// redacts the key; the runner judges what the session saw against the model.
type runner struct {
	t    exchange.Target
	f    *spec.Facts
	ops  operations
	sess *exchange.Session
	o    sessionOptions
	// fresh, when set, gives each replay a target of its own (see Config.Fresh).
	fresh func() (exchange.Target, func(), error)
	c     *counters
	// known are the causes of the findings made before: a violation of one is counted (while
	// exploring) and passed over, as if the step had met none.
	known causes
}

// sessionOptions are what every session of a run is opened with, and the visibility lag its
// models allow.
type sessionOptions struct {
	lag     time.Duration
	timeout time.Duration
	rate    float64
	workers int
	maxWait time.Duration
}

// counters add up the requests and waits of the sessions of fresh targets that are done.
type counters struct {
	requests  atomic.Int64
	throttled atomic.Int64
}

func newRunner(t exchange.Target, f *spec.Facts, o sessionOptions, fresh func() (exchange.Target, func(), error)) (*runner, error) {
	r := &runner{f: f, ops: operationsOf(f), o: o, fresh: fresh, c: &counters{}}
	return r, r.open(t)
}

// open points the runner at t, through a session of its own.
func (r *runner) open(t exchange.Target) error {
	sess, err := exchange.New(exchange.Config{BaseURL: t.BaseURL, APIKey: t.APIKey, Client: t.Client, Timeout: r.o.timeout,
		Workers: r.o.workers, Rate: r.o.rate, MaxWait: r.o.maxWait, Facts: r.f})
	if err != nil {
		return err
	}
	r.t, r.sess = t, sess
	return nil
}

// done adds up what the runner's session sent, once it sends no more.
func (r *runner) done(into *counters) {
	into.requests.Add(r.sess.Requests())
	n, _ := r.sess.WaitedOut()
	into.throttled.Add(n)
}

// requests and throttled count, over every session of the runner, the requests sent and the
// 429 and 503 answers waited out.
func (r *runner) requests() int64 { return r.c.requests.Load() + r.sess.Requests() }

func (r *runner) throttled() int64 {
	n, _ := r.sess.WaitedOut()
	return r.c.throttled.Load() + n
}

// worker is what one worker's steps refer to while a sequence runs.
type worker struct {
	n        int
	ids      map[int]string // createPet step index -> id answered with 201
	lastList []string       // ids of the latest non-empty listing
}

func newWorker(n int) *worker { return &worker{n: n, ids: map[int]string{}} }

// state is what the steps of a sequence share: the model, and the budget of creates.
type state struct {
	m       *model
	creates *budget
}

// exec runs step i of worker w and judges its answer. The error is set when the step could
// not be judged for a reason that is no finding (the run was cancelled, the budget is spent,
// the target can no longer be judged).
func (r *runner) exec(ctx context.Context, s state, w *worker, i int, st Step) (Exchange, *Violation, error) {
	ex := Exchange{Worker: w.n, Index: i, Step: st}
	a := &judging{r: r, m: s.m, w: w, i: i, st: st}
	method, ok := r.resolve(a)
	if !ok {
		ex.Skipped = "the step it refers to got no animal"
		return ex, nil, nil
	}
	if a.id != "" && st.Auth == "" && cases.Unsafe(method) {
		s.m.removed(a.id, time.Time{}) // what it names may change from now on
	}
	counted := st.Op == opCreate && st.Auth == ""
	if counted && !s.creates.take() {
		return ex, nil, errBudget
	}
	var v *Violation
	for attempt := 0; ; attempt++ {
		ex.start = time.Now()
		err := r.send(ctx, &ex, method, a)
		if ctx.Err() != nil {
			return ex, nil, ctx.Err()
		}
		ex.Millis = float64(time.Since(ex.start).Microseconds()) / 1000
		if err != nil {
			return ex, nil, err
		}
		if ex.Error != "" {
			v = violation(ruleNoAnswer, "%s %s: no answer: %s", method, a.rel, ex.Error)
			break
		}
		if v = r.basic(method, a); v != nil {
			break
		}
		var recheck time.Duration
		a.sent, a.at = ex.start, time.Now()
		recheck, v = r.judge(a)
		if recheck <= 0 || v != nil || attempt >= maxRechecks {
			break
		}
		// A 404 for an animal stored within the allowed lag, or an animal removed within it:
		// ask again once it has passed.
		if err := r.sess.Wait(ctx, recheck); err != nil {
			return ex, nil, err
		}
	}
	if counted && ex.Error == "" && ex.Status/100 != 2 { // a create without an answer may have been stored
		s.creates.give()
	}
	if v != nil {
		// A finding's words may quote what the target sent (a body, an animal's fields),
		// which may hold the key in any form.
		v.Message = r.sess.Redact(v.Message)
		status := ex.Status
		if ex.Error != "" {
			status = 0
		}
		v.Cause, v.detail = causeOf(v, st, status), ""
	}
	return ex, v, nil
}

// judge judges an answer: a step without the key must get a 401, any other is its
// operation's to judge against the model.
func (r *runner) judge(a *judging) (recheck time.Duration, v *Violation) {
	if a.st.Auth == "" {
		return r.ops.byID[a.st.Op].judge(a)
	}
	if a.status != http.StatusUnauthorized {
		how := map[string]string{authNone: "no Authorization header", authWrong: "a wrong bearer token"}[a.st.Auth]
		return 0, violation(ruleUnauthorized, "%s with %s answered %d, not 401", a.st.Op, how, a.status)
	}
	return 0, nil
}

// maxRechecks is how often a step asks again for an animal missing, or still there, within
// the allowed lag.
const maxRechecks = 5

// resolve sets a's path and query, relative to the base URL, and its id, from the
// description and the step's fields: its query parameters, and the id of an operation on
// one animal (one the worker created, of its latest listing, or as written); ok is false
// when the step refers to an animal the worker does not have.
func (r *runner) resolve(a *judging) (method string, ok bool) {
	op, st := r.f.ByID[a.st.Op], a.st
	var q []string
	if st.Limit != nil {
		q = append(q, paramLimit+"="+queryEscaper.Replace(*st.Limit))
	}
	if st.Status != nil {
		q = append(q, paramStatus+"="+queryEscaper.Replace(*st.Status))
	}
	id := st.ID
	switch {
	case st.Ref != nil:
		if id, ok = a.w.ids[*st.Ref]; !ok {
			return "", false
		}
	case st.Listed != nil:
		if len(a.w.lastList) == 0 {
			return "", false
		}
		id = a.w.lastList[*st.Listed%len(a.w.lastList)]
	}
	a.rel = op.Path
	if strings.Contains(op.Path, "{") {
		a.id = pathEscaper.Replace(id)
		a.rel = cases.FillPath(op.Path, a.id)
	}
	if len(q) > 0 {
		a.rel += "?" + strings.Join(q, "&")
	}
	return op.Method, true
}

// send sends a step's request through the session (its body for a POST, the key its Auth
// says) and fills ex from what the session recorded, redacted. ex.Error is set when the
// request got no answer, else a's status, body and what the session found wrong with them
// against the description; the error, when the step cannot be judged at all (the guard kept
// it back, the target can no longer be judged, the run ended).
func (r *runner) send(ctx context.Context, ex *Exchange, method string, a *judging) error {
	st := a.st
	q := wire.Request{Method: method, Path: a.rel, Header: []wire.Header{{Name: "Accept", Value: "application/json"}}}
	if r.f.ByID[st.Op].Op.RequestBody != nil {
		q.Body = wire.JSONBody([]byte(st.Body))
		q.Header = append(q.Header, wire.Header{Name: "Content-Type", Value: "application/json"})
	}
	switch st.Auth {
	case authWrong:
		q.Auth = wire.AuthWrongKey
	case authNone:
		q.Auth = wire.AuthNone
	}
	rec := exchange.NewRecorder(r.sess.Redact)
	resp, b, err := r.sess.Exchange(ctx, rec, true, q)
	ex.rec = rec
	switch {
	case err == nil:
	case errors.Is(err, exchange.ErrNotSent) || ctx.Err() != nil:
		ex.fill()
		return err
	case r.sess.Halted() != nil:
		ex.fill()
		return r.sess.Halted()
	default:
		ex.fill()
		if ex.Error == "" {
			ex.Error = r.sess.Redact(err.Error())
		}
		return nil
	}
	ex.Status, a.status, a.body, a.failures = resp.StatusCode, resp.StatusCode, b, rec.Failures()
	return nil
}

// fill copies into ex what the session recorded of its request, redacted, with the curl line
// that repeats it. The session writes these only when asked: a step's exchange is filled
// when it is part of a trace.
func (ex *Exchange) fill() {
	if ex.rec == nil {
		return
	}
	_, recorded := ex.rec.Results()
	ex.rec = nil
	if len(recorded) == 0 {
		return
	}
	got := recorded[len(recorded)-1]
	ex.Method, ex.URL, ex.RequestBody, ex.Curl, ex.Error = got.Request.Method, got.Request.URL, got.Request.Body, got.Curl, got.Error
	if got.Response != nil {
		ex.Status, ex.ResponseBody = got.Response.Status, got.Response.Body
	}
}

// basic holds every answer to what holds whatever the step: no 5xx, no redirect the
// description does not give, and what the session checked (the answer valid against the
// description, every 4xx an Error record whose status repeats the HTTP status; an
// undocumented 4xx, allowed where the document is silent, only needs the Error record).
func (r *runner) basic(method string, a *judging) *Violation {
	rel := a.rel
	if a.status >= 500 {
		return violation(ruleNo5xx, "%s %s answered %d: %s", method, pathOnly(rel), a.status, keep(r.sess.Redact(string(a.body))))
	}
	if a.status/100 == 3 && r.f.ByID[a.st.Op].Op.Responses.Status(a.status) == nil {
		return violation(ruleSpec, "%s %s answered %d, which breaks the description: a redirect it does not give", method, pathOnly(rel), a.status)
	}
	if len(a.failures) == 0 {
		return nil
	}
	f := a.failures[0]
	v := violation(ruleSpec, "%s %s answered %d, which breaks the description: %s", method, pathOnly(rel), a.status, f.Message)
	if a.status >= 400 && judge.AboutErrorRecord(f) {
		v = violation(errorRule(a.status), "%s %s answered %d: %s", method, pathOnly(rel), a.status, f.Message)
	}
	v.detail = detailOf(f)
	return v
}

// keep is what a violation's message shows of a body (redacted before it is cut, so that no
// part of a key is left at the cut).
func keep(s string) string {
	s = strings.TrimRight(s, "\n")
	if len(s) > maxKept {
		return s[:maxKept] + "... (cut)"
	}
	return s
}

func pathOnly(rel string) string {
	p, _, _ := strings.Cut(rel, "?")
	return p
}

// queryEscaper and pathEscaper keep what the step says readable in URLs and curl lines.
var (
	queryEscaper = strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", "+", "%2B", " ", "%20")
	pathEscaper  = strings.NewReplacer("%", "%25", "/", "%2F", "?", "%3F", "#", "%23", " ", "%20")
)

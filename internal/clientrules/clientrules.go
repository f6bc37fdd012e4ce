// Package clientrules is the one judge of a client's requests, below both the reference's
// test double (its client report) and the harness's proxy (its findings on the requests a
// client sends through it), with one vocabulary: the client rules, each with an ID, a
// section and a level (internal/level), as the harness's rules have them (READINGS.md): MUST
// is fixed by the document's words, SHOULD by the HTTP standards it builds on, ADVISORY a
// practice no text requires. A Judge judges one request at a time and keeps what the rules
// need across requests (the end of the last Retry-After); RuleOf names the client rule that
// a request's violation of the description (spec.Violation) breaks.
package clientrules

import (
	"cmp"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/petstore/petstore/internal/level"
	"github.com/petstore/petstore/spec"
)

// The IDs of the client rules.
const (
	AuthBearer      = "client/auth-bearer"
	LimitInBounds   = "client/limit-in-bounds"
	StatusInEnum    = "client/status-in-enum"
	JSONBody        = "client/json-body"
	RetryAfter      = "client/retry-after"
	RemovedOp       = "client/no-removed-operation"
	DeprecatedOp    = "client/deprecated-operation"
	DocumentedPaths = "client/documented-paths"
)

// Rule is one requirement on a client.
type Rule struct {
	ID      string      `json:"id"`
	Section string      `json:"section"`
	Level   level.Level `json:"level"`
	Title   string      `json:"title"`
}

// Rules returns the client rules, their words read from the spec's facts.
func Rules(facts *spec.Facts) []Rule {
	list, create := facts.ByID[spec.OpList], facts.ByID[spec.OpCreate]
	return []Rule{
		{ID: AuthBearer, Section: "5.1-5.2", Level: level.Must,
			Title: "every request of an operation carries the key as Authorization: Bearer <key>, and the key is nowhere else (query, cookie, another header)"},
		{ID: LimitInBounds, Section: "4.1; 8", Level: level.Must,
			Title: fmt.Sprintf("%s's limit, when given, is given once and is an integer from %d to %d", list.ID, facts.Limit.Min, facts.Limit.Max)},
		{ID: StatusInEnum, Section: "4.1; 2", Level: level.Must,
			Title: fmt.Sprintf("%s's status filter, when given, is given once and is one of %s", list.ID, strings.Join(facts.Statuses, ", "))},
		{ID: JSONBody, Section: "4.2; 1; 2", Level: level.Must,
			Title: fmt.Sprintf("%s sends NewPet as JSON: Content-Type application/json, name and categoryId present, every value valid", create.ID)},
		{ID: RetryAfter, Section: "RFC 9110 10.2.3; 8", Level: level.Should,
			Title: "after a 429 or 503 with Retry-After, the client sends no request before that time"},
		{ID: RemovedOp, Section: "4.3; 9.3", Level: level.Must,
			Title: "a deprecated operation is not called on or after its removal date"},
		{ID: DeprecatedOp, Section: "4.3; 9.3", Level: level.Advisory,
			Title: "a deprecated operation is replaced before its removal date"},
		{ID: DocumentedPaths, Section: "1; 4", Level: level.Must,
			Title: "only the documented operations are called, with their methods, under the base path"},
	}
}

// RuleOf names the client rule a request's violation of the description breaks: a request
// no operation matches, the key, limit, status, the body; "" for another violation (a path
// parameter, a header of another operation) or one of a response.
func RuleOf(v spec.Violation) string {
	switch {
	case v.Direction != spec.Request:
	case v.Pointer == spec.PointerNoRoute:
		return DocumentedPaths
	case v.Location == "header Authorization" || strings.HasSuffix(v.Pointer, "/security") || v.Pointer == "#/security":
		return AuthBearer
	case v.Operation == spec.OpList && v.Location == "query limit":
		return LimitInBounds
	case v.Operation == spec.OpList && v.Location == "query status":
		return StatusInEnum
	case v.Operation == spec.OpCreate && (v.Location == "body" || strings.HasPrefix(v.Location, "body/") || v.Location == "header Content-Type"):
		return JSONBody
	}
	return ""
}

// Find returns the rule of id among rules.
func Find(rules []Rule, id string) (Rule, bool) {
	i := slices.IndexFunc(rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return rules[i], true
}

// Options are what a Judge needs from its user.
type Options struct {
	// Mask hides the secrets in a text, a finding's words; Value and Query hide them in a
	// header field's value and in the values of a raw query string, whatever their length.
	// A query or another header field they change carries the key. Nil: none.
	Mask, Value, Query func(string) string
	// Wall is the clock of waits: Retry-After counts in real seconds, whatever the server's
	// clock (which a test may hold still). Nil: time.Now.
	Wall func() time.Time
	// NewPet decodes and validates a createPet body read whole; its error's words go into
	// the finding. Nil: the body is not judged beyond its media type.
	NewPet func(body []byte) error
}

// Judge judges a client's requests one at a time. It is safe for concurrent use.
type Judge struct {
	facts *spec.Facts
	opts  Options

	mu    sync.Mutex
	until time.Time // no request before this: the last 429 or 503 asked so
	after uint64    // of requests that arrived after that answer was written (arrival order)
	asked string    // what asked it, for the message
}

// New returns a judge of requests to the interface facts describes.
func New(facts *spec.Facts, opts Options) *Judge {
	for _, f := range []*func(string) string{&opts.Mask, &opts.Value, &opts.Query} {
		if *f == nil {
			*f = func(s string) string { return s }
		}
	}
	if opts.Wall == nil {
		opts.Wall = time.Now
	}
	return &Judge{facts: facts, opts: opts}
}

// Wall is the judge's clock of waits.
func (j *Judge) Wall() time.Time { return j.opts.Wall() }

// Request is one request as the rules see it, with what they need of its answer.
type Request struct {
	R *http.Request
	// Method, Path (escaped) and Query (raw) as the client sent them, and the operation the
	// request was routed to ("" for none).
	Method, Path, Query, Operation string
	// Status is the answer's status; AnswerHeader its header fields.
	Status       int
	AnswerHeader http.Header
	// Body is the request body as read; Whole is false when it was not read to its end.
	Body  []byte
	Whole bool
	// At is the server's clock when the request came (an operation's removal date counts
	// by it).
	At time.Time
	// The wait of Retry-After is judged on the wall clock and in arrival order: Wall is when
	// the request arrived and Arrived its place among arrivals; Answered is when its answer
	// was written, with AnsweredAfter requests arrived by then. A request judged after a 429
	// (its handler ran on) but arrived before that 429 was written is not early.
	Wall, Answered         time.Time
	Arrived, AnsweredAfter uint64
	// AnswerLater: the answer may yet not reach the client as it is (a proxy may answer 502
	// in its place). Judge then does not note the wait it asks for; AnswerSent does, once
	// the answer has been sent.
	AnswerLater bool
}

// Finding is one request that broke one rule.
type Finding struct{ Rule, Message string }

// Judge returns the rules a request broke, and notes a Retry-After it was answered.
func (j *Judge) Judge(rq Request) []Finding {
	var out []Finding
	add := func(rule, format string, args ...any) {
		out = append(out, Finding{Rule: rule, Message: j.opts.Mask(fmt.Sprintf(format, args...))})
	}
	r := rq.R
	where := rq.where()
	op, known := j.facts.ByID[rq.Operation]
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if !known && !preflight && r.URL.Path != "/openapi.yaml" {
		add(DocumentedPaths, "%s matches no operation of the interface (answered %d)", where, rq.Status)
	}
	j.judgeKey(rq, known && op.Secured, where, add)
	j.judgeRetry(rq, where, add)
	if !known {
		return out
	}
	if op.Deprecated && !op.Sunset.IsZero() {
		day := op.Sunset.Format(time.DateOnly)
		use := cmp.Or(op.ReplacedBy, "another operation")
		if op.Gone(rq.At) {
			add(RemovedOp, "%s: %s was removed on %s and called on %s; use %s", where, op.ID, day, rq.At.Format(time.DateOnly), use)
		} else {
			add(DeprecatedOp, "%s: %s is deprecated and is removed on %s; use %s", where, op.ID, day, use)
		}
	}
	switch op.ID {
	case spec.OpList:
		j.judgeQuery(r.URL.RawQuery, where, add)
	case spec.OpCreate:
		if rq.Status != http.StatusUnauthorized { // answered before the body was read
			j.judgeBody(rq, where, add)
		}
	}
	return out
}

// where is the request as a finding names it: "GET /v1/pets?limit=2".
func (rq Request) where() string {
	if rq.Query != "" {
		return rq.Method + " " + rq.Path + "?" + rq.Query
	}
	return rq.Method + " " + rq.Path
}

// AnswerSent notes the wait rq's answer asks for (a 429 or 503 with Retry-After), for a
// request Judge judged with AnswerLater, once that answer reached the client.
func (j *Judge) AnswerSent(rq Request) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.noteWait(rq)
}

// judgeKey: the key as a bearer token in Authorization, and nowhere else.
func (j *Judge) judgeKey(rq Request, secured bool, where string, add func(string, string, ...any)) {
	r := rq.R
	auth := r.Header.Values("Authorization")
	switch {
	case secured && len(auth) == 0:
		add(AuthBearer, "%s sent no Authorization header", where)
	case len(auth) > 1:
		add(AuthBearer, "%s sent %d Authorization fields", where, len(auth))
	case len(auth) == 1:
		scheme, token, _ := strings.Cut(auth[0], " ")
		if !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
			add(AuthBearer, "%s sent Authorization: %s <...>, not Bearer <key>", where, firstWord(auth[0]))
		}
	}
	if q := r.URL.RawQuery; q != "" && j.opts.Query(q) != q {
		add(AuthBearer, "%s sent the key in the query string", where)
	}
	for name, vs := range r.Header {
		if name == "Authorization" {
			continue
		}
		for _, v := range vs {
			if j.opts.Value(v) != v {
				add(AuthBearer, "%s sent the key in the %s header", where, name)
				break
			}
		}
	}
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	if len(w) > 12 {
		return w[:6] + "…"
	}
	return w
}

// judgeRetry: no request before the time the last 429 or 503 asked to wait for; an answer
// that asks to wait sets that time.
func (j *Judge) judgeRetry(rq Request, where string, add func(string, string, ...any)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if rq.Arrived > j.after && rq.Wall.Before(j.until) {
		add(RetryAfter, "%s came %s before the end of the wait that %s asked for", where,
			j.until.Sub(rq.Wall).Round(time.Millisecond), j.asked)
	}
	if !rq.AnswerLater {
		j.noteWait(rq)
	}
}

// noteWait sets the time no request is to come before, when rq's answer asks to wait longer
// than the last one did. j.mu is held.
func (j *Judge) noteWait(rq Request) {
	if rq.Status != http.StatusTooManyRequests && rq.Status != http.StatusServiceUnavailable {
		return
	}
	v := rq.AnswerHeader.Get("Retry-After")
	d := time.Duration(0)
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(rq.At)
	}
	if until := rq.Answered.Add(d); d > 0 && until.After(j.until) {
		j.until, j.after, j.asked = until, rq.AnsweredAfter, fmt.Sprintf("the %d to %s (Retry-After: %s)", rq.Status, rq.where(), v)
	}
}

// values quotes a parameter's values in a finding, each masked as a value (a key of any
// length: a finding's text is masked only as free text, where a short key is left).
func (j *Judge) values(vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = j.opts.Value(v)
	}
	return strings.Join(out, ", ")
}

// judgeQuery: limit and status as section 4.1 and the spec's facts allow them.
func (j *Judge) judgeQuery(rawQuery string, where string, add func(string, string, ...any)) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return
	}
	if vs, ok := q["limit"]; ok {
		n, err := strconv.ParseInt(vs[0], 10, 64)
		if len(vs) > 1 || err != nil || n < j.facts.Limit.Min || n > j.facts.Limit.Max {
			add(LimitInBounds, "%s: limit %s is not one integer from %d to %d", where, j.values(vs), j.facts.Limit.Min, j.facts.Limit.Max)
		}
	}
	if vs, ok := q["status"]; ok {
		if len(vs) > 1 || !slices.Contains(j.facts.Statuses, vs[0]) {
			add(StatusInEnum, "%s: status %s is not one of %s", where, j.values(vs), strings.Join(j.facts.Statuses, ", "))
		}
	}
}

// judgeBody: the media type, and the body read whole decoded and validated as NewPet.
func (j *Judge) judgeBody(rq Request, where string, add func(string, string, ...any)) {
	ct := rq.R.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		add(JSONBody, "%s: Content-Type %q, not application/json", where, ct)
		return
	}
	if !rq.Whole || j.opts.NewPet == nil {
		return
	}
	if err := j.opts.NewPet(rq.Body); err != nil {
		add(JSONBody, "%s: the body is not a valid NewPet: %s", where, err.Error())
	}
}

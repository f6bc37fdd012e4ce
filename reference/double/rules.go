package double

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The client rules: what the interface document asks of a client, judged on every request
// the double records, with IDs, sections and levels as the harness's rules have them
// (READINGS.md): MUST is fixed by the document's words, SHOULD by the HTTP standards it
// builds on, ADVISORY a practice no text requires.

// The levels of a client rule.
const (
	LevelMust     = "MUST"
	LevelShould   = "SHOULD"
	LevelAdvisory = "ADVISORY"
)

// The IDs of the client rules.
const (
	RuleAuthBearer      = "client/auth-bearer"
	RuleLimitInBounds   = "client/limit-in-bounds"
	RuleStatusInEnum    = "client/status-in-enum"
	RuleJSONBody        = "client/json-body"
	RuleRetryAfter      = "client/retry-after"
	RuleRemovedOp       = "client/no-removed-operation"
	RuleDeprecatedOp    = "client/deprecated-operation"
	RuleDocumentedPaths = "client/documented-paths"
)

// ClientRule is one requirement on a client and how the client did against it.
type ClientRule struct {
	ID      string `json:"id"`
	Section string `json:"section"`
	Level   string `json:"level"`
	Title   string `json:"title"`
	// Violations counts the requests that broke the rule; Examples are the first few, as
	// the journal would show them (keys masked).
	Violations int      `json:"violations"`
	Examples   []string `json:"examples"`
}

// maxRuleExamples is how many violations of a rule the report quotes.
const maxRuleExamples = 3

// clientRules returns the rules, their words read from the spec's facts.
func clientRules(facts *spec.Facts) []ClientRule {
	list, create := facts.ByID[spec.OpList], facts.ByID[spec.OpCreate]
	return []ClientRule{
		{ID: RuleAuthBearer, Section: "5.1-5.2", Level: LevelMust,
			Title: "every request of an operation carries the key as Authorization: Bearer <key>, and the key is nowhere else (query, cookie, another header)"},
		{ID: RuleLimitInBounds, Section: "4.1; 8", Level: LevelMust,
			Title: fmt.Sprintf("%s's limit, when given, is given once and is an integer from %d to %d", list.ID, facts.Limit.Min, facts.Limit.Max)},
		{ID: RuleStatusInEnum, Section: "4.1; 2", Level: LevelMust,
			Title: fmt.Sprintf("%s's status filter, when given, is given once and is one of %s", list.ID, strings.Join(facts.Statuses, ", "))},
		{ID: RuleJSONBody, Section: "4.2; 1; 2", Level: LevelMust,
			Title: fmt.Sprintf("%s sends NewPet as JSON: Content-Type application/json, name and categoryId present, every value valid", create.ID)},
		{ID: RuleRetryAfter, Section: "RFC 9110 10.2.3; 8", Level: LevelShould,
			Title: "after a 429 or 503 with Retry-After, the client sends no request before that time"},
		{ID: RuleRemovedOp, Section: "4.3; 9.3", Level: LevelMust,
			Title: "a deprecated operation is not called on or after its removal date"},
		{ID: RuleDeprecatedOp, Section: "4.3; 9.3", Level: LevelAdvisory,
			Title: "a deprecated operation is replaced before its removal date"},
		{ID: RuleDocumentedPaths, Section: "1; 4", Level: LevelMust,
			Title: "only the documented operations are called, with their methods, under the base path"},
	}
}

// MustBroken returns the MUST rules the client broke, leaving out those in allowed.
func (r ClientReport) MustBroken(allowed ...string) []ClientRule {
	var out []ClientRule
	for _, rule := range r.Rules {
		if rule.Level == LevelMust && rule.Violations > 0 && !slices.Contains(allowed, rule.ID) {
			out = append(out, rule)
		}
	}
	return out
}

// String is a rule's verdict in one line, with its first example.
func (c ClientRule) String() string {
	s := fmt.Sprintf("%s (%s, section %s): %s", c.ID, c.Level, c.Section, c.Title)
	if c.Violations > 0 {
		s += fmt.Sprintf(" — broken by %s", words.Plural(c.Violations, "request"))
		if len(c.Examples) > 0 {
			s += ", first: " + c.Examples[0]
		}
	}
	return s
}

// judge holds what the rules need across requests: the end of the last Retry-After.
type judge struct {
	facts *spec.Facts
	mask  masker
	// wall is the clock of waits: Retry-After counts in real seconds, whatever the
	// server's clock (which a test may hold still).
	wall func() time.Time

	mu    sync.Mutex
	until time.Time // no request before this: the last 429 or 503 asked so
	after uint64    // of requests that arrived after that answer was written (arrival order)
	asked string    // what asked it, for the message
}

// seen is one request as the rules see it.
type seen struct {
	r         *http.Request
	e         *JournalEntry
	body      []byte // the body as read; whole is false when it was not read to its end
	whole     bool
	at        time.Time
	answerHdr http.Header
	// The wait of Retry-After is judged on the wall clock and in arrival order: wall is when
	// the request arrived and arrived its place among arrivals; answered is when its answer
	// was written, with answeredAfter requests arrived by then. A request judged after a 429
	// (its handler ran on) but arrived before that 429 was written is not early.
	wall, answered         time.Time
	arrived, answeredAfter uint64
}

// finding is one request that broke one rule.
type finding struct{ rule, message string }

// judgeRequest returns the rules a request broke, and notes a Retry-After it was answered.
func (j *judge) judgeRequest(s seen) []finding {
	var out []finding
	add := func(rule, format string, args ...any) {
		out = append(out, finding{rule: rule, message: j.mask.mask(fmt.Sprintf(format, args...))})
	}
	e, r := s.e, s.r
	where := e.Method + " " + e.Path
	if e.Query != "" {
		where += "?" + e.Query
	}
	op, known := j.facts.ByID[e.Operation]
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if !known && !preflight && r.URL.Path != "/openapi.yaml" {
		add(RuleDocumentedPaths, "%s matches no operation of the interface (answered %d)", where, e.Status)
	}
	j.judgeKey(s, known && op.Secured, where, add)
	j.judgeRetry(s, where, add)
	if !known {
		return out
	}
	if op.Deprecated && !op.Sunset.IsZero() {
		day := op.Sunset.Format(time.DateOnly)
		if op.Gone(s.at) {
			add(RuleRemovedOp, "%s: %s was removed on %s and called on %s; use %s", where, op.ID, day, s.at.Format(time.DateOnly), core.Replacement(op))
		} else {
			add(RuleDeprecatedOp, "%s: %s is deprecated and is removed on %s; use %s", where, op.ID, day, core.Replacement(op))
		}
	}
	switch op.ID {
	case spec.OpList:
		j.judgeQuery(r.URL.RawQuery, where, add)
	case spec.OpCreate:
		if e.Status != http.StatusUnauthorized { // answered before the body was read
			j.judgeBody(s, where, add)
		}
	}
	return out
}

// judgeKey: the key as a bearer token in Authorization, and nowhere else.
func (j *judge) judgeKey(s seen, secured bool, where string, add func(string, string, ...any)) {
	r := s.r
	auth := r.Header.Values("Authorization")
	switch {
	case secured && len(auth) == 0:
		add(RuleAuthBearer, "%s sent no Authorization header", where)
	case len(auth) > 1:
		add(RuleAuthBearer, "%s sent %d Authorization fields", where, len(auth))
	case len(auth) == 1:
		scheme, token, _ := strings.Cut(auth[0], " ")
		if !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
			add(RuleAuthBearer, "%s sent Authorization: %s <...>, not Bearer <key>", where, firstWord(auth[0]))
		}
	}
	if q := r.URL.RawQuery; q != "" && j.mask.query(q) != q {
		add(RuleAuthBearer, "%s sent the key in the query string", where)
	}
	for name, vs := range r.Header {
		if name == "Authorization" {
			continue
		}
		for _, v := range vs {
			if j.mask.value(v) != v {
				add(RuleAuthBearer, "%s sent the key in the %s header", where, name)
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
func (j *judge) judgeRetry(s seen, where string, add func(string, string, ...any)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s.arrived > j.after && s.wall.Before(j.until) {
		add(RuleRetryAfter, "%s came %s before the end of the wait that %s asked for", where,
			j.until.Sub(s.wall).Round(time.Millisecond), j.asked)
	}
	if s.e.Status != http.StatusTooManyRequests && s.e.Status != http.StatusServiceUnavailable {
		return
	}
	v := s.answerHdr.Get("Retry-After")
	d := time.Duration(0)
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(s.at)
	}
	if until := s.answered.Add(d); d > 0 && until.After(j.until) {
		j.until, j.after, j.asked = until, s.answeredAfter, fmt.Sprintf("the %d to %s (Retry-After: %s)", s.e.Status, where, v)
	}
}

// judgeQuery: limit and status as section 4.1 and the spec's facts allow them.
func (j *judge) judgeQuery(rawQuery string, where string, add func(string, string, ...any)) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return
	}
	if vs, ok := q["limit"]; ok {
		n, err := strconv.ParseInt(vs[0], 10, 64)
		if len(vs) > 1 || err != nil || n < j.facts.Limit.Min || n > j.facts.Limit.Max {
			add(RuleLimitInBounds, "%s: limit %s is not one integer from %d to %d", where, strings.Join(vs, ", "), j.facts.Limit.Min, j.facts.Limit.Max)
		}
	}
	if vs, ok := q["status"]; ok {
		if len(vs) > 1 || !slices.Contains(j.facts.Statuses, vs[0]) {
			add(RuleStatusInEnum, "%s: status %s is not one of %s", where, strings.Join(vs, ", "), strings.Join(j.facts.Statuses, ", "))
		}
	}
}

// judgeBody: the media type, and the body read whole decoded and validated as NewPet.
func (j *judge) judgeBody(s seen, where string, add func(string, string, ...any)) {
	ct := s.r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		add(RuleJSONBody, "%s: Content-Type %q, not application/json", where, ct)
		return
	}
	if !s.whole {
		return
	}
	p, err := core.DecodeNewPet(s.body)
	if err == nil {
		err = core.ValidateNewPet(p, j.facts.Statuses, core.StatusRequired(j.facts))
	}
	if err != nil {
		msg := err.Error()
		if e, ok := err.(*core.Error); ok {
			msg = e.Message
		}
		add(RuleJSONBody, "%s: the body is not a valid NewPet: %s", where, msg)
	}
}

package proxy

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/petstore/petstore/conformance/coverage"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/clientrules"
	"github.com/petstore/petstore/internal/level"
	"github.com/petstore/petstore/spec"
)

// maxFindings caps the findings a Summary keeps, so that a proxy left running for days holds
// bounded memory; the counters keep counting past it.
const maxFindings = 1000

// Finding is one violation seen in one exchange: the spec's Violation plus the exchange it
// came from, so that a line names both what broke and which call broke it.
type Finding struct {
	spec.Violation
	Exchange string `json:"exchange"` // "GET /v1/pets?limit=2 -> 200", the API key masked
	// ClientRule is the client rule a request's violation breaks (internal/clientrules, the
	// rules the reference's test double judges a client by, with ID, section and level); nil
	// for a response's violation, one no client rule names, or another description's.
	ClientRule *clientrules.Rule `json:"clientRule,omitempty"`
	// Kind is "" for a violation of the description (or of what the document says of an
	// answer), KindClientRule for a client rule the judge of a client's requests
	// (clientrules.Judge) found broken: then ClientRule is that rule, Direction "request",
	// Operation the request's ("" for none), Message the judge's, and Pointer and Location
	// are empty.
	Kind string `json:"kind,omitempty"`
}

// KindClientRule is the Kind of a client rule's finding.
const KindClientRule = "client-rule"

// String is the line the proxy logs and check-har prints, for example
//
//	violation: listPets response at body/0/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required) [GET /v1/pets -> 200]
//	client rule: client/deprecated-operation (ADVISORY, section 4.3; 9.3): GET /v1/pets/1: getPet is deprecated and is removed on 2030-12-05; use listPets [GET /v1/pets/1 -> 200]
func (f Finding) String() string {
	prefix := "violation: "
	if f.Kind == KindClientRule {
		prefix = "client rule: "
	}
	return prefix + f.what() + " [" + f.Exchange + "]"
}

// what is what broke, without the exchange.
func (f Finding) what() string {
	if f.Kind != KindClientRule {
		return f.Violation.String()
	}
	return fmt.Sprintf("%s (%s, section %s): %s", f.ClientRule.ID, f.ClientRule.Level, f.ClientRule.Section, f.Message)
}

// Fails reports whether the finding fails the exchange (--fail-on-violation) and the
// session (a non-zero exit): a violation of the description, or a MUST client rule broken.
// A SHOULD or ADVISORY client rule's finding is reported and counted, never failed.
func (f Finding) Fails() bool {
	return f.Kind != KindClientRule || f.ClientRule.Level == level.Must
}

// Summary is what the traffic seen so far shows: how much was checked, what broke, and which
// part of the description it exercised. The proxy serves it at /__conformance/report and
// CheckHAR returns it.
type Summary struct {
	// BasePath is the description's base path; only exchanges under it are checked.
	BasePath string `json:"basePath"`
	// Checked counts exchanges under the base path that were validated.
	Checked int `json:"checked"`
	// Ignored counts what is not an API call: exchanges outside the base path and CORS
	// preflights, and in a HAR file also other hosts (OnlyHost), non-HTTP URLs and entries
	// without a response.
	Ignored int `json:"ignored"`
	// Incomplete counts exchanges whose body was over the size cap or not recorded: routed
	// and counted in coverage, but their bodies (and, for a response, its status) unchecked.
	Incomplete int `json:"incomplete"`
	// UpstreamErrors counts requests the upstream never answered (the proxy answered 502).
	UpstreamErrors int `json:"upstreamErrors"`
	// Violations counts every violation, ViolationsByOperation per operationId ("-": no
	// operation matched).
	Violations            int            `json:"violations"`
	ViolationsByOperation map[string]int `json:"violationsByOperation"`
	// ClientFindings counts the client rules' findings (Kind KindClientRule) per level
	// ("MUST", "SHOULD", "ADVISORY"); Violations does not count them.
	ClientFindings map[string]int `json:"clientFindings,omitempty"`
	// Findings are the first violations and client rules' findings, in the order seen (at
	// most 1000).
	Findings []Finding `json:"findings"`
	Coverage Coverage  `json:"coverage"`
}

// Fails reports whether the traffic failed: a violation of the description, or a MUST
// client rule broken (Finding.Fails).
func (s Summary) Fails() bool {
	return s.Violations > 0 || s.ClientFindings[level.Must.String()] > 0
}

// Reported counts every finding, listed in Findings or past its cap.
func (s Summary) Reported() int {
	n := s.Violations
	for _, k := range s.ClientFindings {
		n += k
	}
	return n
}

// exchange is one request and its response, with bodies as far as they were kept.
type exchange struct {
	req          *http.Request // its URL path starts with the base path
	reqBody      []byte
	reqComplete  bool // false: the body went over the cap and was not validated
	status       int
	header       http.Header
	respBody     []byte
	respComplete bool
	// When the request came (wall) and its place among the arrivals (arrived), when its
	// answer came (answered) and how many requests had arrived by then (answeredAfter): the
	// clock of the judge's Retry-After. untimed: not known (a HAR entry without
	// startedDateTime), and the wait is not judged.
	wall, answered         time.Time
	arrived, answeredAfter uint64
	untimed                bool
}

// checker validates exchanges and keeps the Summary. The proxy and CheckHAR share it, so that
// both give the same lines for the same traffic. It is safe for concurrent use.
type checker struct {
	v *spec.Validator
	// facts are the pet store's facts of the description, which the shared judge reads; nil
	// when the description lacks them (not the pet store's), and then only its own
	// validation applies.
	facts   *spec.Facts
	rules   []clientrules.Rule // the client rules, when facts are the pet store's
	judge   *clientrules.Judge // of the client's requests, when facts are the pet store's
	base    string
	secrets *secrets

	mu  sync.Mutex
	sum Summary
	cov *coverage.Tracker
}

func newChecker(doc *openapi3.T, sec *secrets) (*checker, error) {
	if doc == nil {
		var err error
		if doc, err = spec.Load(); err != nil {
			return nil, err
		}
	}
	facts, err := spec.ReadFacts(doc)
	if err != nil {
		facts = nil // another description: validated, not judged by the pet store's rules
	}
	var v *spec.Validator
	if facts != nil {
		v = facts.Validator
	} else if v, err = spec.NewValidator(doc); err != nil {
		return nil, err
	}
	base, err := spec.BasePath(doc)
	if err != nil {
		return nil, err
	}
	cov, err := coverage.New(doc)
	if err != nil {
		return nil, err
	}
	c := &checker{v: v, facts: facts, base: base, secrets: sec, cov: cov,
		sum: Summary{BasePath: base, ViolationsByOperation: map[string]int{}}}
	if facts != nil {
		c.rules = clientrules.Rules(facts)
		// The wall clock (Options.Wall nil) times the waits; the body is the description's
		// to judge (its violations name client/json-body), so NewPet is nil.
		c.judge = clientrules.New(facts, clientrules.Options{Mask: sec.scrub, Value: sec.keyValue, Query: sec.keyQuery})
	}
	return c, nil
}

// inScope reports whether req is an API call to check: under the base path, and not a CORS
// preflight (which a browser sends on its own and the description does not document).
func (c *checker) inScope(req *http.Request) bool {
	p := req.URL.Path
	if p != c.base && !strings.HasPrefix(p, c.base+"/") {
		return false
	}
	return req.Method != http.MethodOptions || req.Header.Get("Access-Control-Request-Method") == ""
}

func (c *checker) ignore() {
	c.mu.Lock()
	c.sum.Ignored++
	c.mu.Unlock()
}

func (c *checker) upstreamError() {
	c.mu.Lock()
	c.sum.UpstreamErrors++
	c.mu.Unlock()
}

// check validates ex, judges its request by the client rules, and returns its findings.
//
// A request that breaks the description is not held against the exchange when the upstream
// rejected it with a 4xx status the operation documents: that is the description's own
// answer to a bad request (no API key and 401, limit=500 and 400), which client test suites
// send on purpose. Accepted, or answered otherwise, it is a finding. The judge's finding of a
// client rule that one of the request's violations names (clientrules.RuleOf) is left out:
// the violation reports it, or, forgiven, forgives it.
func (c *checker) check(ex exchange) []Finding {
	name := exchangeName(ex.req, ex.status)
	sent := ex.req
	ex.req = decodedPath(ex.req)
	var vs, reqVs []spec.Violation
	op := ""
	route, _, routeErr := c.v.Route(ex.req)
	switch {
	case routeErr != nil:
		vs = c.v.ValidateRequest(ex.req, ex.reqBody) // the one "no operation matches" violation
		reqVs = vs
	default:
		op = route.Operation.OperationID
		if ex.reqComplete {
			reqVs = c.v.ValidateRequest(ex.req, ex.reqBody)
		}
		documented := route.Operation.Responses.Status(ex.status) != nil
		refused := ex.status >= 400 && ex.status < 500
		// The answer to a request the description refuses, with a status it does not
		// document (415 to a text/plain body, 413 to a large one), is one the document
		// leaves open (READINGS.md, OPEN): it only has to be an Error record, as run
		// judges it.
		open := refused && !documented && len(reqVs) > 0 && c.facts != nil
		switch {
		case open:
			vs = c.judgedAs(route, judge.ErrorRecord(c.facts, ex.status, ex.header, ex.respBody, false))
		case ex.respComplete:
			vs = c.v.ValidateResponse(ex.req, ex.status, ex.header, ex.respBody)
		default:
			vs = c.v.ValidateResponseHead(ex.req, ex.status, ex.header) // status and media type still count
		}
		if ex.respComplete && c.facts != nil && !open {
			vs = append(vs, c.judged(route, ex)...)
		}
		if !(refused && (documented || c.facts != nil)) {
			vs = append(reqVs, vs...)
		}
	}
	out := make([]Finding, 0, len(vs))
	for _, v := range vs {
		v.Message = c.secrets.scrub(v.Message)
		v.Location = c.secrets.scrub(v.Location)
		out = append(out, Finding{Violation: v, Exchange: c.secrets.scrub(name), ClientRule: c.clientRule(v)})
	}
	out = append(out, c.judgeClient(sent, op, ex, reqVs, name)...)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.sum.Checked++
	if !ex.reqComplete || !ex.respComplete {
		c.sum.Incomplete++
	}
	if routeErr == nil {
		recordCoverage(c.cov, route.Operation.OperationID, ex)
	}
	for _, f := range out {
		if f.Kind == KindClientRule {
			if c.sum.ClientFindings == nil {
				c.sum.ClientFindings = map[string]int{}
			}
			c.sum.ClientFindings[f.ClientRule.Level.String()]++
		} else {
			c.sum.Violations++
			c.sum.ViolationsByOperation[cmp.Or(f.Operation, "-")]++
		}
		if len(c.sum.Findings) < maxFindings {
			c.sum.Findings = append(c.sum.Findings, f)
		}
	}
	return out
}

// clientRule is the client rule v breaks, or nil.
func (c *checker) clientRule(v spec.Violation) *clientrules.Rule {
	if c.facts == nil {
		return nil
	}
	if r, ok := clientrules.Find(c.rules, clientrules.RuleOf(v)); ok {
		return &r
	}
	return nil
}

// judgeClient runs the judge of a client's requests on ex's request as the client sent it
// (routed to op, "" for none), and returns its findings but those of a rule one of reqVs, the
// request's violations of the description, names.
func (c *checker) judgeClient(sent *http.Request, op string, ex exchange, reqVs []spec.Violation, name string) []Finding {
	if c.judge == nil {
		return nil
	}
	var out []Finding
	for _, f := range c.judge.Judge(c.clientRequest(sent, op, ex)) {
		if slices.ContainsFunc(reqVs, func(v spec.Violation) bool { return clientrules.RuleOf(v) == f.Rule }) {
			continue
		}
		rule, ok := clientrules.Find(c.rules, f.Rule)
		if !ok {
			continue // cannot be: the judge judges by these rules
		}
		out = append(out, Finding{Violation: spec.Violation{Operation: op, Direction: spec.Request, Message: f.Message},
			Exchange: c.secrets.scrub(name), ClientRule: &rule, Kind: KindClientRule})
	}
	return out
}

// clientRequest is ex's request as the judge sees it. The wait its answer asks for is noted
// once the answer is sent (answerSent): the proxy may answer 502 in its place.
func (c *checker) clientRequest(sent *http.Request, op string, ex exchange) clientrules.Request {
	rq := clientrules.Request{R: c.secrets.judged(sent), Method: sent.Method,
		Path: c.secrets.scrub(sent.URL.EscapedPath()), Query: c.secrets.query(maskQuery(sent.URL.RawQuery)), Operation: op,
		Status: ex.status, AnswerHeader: ex.header, Body: ex.reqBody, Whole: ex.reqComplete,
		At: ex.wall, Wall: ex.wall, Arrived: ex.arrived, Answered: ex.answered, AnsweredAfter: ex.answeredAfter, AnswerLater: true}
	if ex.untimed {
		// Arrived 0 is never after a wait, and an answer without Retry-After asks none.
		rq.At, rq.Arrived, rq.AnswerHeader = c.judge.Wall(), 0, ex.header.Clone()
		rq.AnswerHeader.Del("Retry-After")
	}
	return rq
}

// answerSent tells the judge that ex's answer, as checked, reached the client: the wait a 429
// or 503 asks for holds from then on (client/retry-after).
func (c *checker) answerSent(ex exchange) {
	if c.judge != nil {
		c.judge.AnswerSent(c.clientRequest(ex.req, "", ex))
	}
}

// judged are the shared judge's findings on a complete response (conformance/judge): the
// Error record's status field (its shape is the description's to judge), and a listing's
// animals against what its request asked (section 4.1: at most the limit, the default when
// there is none; only the filtered status).
func (c *checker) judged(route *routers.Route, ex exchange) []spec.Violation {
	fs := judge.ErrorRecord(c.facts, ex.status, ex.header, ex.respBody, true)
	if route.Operation.OperationID == spec.OpList && ex.status/100 == 2 {
		var pets []map[string]any
		dec := json.NewDecoder(bytes.NewReader(ex.respBody))
		dec.UseNumber()
		if dec.Decode(&pets) == nil { // another shape is the description's to judge
			fs = append(fs, judge.ListingAsked(c.facts, ex.req.URL.RawQuery).Judge(pets)...)
		}
	}
	return c.judgedAs(route, fs)
}

// judgedAs words the judge's findings as the proxy's violations of route's operation.
func (c *checker) judgedAs(route *routers.Route, fs []report.Failure) []spec.Violation {
	out := make([]spec.Violation, len(fs))
	for i, f := range fs {
		msg := f.Message
		if f.Expected != "" && !f.SaysExpectedAndActual() {
			msg += fmt.Sprintf(": want %s, got %s", f.Expected, f.Actual)
		}
		out[i] = spec.Violation{Operation: route.Operation.OperationID, Direction: spec.Response, Message: msg,
			Pointer: cmp.Or(f.Pointer, spec.OperationPointer(route)), Location: cmp.Or(f.Location, "body")}
	}
	return out
}

// summary returns a copy of the Summary so far.
func (c *checker) summary() Summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sum
	s.ViolationsByOperation = make(map[string]int, len(c.sum.ViolationsByOperation))
	for k, n := range c.sum.ViolationsByOperation {
		s.ViolationsByOperation[k] = n
	}
	s.ClientFindings = maps.Clone(c.sum.ClientFindings)
	s.Findings = append([]Finding(nil), c.sum.Findings...)
	s.Coverage = c.cov.Snapshot()
	return s
}

// exchangeName is "METHOD path?query -> status", the request's target as the client wrote it
// relative to the host, with secret query parameters masked.
func exchangeName(req *http.Request, status int) string {
	target := req.URL.EscapedPath()
	if req.URL.RawQuery != "" {
		target += "?" + maskQuery(req.URL.RawQuery)
	}
	return fmt.Sprintf("%s %s -> %d", req.Method, target, status)
}

// decodedPath is req with its path as the server reads it: percent-encoded octets that need
// no encoding ("/v1/pets/%31") decoded, RFC 3986 6.2.2.2 making it the same path. An
// encoded slash stays encoded: decoding it would make another path.
func decodedPath(req *http.Request) *http.Request {
	if req.URL.RawPath == "" || strings.Contains(strings.ToLower(req.URL.RawPath), "%2f") {
		return req
	}
	r := req.Clone(req.Context())
	r.URL.RawPath = ""
	return r
}

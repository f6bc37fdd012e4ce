package exchange

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/petstore/petstore/conformance/anatomy"
	"github.com/petstore/petstore/spec"
)

// The guard is the harness's promise about data, kept at the one door every request passes:
// a request that may change or remove state goes only to animals this run created, whatever
// operations the spec grows and whichever rule or case built it; a read-only run sends only
// GET and HEAD, which no server, however faulty, could take as an instruction to change
// anything (RFC 9110 9.2.1).

// NotSentError is Do's error for a request the guard kept from the target.
type NotSentError struct{ Reason string }

func (e *NotSentError) Error() string { return "not sent: " + e.Reason }

// ErrNotSent matches every NotSentError with errors.Is.
var ErrNotSent = errors.New("not sent")

// Is makes errors.Is(err, ErrNotSent) hold.
func (e *NotSentError) Is(target error) bool { return target == ErrNotSent }

// owned is the set of animals the session created: ids from the 2xx answers to the create
// operation, in the order they were created, and which of them are gone again.
type owned struct {
	mu      sync.Mutex
	ids     map[string]bool // id → still there (false once removed)
	order   []string
	removed int
}

func (o *owned) add(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[string]bool{}
	}
	if _, ok := o.ids[id]; !ok {
		o.order = append(o.order, id)
	}
	o.ids[id] = true
}

func (o *owned) has(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.ids[id]
	return ok
}

// Owned are the ids of the animals this session created that it has not removed, oldest first.
func (s *Session) Owned() []string {
	s.owned.mu.Lock()
	defer s.owned.mu.Unlock()
	var out []string
	for _, id := range s.owned.order {
		if s.owned.ids[id] {
			out = append(out, id)
		}
	}
	return out
}

// Removed counts the animals of the session's own that a 2xx answer to a DELETE of them (or a
// later 404) showed gone.
func (s *Session) Removed() int {
	s.owned.mu.Lock()
	defer s.owned.mu.Unlock()
	return s.owned.removed
}

// noteOwned keeps track of the animals the session creates and removes: the id of a 2xx
// answer to the create operation, and a DELETE of one of them answered 2xx or 404.
func (s *Session) noteOwned(req *http.Request, rt *routed, status int, body []byte) {
	if rt.Err != nil || rt.Route == nil {
		return
	}
	switch op := rt.Route.Operation.OperationID; {
	case op == spec.OpCreate && status/100 == 2:
		var pet struct {
			ID json.Number `json:"id"`
		}
		if json.Unmarshal(body, &pet) == nil {
			if id, ok := animalIn(pet.ID.String()); ok && id == pet.ID.String() {
				s.owned.add(id)
			}
		}
	case req.Method == http.MethodDelete && (status/100 == 2 || status == http.StatusNotFound):
		s.owned.mu.Lock()
		defer s.owned.mu.Unlock()
		for _, v := range rt.Params {
			if id, ok := animalIn(v); ok && s.owned.ids[id] {
				s.owned.ids[id] = false
				s.owned.removed++
			}
		}
	}
}

// permit says why req may not go to the target, or nil. GET and HEAD always go. In a
// read-only run nothing else does. Otherwise a request of another method goes when it is
// the create operation (the run's budget caps those), or when every path segment that
// could name an animal names one the run created or none that can exist; a request that
// would act on a collection (DELETE /pets, PUT /pets) never goes.
func (s *Session) permit(req *http.Request, rt *routed) error {
	if rawOf(req) != nil && !slices.Contains(rawMethods, req.Method) {
		// The target may read such a request's framing otherwise than the harness wrote it:
		// it must be one that changes nothing, whatever it is taken for.
		return &NotSentError{fmt.Sprintf("%s: a request in a wire form of its own is sent only as GET or HEAD", req.Method)}
	}
	if rawOf(req) != nil && s.proxied(req) {
		// Written byte for byte on a connection of its own, it would bypass the proxy the
		// other requests take (and a proxy would write it again in its own form).
		return &NotSentError{"a request in a wire form of its own needs a direct connection to the target, and the environment (HTTP_PROXY, HTTPS_PROXY) sends requests through a proxy"}
	}
	for _, m := range overrides(req) {
		// A stack that honours a method override acts as that method: the request goes only
		// where that method may go.
		if err := s.permitAs(m, req, rt); err != nil {
			return &NotSentError{fmt.Sprintf("%s (a method override names %s, which a stack may act on)", err.(*NotSentError).Reason, m)}
		}
	}
	return s.permitAs(req.Method, req, rt)
}

// overrideFields and overrideParams are the header fields and query parameters by which
// common stacks let a request name another method than its own: the anatomy's.
var overrideFields, overrideParams = anatomy.MethodOverrides()

// overrides are the methods req names besides its own, in upper case.
func overrides(req *http.Request) []string {
	var out []string
	for k, vs := range req.Header {
		if slices.ContainsFunc(overrideFields, func(f string) bool { return strings.EqualFold(f, k) }) {
			for _, v := range vs {
				out = append(out, strings.ToUpper(strings.TrimSpace(v)))
			}
		}
	}
	for _, kv := range strings.Split(req.URL.RawQuery, "&") {
		if name, v, ok := strings.Cut(kv, "="); ok && slices.ContainsFunc(overrideParams, func(p string) bool { return strings.EqualFold(p, name) }) {
			if d, err := url.QueryUnescape(v); err == nil {
				v = d
			}
			out = append(out, strings.ToUpper(v))
		}
	}
	return out
}

// permitAs is permit for a request acting as method.
func (s *Session) permitAs(method string, req *http.Request, rt *routed) error {
	if method == http.MethodGet || method == http.MethodHead {
		return nil
	}
	if s.readOnly {
		return &NotSentError{fmt.Sprintf("%s: the run is read-only and sends only GET and HEAD", method)}
	}
	if method == http.MethodOptions {
		return nil // safe (RFC 9110 9.2.1): it asks what the resource allows
	}
	if method != req.Method {
		// An override: the route found is the request's own method's, so the ids are read
		// from the path as for a route the spec does not have.
		return s.permitPath(method, req, rt, true)
	}
	return s.permitPath(method, req, rt, false)
}

// permitPath lets method go when it is the create operation (the run's budget caps those),
// or when every path segment that could name an animal names one the run created or none
// that can exist.
func (s *Session) permitPath(method string, req *http.Request, rt *routed, bySegments bool) error {
	if !bySegments && rt.Err == nil && rt.Route != nil && rt.Route.Operation.OperationID == spec.OpCreate {
		return nil
	}
	var values []string
	if !bySegments && rt.Err == nil && rt.Route != nil {
		for _, v := range rt.Params {
			values = append(values, v)
		}
	} else {
		// A route the spec does not have: every segment below the base path may be an id.
		rest := strings.TrimPrefix(rt.vreq.URL.Path, s.specBase)
		for _, seg := range strings.Split(strings.Trim(rest, "/"), "/") {
			if seg != "" && !s.staticSegments[seg] {
				values = append(values, seg)
			}
		}
	}
	if len(values) == 0 {
		return &NotSentError{fmt.Sprintf("%s %s would act on a collection, which holds animals this run did not create", method, rt.vreq.URL.Path)}
	}
	slices.Sort(values)
	for _, v := range values {
		if id, ok := animalIn(v); ok && !s.owned.has(id) {
			return &NotSentError{fmt.Sprintf("%s %s would act on animal %s, which this run did not create", method, rt.vreq.URL.Path, id)}
		}
	}
	for _, v := range s.namedBesidesPath(req) {
		if id, ok := animalIn(v); ok && !s.owned.has(id) {
			return &NotSentError{fmt.Sprintf("%s %s names animal %s in its query or body, which this run did not create", method, rt.vreq.URL.Path, id)}
		}
	}
	return nil
}

// namedBesidesPath are the values outside the path that a server could read an animal from:
// every run of digits in the query string (its own parameters; not the base URL's, which go
// on every request), decoded, and every member named "id" (any case, at any depth) of a
// JSON body, as a server that upserts by the body's id would. A request whose body cannot be
// read again names "0" and so is not sent.
func (s *Session) namedBesidesPath(req *http.Request) []string {
	var out []string
	q := strings.TrimPrefix(req.URL.RawQuery, s.base.RawQuery)
	if d, err := url.QueryUnescape(strings.ReplaceAll(q, "+", " ")); err == nil {
		q = d
	}
	out = append(out, digitRuns.FindAllString(q, -1)...)
	if req.Body == nil || req.Body == http.NoBody {
		return out
	}
	if req.GetBody == nil {
		return append(out, "0")
	}
	rc, err := req.GetBody()
	if err != nil {
		return append(out, "0")
	}
	defer rc.Close()
	var v any
	dec := json.NewDecoder(rc)
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return out
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, m := range v {
				if strings.EqualFold(k, "id") {
					out = append(out, fmt.Sprint(m))
				}
				walk(m)
			}
		case []any:
			for _, m := range v {
				walk(m)
			}
		}
	}
	walk(v)
	return out
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

// animalIn is the animal a lenient server could read from a path value: its first run of
// digits, as an int64 ("1.5", " 1", "1abc" and "01" all name animal 1 to a parser that stops
// at the first non-digit or trims). A value with no digits, or digits beyond int64, names
// none.
func animalIn(v string) (string, bool) {
	i := strings.IndexAny(v, "0123456789")
	if i < 0 {
		// Digits of another script ("١", U+0661): a lenient parser (Python's int, say) reads
		// them as a number, which names an animal whatever the run created.
		if strings.IndexFunc(v, unicode.IsDigit) >= 0 {
			return v, true
		}
		return "", false
	}
	j := i
	for j < len(v) && v[j] >= '0' && v[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(v[i:j], 10, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// staticSegmentsOf are the literal segments of the spec's paths ("pets"), which name
// collections, not animals.
func staticSegmentsOf(f *spec.Facts) map[string]bool {
	out := map[string]bool{}
	for _, op := range f.Ops {
		for _, seg := range strings.Split(strings.Trim(op.Path, "/"), "/") {
			if seg != "" && !strings.HasPrefix(seg, "{") {
				out[seg] = true
			}
		}
	}
	return out
}

// proxied says the session's client sends req through a proxy (the environment's
// HTTP_PROXY or HTTPS_PROXY, or a transport of the caller's).
func (s *Session) proxied(req *http.Request) bool {
	tr, ok := s.client.Transport.(*http.Transport)
	if !ok || tr.Proxy == nil {
		return false
	}
	u, err := tr.Proxy(req)
	return err == nil && u != nil
}

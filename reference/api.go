package reference

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/gorilla/handlers"

	"github.com/petstore/petstore/spec"
)

// api serves the operations of the spec. It does by hand what openapi3filter.Validator's
// middleware does, for three reasons: the route found once also selects the handler (by
// operationId), every failure goes through writeError, and a replaced response does not
// carry the headers the handler had set.
type api struct {
	route    func(*http.Request) (*routers.Route, map[string]string, error) // the facts' router
	ops      map[string]http.Handler                                        // by operationId, each behind panic recovery
	plans    map[string]*plan                                               // by operationId (fastpath.go)
	methods  []string                                                       // every method the spec uses, for Allow
	opts     *openapi3filter.Options
	ew       *errorWriter
	log      *log.Logger
	keys     *keySet
	validate bool
	lenient  bool
	maxBody  int64
	facts    map[string]opFacts // by operationId, read from the spec once
	now      func() time.Time
	chosen   *scenarios // Prefer honoured (Config.Double.Scenarios); nil: ignored
	// exact holds, by path and method, the routes of the paths without parameters.
	exact map[string]map[string]*routers.Route
}

// opFacts is what every request of an operation needs from the spec, worked out at start.
type opFacts struct {
	op spec.Operation // Secured says whether the request needs a valid key
	// deprecation holds the Deprecation and Sunset headers every answer of a deprecated
	// operation carries (errors included) until it is gone.
	deprecation map[string]string
}

// operationFacts works out each operation's security and, for a deprecated one, its
// Deprecation (RFC 9745) and Sunset (RFC 8594) values.
func operationFacts(ops []spec.Operation) map[string]opFacts {
	out := map[string]opFacts{}
	for _, op := range ops {
		if !op.Deprecated {
			out[op.ID] = opFacts{op: op}
			continue
		}
		h := map[string]string{}
		if !op.DeprecatedSince.IsZero() {
			h["Deprecation"] = "@" + strconv.FormatInt(op.DeprecatedSince.Unix(), 10)
		}
		if !op.Sunset.IsZero() {
			h["Sunset"] = op.Sunset.UTC().Format(http.TimeFormat)
		}
		out[op.ID] = opFacts{op: op, deprecation: h}
	}
	return out
}

// newAPI serves the operations; prevalidated says that the store validates each animal's
// encoding when it is stored (store.check), so that responses made of stored animals need
// not be validated again.
func newAPI(facts *spec.Facts, handlersByID map[string]http.Handler, keys *keySet,
	ew *errorWriter, logger *log.Logger, cfg Config, prevalidated bool) (*api, error) {
	plans, err := newPlans(facts, prevalidated)
	if err != nil {
		return nil, err
	}
	a := &api{
		facts:    operationFacts(facts.Ops),
		now:      cfg.Now,
		plans:    plans,
		route:    facts.Validator.Route, // on the base path alone: the servers are other hosts
		ops:      map[string]http.Handler{},
		ew:       ew,
		log:      logger,
		keys:     keys,
		validate: !cfg.NoValidation,
		lenient:  cfg.Lenient,
		maxBody:  cfg.MaxBodyBytes,
		opts: &openapi3filter.Options{
			AuthenticationFunc:    keys.authenticate,
			IncludeResponseStatus: true,
			// The handlers read the default limit from the spec themselves; letting the
			// validator rewrite the query (and re-encode bodies) would be wasted work.
			SkipSettingDefaults: true,
		},
	}
	// The default message appends the whole schema and value; one line is enough for a client.
	if cfg.Double.Scenarios {
		a.chosen = &scenarios{sleep: cfg.Double.Sleep, ew: ew}
	}
	a.opts.WithCustomSchemaErrorFunc(func(err *openapi3.SchemaError) string {
		if ptr := err.JSONPointer(); len(ptr) > 0 {
			return fmt.Sprintf("at %q: %s", "/"+strings.Join(ptr, "/"), err.Reason)
		}
		return err.Reason
	})
	recovery := handlers.RecoveryHandler(handlers.RecoveryLogger(logger), handlers.PrintRecoveryStack(true))
	for id, h := range handlersByID {
		a.ops[id] = recovery(h)
	}
	for _, op := range facts.Ops {
		if !slices.Contains(a.methods, op.Method) {
			a.methods = append(a.methods, op.Method)
		}
	}
	slices.Sort(a.methods)
	if a.exact, err = exactRoutes(facts.Ops, facts.BasePath, a.route); err != nil {
		return nil, err
	}
	return a, nil
}

// exactRoutes finds, once, the route of every operation whose path has no parameter: for
// such a path the router's answer depends on the method and the path alone.
func exactRoutes(ops []spec.Operation, base string, find func(*http.Request) (*routers.Route, map[string]string, error)) (map[string]map[string]*routers.Route, error) {
	out := map[string]map[string]*routers.Route{}
	for _, op := range ops {
		if strings.Contains(op.Path, "{") {
			continue
		}
		path := base + op.Path
		r, err := http.NewRequest(op.Method, path, nil)
		if err != nil {
			return nil, fmt.Errorf("reference: routing %s %s: %v", op.Method, path, err)
		}
		route, params, err := find(r)
		if err != nil || len(params) > 0 {
			return nil, fmt.Errorf("reference: routing %s %s: %v", op.Method, path, err)
		}
		if out[path] == nil {
			out[path] = map[string]*routers.Route{}
		}
		out[path][op.Method] = route
	}
	return out, nil
}

// findRoute is the router's FindRoute, with the routes of exactRoutes found without it.
func (a *api) findRoute(r *http.Request) (*routers.Route, map[string]string, error) {
	if r.URL.RawPath == "" {
		if route, ok := a.exact[r.URL.Path][r.Method]; ok {
			return route, nil, nil
		}
	}
	return a.route(r)
}

// errPanicked replaces the bare 500 that gorilla's recovery handler writes after a panic.
var errPanicked = newError(http.StatusInternalServerError, CodeInternal, "internal server error (the handler panicked; see the server log)")

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Percent-encoded characters other than "/" mean the character itself (RFC 3986
	// section 6.2.2.2): /v1/pets/%31 is /v1/pets/1, as /%68ealthz is /healthz. A "%2F" keeps
	// the encoded path, so it cannot turn into a separator.
	if r.URL.RawPath != "" && !strings.Contains(strings.ToUpper(r.URL.RawPath), "%2F") {
		r.URL.RawPath = ""
	}
	route, params, err := a.findRoute(r)
	if err != nil {
		if errors.Is(err, routers.ErrMethodNotAllowed) {
			err = &methodNotAllowed{allow: a.allowed(r)}
		}
		a.ew.writeError(w, r, err)
		return
	}
	id := route.Operation.OperationID
	h, p, f := a.ops[id], a.plans[id], a.facts[id]
	if len(f.deprecation) > 0 && !f.op.Gone(a.now()) {
		for k, v := range f.deprecation {
			w.Header().Set(k, v)
		}
	}
	// The key first: a client without one learns nothing else, not even a size limit
	// (section 5.3: a missing or invalid key is answered 401). Checked once per request.
	authorized := f.op.Secured && a.keys.check(r)
	if f.op.Secured && !authorized {
		a.ew.writeError(w, r, errUnauthorized)
		return
	}
	if r.ContentLength > a.maxBody {
		a.ew.writeError(w, r, &http.MaxBytesError{Limit: a.maxBody})
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, a.maxBody)
	}
	for k, v := range params {
		r.SetPathValue(k, v)
	}
	// The precomputed checks (fastpath.go) only ever say "certainly valid"; anything else
	// is validated by kin-openapi, whose answer is the one the client gets.
	if a.validate && !p.requestValid(r, params, authorized) {
		ok := false
		if p.body != nil && r.Body != nil && r.Body != http.NoBody {
			// Read once, here, as ValidateRequest would; the handler (or ValidateRequest)
			// reads the same bytes, and the same error, from the replay.
			body := getReplay()
			defer putReplay(body)
			body.readFrom(r.Body)
			r.Body = body
			ok = body.err == nil && p.bodyValid(r, params, authorized, body.data)
		}
		if !ok {
			in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: a.opts}
			if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
				a.ew.writeError(w, r, err)
				return
			}
		}
	}
	if a.chosen != nil {
		if h, err = a.chosen.apply(w, r, f.op, h); err != nil {
			a.ew.writeError(w, r, err)
			return
		}
	}

	rec := getRecorder()
	defer putRecorder(rec)
	h.ServeHTTP(rec, r)
	if rec.status == http.StatusInternalServerError && rec.body.Len() == 0 {
		rec.reset()
		a.ew.writeError(rec, r, errPanicked)
	}
	if a.validate && !rec.outsideSpec && !p.responseValid(rec) {
		in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: a.opts}
		err := openapi3filter.ValidateResponse(r.Context(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in,
			Status:                 rec.status,
			Header:                 rec.header,
			Body:                   io.NopCloser(bytes.NewReader(rec.body.Bytes())),
			Options:                a.opts,
		})
		if err != nil {
			a.log.Printf("response violates the spec: %s %s -> %d: %v", r.Method, r.URL.Path, rec.status, err)
			if !a.lenient {
				a.ew.writeError(w, r, violated(err))
				return
			}
		}
	}
	rec.flush(w)
}

// allowed lists the methods the spec declares for the request's path, for the Allow header.
func (a *api) allowed(r *http.Request) string {
	var allow []string
	probe := new(http.Request)
	for _, m := range a.methods {
		*probe = *r
		probe.Method = m
		if _, _, err := a.route(probe); err == nil {
			allow = append(allow, m)
		}
	}
	return strings.Join(allow, ", ")
}

// recorder holds a handler's response until it has been validated.
type recorder struct {
	header      http.Header
	status      int
	body        bytes.Buffer
	outsideSpec bool     // an Error for a limit the spec cannot document (see writeError)
	kind        bodyKind // what the body is made of (fastpath.go)
}

var recorders = sync.Pool{New: func() any { return &recorder{header: http.Header{}} }}

func getRecorder() *recorder { return recorders.Get().(*recorder) }

func putRecorder(rec *recorder) {
	rec.reset()
	recorders.Put(rec)
}

func (rec *recorder) reset() {
	clear(rec.header)
	rec.status = 0
	rec.body.Reset()
	rec.outsideSpec = false
	rec.kind = bodyOther
}

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(status int) {
	if rec.status == 0 {
		rec.status = status
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return rec.body.Write(b)
}

func (rec *recorder) flush(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range rec.header {
		h[k] = v
	}
	rec.WriteHeader(http.StatusOK)
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// replayBody is a request body the api has read whole: it gives back the bytes, then the
// error that ended the reading (io.EOF for a body read to its end), as the first reading did.
type replayBody struct {
	data []byte
	off  int
	err  error // nil: the body was read to its end
}

var replays = sync.Pool{New: func() any { return &replayBody{data: make([]byte, 0, 512)} }}

func getReplay() *replayBody { return replays.Get().(*replayBody) }

func putReplay(b *replayBody) {
	if cap(b.data) <= 64<<10 {
		b.data, b.off, b.err = b.data[:0], 0, nil
		replays.Put(b)
	}
}

// readFrom reads r to its end or first error, as io.ReadAll does.
func (b *replayBody) readFrom(r io.Reader) {
	b.data, b.off, b.err = b.data[:0], 0, nil
	for {
		if len(b.data) == cap(b.data) {
			b.data = append(b.data, 0)[:len(b.data)]
		}
		n, err := r.Read(b.data[len(b.data):cap(b.data)])
		b.data = b.data[:len(b.data)+n]
		if err != nil {
			if err != io.EOF {
				b.err = err
			}
			return
		}
	}
}

func (b *replayBody) Read(p []byte) (int, error) {
	if b.off == len(b.data) {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *replayBody) Close() error { return nil }

// readBody returns the request body: the api's replay as it is when nothing has read it yet
// (no copy), else all of r.Body.
func readBody(r *http.Request) ([]byte, error) {
	if b, ok := r.Body.(*replayBody); ok && b.off == 0 {
		return b.data, b.err
	}
	return io.ReadAll(r.Body)
}

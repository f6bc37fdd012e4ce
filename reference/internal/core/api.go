package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/petstore/petstore/spec"
)

// api serves the operations of the spec. It does by hand what openapi3filter.Validator's
// middleware does, for three reasons: the route found once also selects the handler (by
// operationId), every failure goes through writeError, and a replaced response does not
// carry the headers the handler had set.
type API struct {
	Route   func(*http.Request) (*routers.Route, map[string]string, error) // the facts' router
	ops     map[string]Handler                                             // by operationId, each behind panic recovery
	Methods []string                                                       // every method the spec uses, for Allow
	opts    *openapi3filter.Options
	ew      *ErrorWriter
	log     *log.Logger
	keys    *KeySet
	APIOptions
	facts map[string]opFacts // by operationId, read from the spec once
	// exact holds, by path and method, the routes of the paths without parameters.
	Exact map[string]map[string]*routers.Route
	// shortcuts are the fast paths' checks, by operationId (reference/internal/fast); none: noShortcut.
	Shortcuts map[string]Shortcut
	// Choose, when set, may replace an operation's handler once the request has passed its
	// checks (the double's Prefer scenarios); unset, Prefer is ignored (preferIgnored).
	Choose Chooser
	// preferNoted is done once a request asked for a scenario of the double that is off.
	preferNoted sync.Once
}

// apiOptions are the settings of the api from Config.
type APIOptions struct {
	Now      func() time.Time
	Validate bool // request and response validation (Config.NoValidation off)
	Lenient  bool
	MaxBody  int64
}

// A shortcut says, from what was worked out at start, that a request or a response certainly
// passes kin-openapi's validation; false means "ask kin-openapi", never "invalid". The pure
// reference has none (noShortcut); the fast paths plug theirs in (reference/internal/fast).
type Shortcut interface {
	// requestValid: the request, without a body to check, passes. authorized says the
	// request carries a valid key (checked once, keySet.check).
	RequestValid(r *http.Request, pathParams map[string]string, authorized bool) bool
	// checksBody: bodyValid may pass a request body, so it is worth reading it whole first.
	ChecksBody() bool
	// bodyValid is requestValid for a request whose body, read whole, is body.
	BodyValid(r *http.Request, pathParams map[string]string, authorized bool, body []byte) bool
	// responseValid: the recorded response is one that was validated before.
	ResponseValid(rec *Recorder) bool
}

// noShortcut is the pure reference's shortcut: kin-openapi validates everything.
type noShortcut struct{}

func (noShortcut) RequestValid(*http.Request, map[string]string, bool) bool      { return false }
func (noShortcut) ChecksBody() bool                                              { return false }
func (noShortcut) BodyValid(*http.Request, map[string]string, bool, []byte) bool { return false }
func (noShortcut) ResponseValid(*Recorder) bool                                  { return false }

// A chooser returns the handler that answers r in h's place, or an error to answer; w is
// for the headers that say what was chosen.
type Chooser func(w http.ResponseWriter, r *http.Request, op spec.Operation, h Handler) (Handler, error)

// opFacts is what every request of an operation needs from the spec, worked out at start.
type opFacts struct {
	op spec.Operation // Secured says whether the request needs a valid key
	// pathNotFound says that a path parameter the spec refuses is answered 404 (unknownID):
	// the operation documents a 404 and no 400.
	pathNotFound bool
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
			out[op.ID] = opFacts{op: op, pathNotFound: PathNotFound(op)}
			continue
		}
		h := map[string]string{}
		if !op.DeprecatedSince.IsZero() {
			h["Deprecation"] = "@" + strconv.FormatInt(op.DeprecatedSince.Unix(), 10)
		}
		if !op.Sunset.IsZero() {
			h["Sunset"] = op.Sunset.UTC().Format(http.TimeFormat)
		}
		out[op.ID] = opFacts{op: op, pathNotFound: PathNotFound(op), deprecation: h}
	}
	return out
}

// newAPI serves the operations, each with its handler.
func NewAPI(facts *spec.Facts, handlersByID map[string]Handler, keys *KeySet,
	ew *ErrorWriter, logger *log.Logger, o APIOptions) (*API, error) {
	a := &API{
		facts:      operationFacts(facts.Ops),
		APIOptions: o,
		Route:      facts.Validator.Route, // on the base path alone: the servers are other hosts
		ops:        map[string]Handler{},
		ew:         ew,
		log:        logger,
		keys:       keys,
		opts: &openapi3filter.Options{
			AuthenticationFunc:    keys.Authenticate,
			IncludeResponseStatus: true,
			// The handlers read the default limit from the spec themselves; letting the
			// validator rewrite the query (and re-encode bodies) would be wasted work.
			SkipSettingDefaults: true,
		},
	}
	// The default message appends the whole schema and value; one line is enough for a client.
	a.opts.WithCustomSchemaErrorFunc(func(err *openapi3.SchemaError) string {
		if ptr := err.JSONPointer(); len(ptr) > 0 {
			return fmt.Sprintf("at %q: %s", "/"+strings.Join(ptr, "/"), err.Reason)
		}
		return err.Reason
	})
	for id, h := range handlersByID {
		a.ops[id] = recovered(h, logger)
	}
	for _, op := range facts.Ops {
		if !slices.Contains(a.Methods, op.Method) {
			a.Methods = append(a.Methods, op.Method)
		}
	}
	slices.Sort(a.Methods)
	var err error
	if a.Exact, err = exactRoutes(facts.Ops, facts.BasePath, a.Route); err != nil {
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
func (a *API) FindRoute(r *http.Request) (*routers.Route, map[string]string, error) {
	if r.URL.RawPath == "" {
		if route, ok := a.Exact[r.URL.Path][r.Method]; ok {
			return route, nil, nil
		}
	}
	return a.Route(r)
}

// errPanicked replaces the bare 500 that gorilla's recovery handler writes after a panic.
var errPanicked = NewError(http.StatusInternalServerError, CodeInternal, "internal server error (the handler panicked; see the server log)")

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Percent-encoded characters other than "/" mean the character itself (RFC 3986
	// section 6.2.2.2): /v1/pets/%31 is /v1/pets/1, as /%68ealthz is /healthz. A "%2F" keeps
	// the encoded path, so it cannot turn into a separator.
	if r.URL.RawPath != "" && !strings.Contains(strings.ToUpper(r.URL.RawPath), "%2F") {
		r.URL.RawPath = ""
	}
	if r.Method == http.MethodHead {
		// HEAD is GET without content (RFC 9110 9.3.2; 9.1: every general-purpose server
		// supports both): served by the GET operation, and net/http drops the body.
		get := *r
		get.Method = http.MethodGet
		r = &get
	}
	route, params, err := a.FindRoute(r)
	if err != nil {
		if errors.Is(err, routers.ErrMethodNotAllowed) {
			err = &methodNotAllowed{allow: a.allowed(r)}
		}
		a.ew.WriteError(w, r, err)
		return
	}
	id := route.Operation.OperationID
	h, f, sc := a.ops[id], a.facts[id], a.shortcutOf(id)
	if len(f.deprecation) > 0 && !f.op.Gone(a.Now()) {
		for k, v := range f.deprecation {
			w.Header().Set(k, v)
		}
	}
	// The key first: a client without one learns nothing else, not even a size limit
	// (section 5.3: a missing or invalid key is answered 401). Checked once per request.
	authorized := f.op.Secured && a.keys.Check(r)
	if f.op.Secured && !authorized {
		a.ew.WriteError(w, r, ErrUnauthorized)
		return
	}
	if r.ContentLength > a.MaxBody {
		a.ew.WriteError(w, r, &http.MaxBytesError{Limit: a.MaxBody})
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, a.MaxBody)
	}
	for k, v := range params {
		r.SetPathValue(k, v)
	}
	if a.Validate {
		replay, err := a.validateRequest(r, route, params, sc, authorized)
		if replay != nil {
			defer putReplay(replay)
		}
		if err != nil {
			var re *openapi3filter.RequestError
			if f.pathNotFound && errors.As(err, &re) && re.Parameter != nil && re.Parameter.In == openapi3.ParameterInPath {
				err = unknownID(params[re.Parameter.Name])
			}
			a.ew.WriteError(w, r, err)
			return
		}
	}
	if a.Choose != nil {
		if h, err = a.Choose(w, r, f.op, h); err != nil {
			a.ew.WriteError(w, r, err)
			return
		}
	} else {
		a.preferIgnored(r)
	}
	a.answer(w, r, h, route, params, sc)
}

// shortcutOf is the fast paths' shortcut for an operation, or noShortcut.
func (a *API) shortcutOf(id string) Shortcut {
	if sc, ok := a.Shortcuts[id]; ok {
		return sc
	}
	return noShortcut{}
}

// validateRequest validates the request of in; a shortcut only ever says "certainly valid",
// and anything else is validated by kin-openapi, whose answer is the one the client gets.
// replay, when not nil, is the body read whole, to put back once the request is answered.
func (a *API) validateRequest(r *http.Request, route *routers.Route, params map[string]string, sc Shortcut, authorized bool) (replay *replayBody, err error) {
	if sc.RequestValid(r, params, authorized) {
		return nil, nil
	}
	if sc.ChecksBody() && r.Body != nil && r.Body != http.NoBody {
		// Read once, here, as ValidateRequest would; the handler (or ValidateRequest)
		// reads the same bytes, and the same error, from the replay.
		replay = getReplay()
		replay.readFrom(r.Body)
		r.Body = replay
		if replay.err == nil && sc.BodyValid(r, params, authorized, replay.data) {
			return replay, nil
		}
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: a.opts}
	return replay, openapi3filter.ValidateRequest(r.Context(), in)
}

// answer runs h and sends its response once it has been validated: one that breaks the spec
// is logged and, unless lenient, replaced by a 500 Error.
func (a *API) answer(w http.ResponseWriter, r *http.Request, h Handler, route *routers.Route, params map[string]string, sc Shortcut) {
	rec := GetRecorder()
	defer PutRecorder(rec)
	h(rec, r)
	if rec.Status == http.StatusInternalServerError && rec.Body.Len() == 0 {
		rec.reset()
		a.ew.WriteError(rec, r, errPanicked)
	}
	if a.Validate && !rec.OutsideSpec && !sc.ResponseValid(rec) {
		in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: a.opts}
		err := openapi3filter.ValidateResponse(r.Context(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in,
			Status:                 rec.Status,
			Header:                 rec.Headers,
			Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
			Options:                a.opts,
		})
		if err != nil {
			a.log.Printf("response violates the spec: %s %s -> %d: %v", r.Method, r.URL.Path, rec.Status, err)
			if !a.Lenient {
				a.ew.WriteError(w, r, Violated(err))
				return
			}
		}
	}
	rec.flush(w)
}

// allowed lists the methods the spec declares for the request's path, for the Allow header.
func (a *API) allowed(r *http.Request) string {
	var allow []string
	probe := new(http.Request)
	for _, m := range a.Methods {
		*probe = *r
		probe.Method = m
		if _, _, err := a.Route(probe); err == nil {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	return strings.Join(allow, ", ")
}

// recovered is h behind a recovery, as gorilla's RecoveryHandler with its stack printed: a
// panic is logged and leaves a 500 without a body, which answer replaces with an Error.
func recovered(h Handler, logger *log.Logger) Handler {
	return func(rec *Recorder, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				rec.WriteHeader(http.StatusInternalServerError)
				logger.Println(v)
				logger.Println(string(debug.Stack()))
			}
		}()
		h(rec, r)
	}
}

// preferIgnored notes, on a server without the double's scenarios, the first request that
// asks for another answer than its own (Prefer: code=, delay=, fault=, example=): a line
// in the log says how to turn scenarios on, so a client developer is not left to wonder.
func (a *API) preferIgnored(r *http.Request) {
	p := strings.ToLower(strings.Join(r.Header.Values("Prefer"), ","))
	if strings.Contains(p, "code=") || strings.Contains(p, "delay=") || strings.Contains(p, "fault=") || strings.Contains(p, "example=") {
		a.preferNoted.Do(func() {
			a.log.Printf("a request asks for %q in Prefer, which this server ignores: start it with --scenarios (Config.Double.Scenarios) to choose answers", p)
		})
	}
}

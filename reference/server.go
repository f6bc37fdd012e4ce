package reference

import (
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/gorilla/handlers"
	"github.com/oasdiff/yaml"

	"github.com/petstore/petstore/spec"
)

// The assembly: the pure reference (routes.go and below), its fast paths (fast_*.go) plugged
// into it, and the test double (double*.go) around it when Config.Double asks for it. This
// file is the only one that knows all three rooms.

// Defaults for the zero values of Config.
const (
	DefaultMaxBodyBytes = 64 << 10
	DefaultMaxPets      = 1_000_000
)

// NewServer returns the reference server: the spec's operations under its base path
// (spec.BasePath, "/v1"), each request and response validated against the spec, plus
// GET /healthz, GET /openapi.yaml and, when cfg.AdminKey is set, the endpoints under /_admin/.
func NewServer(cfg Config) (http.Handler, error) {
	srv, err := newServer(cfg, nil)
	if err != nil {
		return nil, err
	}
	return srv.handler, nil // not srv: no extra call on the way of every request
}

// New is NewServer with the handles a client's tests use (journal, report, clock, reset).
func New(cfg Config) (*Server, error) { return newServer(cfg, nil) }

// newServer is New with a hook for tests that replace handlers (a deliberately broken one
// shows that response validation catches it).
func newServer(cfg Config, patch func(map[string]http.Handler)) (*Server, error) {
	doc, raw, err := specOf(cfg)
	if err != nil {
		return nil, err
	}
	if err := cfg.complete(); err != nil {
		return nil, err
	}
	keys, err := newKeySet(cfg.APIKeys)
	if err != nil {
		return nil, err
	}
	srv := &Server{} // the store keeps the seed, for reset, as records: not cfg.Seed
	if cfg.AdminKey != "" {
		// Only then can the clock move; otherwise it costs nothing on the way of a request.
		srv.clock = &clock{base: cfg.Now}
		cfg.Now = srv.clock.now
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	logw = &syncWriter{w: logw}
	logger := log.New(logw, "petstore: ", log.LstdFlags)

	facts, err := spec.ReadFacts(doc) // the one reading of the spec; every part below gets these
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	cfg.Seed = ChooseVariations(cfg.Double.Vary).seed(cfg.Seed, facts)
	s, a, err := newFastReference(facts, cfg, keys, logger, patch)
	if err != nil {
		return nil, err
	}
	srv.s, srv.facts = s, facts
	s.ew.noRoute = routeHint(facts, cfg.AdminKey != "")
	ops := srv.addDouble(cfg, a, keys) // the api itself, for the pure reference

	// Outside the spec, for the people who run the server. Matched exactly, before the API:
	// http.ServeMux would answer unclean paths (/v1//pets) with a redirect, not an Error.
	extras := map[string]extraRoute{
		"/healthz": {http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		}},
		"/openapi.yaml": {http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			_, _ = w.Write(withOwnServer(raw, ownBase(r, facts.BasePath)))
		}},
	}
	if cfg.AdminKey != "" {
		if err := srv.adminRoutes(extras, cfg.AdminKey, keys); err != nil {
			return nil, err
		}
	}
	srv.handler = srv.middleware(cfg, withExtras(extras, ops, s.ew), a.methods, logw, logger)
	return srv, nil
}

// complete refuses settings that mean nothing and fills in the defaults.
func (cfg *Config) complete() error {
	if err := checkDouble(&cfg.Double); err != nil {
		return err
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxPets <= 0 {
		cfg.MaxPets = DefaultMaxPets
	}
	if cfg.MaxPets > math.MaxInt32 {
		return fmt.Errorf("reference: MaxPets %d is above the limit %d", cfg.MaxPets, math.MaxInt32)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return nil
}

// newFastReference is the pure reference with its fast paths: the store validates each
// animal once when it is stored, createPet decodes the usual body in one pass, and the api
// takes the precomputed checks' word where they are certain (fast_plan.go).
func newFastReference(facts *spec.Facts, cfg Config, keys *keySet, logger *log.Logger, patch func(map[string]http.Handler)) (*server, *api, error) {
	var check func([]byte) error
	if !cfg.NoValidation && !cfg.Lenient {
		// Each animal's encoding is validated once, when stored; in lenient mode every
		// response is validated instead, so that an off-spec animal is logged each time.
		pet := petCheck(facts.Doc, petSchemas(facts))
		check = func(data []byte) error {
			err := pet(data)
			if err != nil {
				logger.Printf("response violates the spec: %v", err)
			}
			return err
		}
	}
	s, err := newServerState(facts, cfg.Now, cfg.MaxPets, cfg.Seed, check)
	if err != nil {
		return nil, nil, err
	}
	s.ew = &errorWriter{log: logger}
	s.decode = decodeNewPetQuick
	ops, err := s.operations(facts)
	if err != nil {
		return nil, nil, err
	}
	if patch != nil {
		patch(ops)
	}
	a, err := newAPI(facts, ops, keys, s.ew, logger, apiOptions{
		now: cfg.Now, validate: !cfg.NoValidation, lenient: cfg.Lenient, maxBody: cfg.MaxBodyBytes})
	if err != nil {
		return nil, nil, err
	}
	plans, err := newPlans(facts, check != nil)
	if err != nil {
		return nil, nil, err
	}
	a.shortcuts = map[string]shortcut{}
	for id, p := range plans {
		a.shortcuts[id] = p
	}
	return s, a, nil
}

// addDouble puts the test double's features that Config.Double turns on around a: chosen
// answers, faults and the journal. It returns the handler of the API, a itself when no
// fault is asked for: the pure reference calls the api directly.
func (srv *Server) addDouble(cfg Config, a *api, keys *keySet) http.Handler {
	d := cfg.Double
	if d.Scenarios {
		a.choose = (&scenarios{sleep: d.Sleep, ew: srv.s.ew}).apply
	} else {
		a.choose = preferIgnored(srv.s.ew.log)
	}
	if d.Journal > 0 {
		secrets := append([]string{cfg.AdminKey}, cfg.APIKeys...)
		srv.rec = newRecording(srv.facts, a.route, keys, d.Journal, secrets, cfg.Now, d.WallClock)
	}
	var h http.Handler = a
	if d.Vary != 0 {
		srv.vary = newVaried(ChooseVariations(d.Vary), srv.s.petPath, srv.facts.BasePath+srv.facts.ByID[spec.OpList].Path, d.Sleep, srv.s.ew, h)
		h = srv.vary
	}
	if d.Scenarios {
		h = slowBodies{next: h} // outside the varied answer: Prefer: fault=slow trickles it
	}
	if d.Latency > 0 || d.FailRate > 0 || d.RateLimit > 0 {
		return &faults{d: d, ew: srv.s.ew, now: cfg.Now, next: h}
	}
	return h
}

// middleware wraps h in what every request goes through, from the inside out: CORS, the
// guard, the journal (with Config.Double.Journal), the access log and the proxy headers.
func (srv *Server) middleware(cfg Config, h http.Handler, methods []string, logw io.Writer, logger *log.Logger) http.Handler {
	if len(cfg.CORSOrigins) > 0 {
		h = withCORS(cfg.CORSOrigins, methods, h) // guard.go
	}
	// Backstop for a panic outside the operation handlers (kin-openapi, a middleware): a
	// 500 Error, logged; and body read errors are 400s (guard.go).
	h = guard(srv.s.ew, logger)(h)
	if srv.rec != nil {
		h = srv.rec.middleware(h) // outside guard: it records the 500 of a panic too
	}
	// The Common Log Format has no request headers, so Authorization is never written; a key
	// sent in the query is masked.
	h = accessLog(logw, newMasker(append([]string{cfg.AdminKey}, cfg.APIKeys...)...).query, h) // gorilla's LoggingHandler's line, for less (fast_accesslog.go)
	if cfg.ProxyHeaders {
		h = handlers.ProxyHeaders(h) // outside the log, so the log shows the forwarded client
	}
	return h
}

// specOf returns the description to serve and its bytes for GET /openapi.yaml.
func specOf(cfg Config) (*openapi3.T, []byte, error) {
	if cfg.Spec == nil {
		doc, err := spec.Load()
		if err != nil {
			return nil, nil, fmt.Errorf("reference: %w", err)
		}
		return doc, spec.Bytes(), nil
	}
	raw, err := yaml.Marshal(cfg.Spec)
	if err != nil {
		return nil, nil, fmt.Errorf("reference: marshal spec: %w", err)
	}
	return cfg.Spec, raw, nil
}

// syncWriter serialises writes from the access log and the error log of concurrent requests.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (sw *syncWriter) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.w.Write(p)
}

// routeHint words the 404 of a path no operation has, where a person would want a hint: a
// documented path without the base path ("/pets" for "/v1/pets"), and the endpoints under
// /_admin/ on a server started without an admin key.
func routeHint(facts *spec.Facts, adminOn bool) func(r *http.Request) *Error {
	return func(r *http.Request) *Error {
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/_admin/") && !adminOn:
			return newError(http.StatusNotFound, CodeNotFound,
				"no such resource: the endpoints under /_admin/ are on only with an admin key (petstore serve --admin-key, or PETSTORE_ADMIN_KEY)")
		case facts.BasePath != "" && !strings.HasPrefix(p, facts.BasePath+"/") && documentedPath(facts, r, facts.BasePath+p):
			return newError(http.StatusNotFound, CodeNotFound, "no such resource: the API is under %s; did you mean %s%s?",
				facts.BasePath, facts.BasePath, p)
		}
		return errNoRoute
	}
}

// documentedPath reports whether the spec's router finds an operation at path, for r's
// method or another (a path the description has).
func documentedPath(facts *spec.Facts, r *http.Request, path string) bool {
	moved := r.Clone(r.Context())
	moved.URL.Path, moved.URL.RawPath = path, ""
	_, _, err := facts.Validator.Route(moved)
	return err == nil || errors.Is(err, routers.ErrMethodNotAllowed)
}

// Coverage says which operations of the spec are served by their shape, which are answered
// 501, and which parameters are accepted but not acted on (generic.go).
func (srv *Server) Coverage() Coverage { return srv.s.gen.coverage }

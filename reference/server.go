package reference

import (
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gorilla/handlers"
	"github.com/oasdiff/yaml"

	"github.com/petstore/petstore/spec"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxBodyBytes = 64 << 10
	DefaultMaxPets      = 1_000_000
)

// server holds what the handlers share; everything the spec says is read once, here.
type server struct {
	store      *store
	ew         *errorWriter
	now        func() time.Time
	base       string
	statuses   []string
	limit      spec.IntBounds
	getPet     spec.Operation
	createBody openapi3.Content
	// petPath is the base path and getPet's path up to its parameter: the Location of a
	// created animal is petPath and its id.
	petPath string
}

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
	keys, err := newKeySet(cfg.APIKeys)
	if err != nil {
		return nil, err
	}
	if err := checkDouble(&cfg.Double); err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxPets <= 0 {
		cfg.MaxPets = DefaultMaxPets
	}
	if cfg.MaxPets > math.MaxInt32 {
		return nil, fmt.Errorf("reference: MaxPets %d is above the limit %d", cfg.MaxPets, math.MaxInt32)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	srv := &Server{seed: cfg.Seed}
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
	s, err := newServerState(facts, cfg, logger)
	if err != nil {
		return nil, err
	}
	srv.s, srv.facts = s, facts
	s.ew = &errorWriter{log: logger}
	ops, err := s.operations(facts.Ops)
	if err != nil {
		return nil, err
	}
	if patch != nil {
		patch(ops)
	}
	a, err := newAPI(facts, ops, keys, s.ew, logger, cfg, s.store.check != nil)
	if err != nil {
		return nil, err
	}
	var faulty *faults // nil unless asked: the pure reference calls the api directly
	if d := cfg.Double; d.Latency > 0 || d.FailRate > 0 || d.RateLimit > 0 {
		faulty = &faults{d: d, ew: s.ew, now: cfg.Now, next: a}
	}
	if cfg.Double.Journal > 0 {
		srv.rec = newRecording(facts, a, keys, cfg)
	}

	// Outside the spec, for the people who run the server. Matched exactly, before the API:
	// http.ServeMux would answer unclean paths (/v1//pets) with a redirect, not an Error.
	extras := map[string]extraRoute{
		"/healthz": {http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		}},
		"/openapi.yaml": {http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			_, _ = w.Write(raw)
		}},
	}
	if cfg.AdminKey != "" {
		if err := srv.adminRoutes(extras, cfg.AdminKey); err != nil {
			return nil, err
		}
	}
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e, ok := extras[r.URL.Path]
		switch {
		case ok:
		case faulty != nil:
			faulty.ServeHTTP(w, r)
			return
		default:
			a.ServeHTTP(w, r) // the API, and the 404 Error for every other path
			return
		}
		if h := e.handler(r.Method); h != nil {
			h(w, r)
			return
		}
		s.ew.writeError(w, r, &methodNotAllowed{allow: e.allow()})
	})

	var h http.Handler = mux
	if len(cfg.CORSOrigins) > 0 {
		h = withCORS(cfg.CORSOrigins, a.methods, h) // guard.go
	}
	// Backstop for a panic outside the operation handlers (kin-openapi, a middleware): a
	// 500 Error, logged; and body read errors are 400s (guard.go).
	h = guard(s.ew, logger)(h)
	if srv.rec != nil {
		h = srv.rec.middleware(h) // outside guard: it records the 500 of a panic too
	}
	// The Common Log Format has no request headers, so Authorization is never written.
	h = accessLog(logw, h) // gorilla's LoggingHandler's line, for less (accesslog.go)
	if cfg.ProxyHeaders {
		h = handlers.ProxyHeaders(h) // outside the log, so the log shows the forwarded client
	}
	srv.handler = h
	return srv, nil
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

func newServerState(facts *spec.Facts, cfg Config, logger *log.Logger) (*server, error) {
	s := &server{now: cfg.Now, base: facts.BasePath, statuses: facts.Statuses, limit: facts.Limit}
	s.getPet = facts.ByID[spec.OpGet]
	path, ok := strings.CutSuffix(s.getPet.Path, "{petId}")
	if !ok || strings.Contains(path, "{") {
		return nil, fmt.Errorf("reference: %s's path %s must end in its one parameter, {petId}", spec.OpGet, s.getPet.Path)
	}
	s.petPath = s.base + path
	if rb := facts.ByID[spec.OpCreate].Op.RequestBody; rb != nil && rb.Value != nil {
		s.createBody = rb.Value.Content
	}
	for i, p := range cfg.Seed {
		if err := validateNewPet(p, s.statuses); err != nil {
			return nil, fmt.Errorf("reference: seed entry %d: %s", i, err.(*Error).Message)
		}
	}
	if len(s.statuses) > math.MaxUint8 {
		return nil, fmt.Errorf("reference: %d status values; at most %d are supported", len(s.statuses), math.MaxUint8)
	}
	s.store = newStore(s.statuses, cfg.MaxPets)
	if !cfg.NoValidation && !cfg.Lenient {
		// Each animal's encoding is validated once, when stored; in lenient mode every
		// response is validated instead, so that an off-spec animal is logged each time.
		check := petCheck(facts.Doc, petSchemas(facts))
		s.store.check = func(pet []byte) error {
			err := check(pet)
			if err != nil {
				logger.Printf("response violates the spec: %v", err)
			}
			return err
		}
	}
	if err := s.store.reset(cfg.Seed); err != nil {
		return nil, fmt.Errorf("reference: seed of %d animals: %w", len(cfg.Seed), err)
	}
	return s, nil
}

// operations pairs every operation of the spec with its handler; an operation without a
// handler, or a handler without an operation, is an error.
func (s *server) operations(ops []spec.Operation) (map[string]http.Handler, error) {
	hs := s.routes()
	var missing []string
	seen := map[string]bool{}
	for _, op := range ops {
		seen[op.ID] = true
		if hs[op.ID] == nil {
			missing = append(missing, op.ID)
		}
	}
	for id := range hs {
		if !seen[id] {
			return nil, fmt.Errorf("reference: handler %q has no operation in the spec", id)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("reference: no handler for operation(s) %s", strings.Join(missing, ", "))
	}
	return hs, nil
}

// extraRoute is an endpoint outside the spec: a handler per method, and HEAD wherever
// there is GET (RFC 9110 9.3.2; net/http sends the headers without the body).
type extraRoute map[string]http.HandlerFunc

// handler returns the handler for method, or nil.
func (e extraRoute) handler(method string) http.HandlerFunc {
	if h, ok := e[method]; ok {
		return h
	}
	if method == http.MethodHead {
		return e[http.MethodGet]
	}
	return nil
}

// allow is the Allow header of the route.
func (e extraRoute) allow() string {
	var methods []string
	for m := range e {
		methods = append(methods, m)
		if m == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
	}
	slices.Sort(methods)
	return strings.Join(methods, ", ")
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

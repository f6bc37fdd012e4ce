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

	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/reference/internal/fast"
	"github.com/petstore/petstore/spec"
)

// The assembly: the pure reference (internal/core), its fast paths (internal/fast) plugged
// into it, and the test double (double) around it when Config.Double asks for it. This
// package is the only one that knows all three.

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

// Server is the reference server with the handles a client's tests use (double.Server):
// the journal and the report (Config.Double.Journal), the clock and reset (Config.AdminKey).
type Server struct {
	*double.Server
	handler  http.Handler
	coverage Coverage
}

// ServeHTTP serves the interface.
func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { srv.handler.ServeHTTP(w, r) }

// Coverage says which operations of the spec are served by their shape, which are answered
// 501, and which parameters are accepted but not acted on.
func (srv *Server) Coverage() Coverage { return srv.coverage }

// New is NewServer with the handles a client's tests use (journal, report, clock, reset).
func New(cfg Config) (*Server, error) { return newServer(cfg, nil) }

// newServer is New with a hook for tests that replace handlers (a deliberately broken one
// shows that response validation catches it).
func newServer(cfg Config, patch func(map[string]core.Handler)) (*Server, error) {
	doc, raw, err := specOf(cfg)
	if err != nil {
		return nil, err
	}
	if err := cfg.complete(); err != nil {
		return nil, err
	}
	keys, err := core.NewKeySet(cfg.APIKeys)
	if err != nil {
		return nil, err
	}
	set := double.Settings{Double: cfg.Double, AdminKey: cfg.AdminKey, Secrets: append([]string{cfg.AdminKey}, cfg.APIKeys...)}
	// The store keeps the seed, for reset, as records: not cfg.Seed.
	srv := &Server{Server: double.NewServer(cfg.Now, set)}
	cfg.Now = srv.Clock()
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
	cfg.Seed = double.ChooseVariations(cfg.Double.Vary).Seeded(cfg.Seed, facts)
	s, a, err := newFastReference(facts, cfg, keys, logger, patch)
	if err != nil {
		return nil, err
	}
	srv.coverage = s.Gen.Coverage
	s.EW.NoRoute = routeHint(facts, cfg.AdminKey != "")
	ops := srv.Wrap(set, facts, s, a, keys) // the api itself, for the pure reference

	// Outside the spec, for the people who run the server. Matched exactly, before the API:
	// http.ServeMux would answer unclean paths (/v1//pets) with a redirect, not an Error.
	extras := map[string]core.ExtraRoute{
		"/healthz": {http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			core.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		}},
		"/openapi.yaml": {http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			_, _ = w.Write(core.WithOwnServer(raw, core.OwnBase(r, facts.BasePath)))
		}},
	}
	if cfg.AdminKey != "" {
		if err := srv.AdminRoutes(extras, cfg.AdminKey, keys); err != nil {
			return nil, err
		}
	}
	srv.handler = srv.middleware(cfg, s.EW, core.WithExtras(extras, ops, s.EW), a.Methods, logw)
	return srv, nil
}

// complete refuses settings that mean nothing and fills in the defaults.
func (cfg *Config) complete() error {
	if err := double.Check(&cfg.Double); err != nil {
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
// takes the precomputed checks' word where they are certain (reference/internal/fast).
func newFastReference(facts *spec.Facts, cfg Config, keys *core.KeySet, logger *log.Logger, patch func(map[string]core.Handler)) (*core.Server, *core.API, error) {
	var check func([]byte) error
	if !cfg.NoValidation && !cfg.Lenient {
		// Each animal's encoding is validated once, when stored; in lenient mode every
		// response is validated instead, so that an off-spec animal is logged each time.
		pet := fast.PetCheck(facts.Doc, fast.PetSchemas(facts))
		check = func(data []byte) error {
			err := pet(data)
			if err != nil {
				logger.Printf("response violates the spec: %v", err)
			}
			return err
		}
	}
	s, err := core.NewServerState(facts, cfg.Now, cfg.MaxPets, cfg.Seed, check)
	if err != nil {
		return nil, nil, err
	}
	s.EW = &core.ErrorWriter{Log: logger}
	s.Decode = fast.DecodeNewPetQuick
	ops, err := s.Operations(facts)
	if err != nil {
		return nil, nil, err
	}
	if patch != nil {
		patch(ops)
	}
	a, err := core.NewAPI(facts, ops, keys, s.EW, logger, core.APIOptions{
		Now: cfg.Now, Validate: !cfg.NoValidation, Lenient: cfg.Lenient, MaxBody: cfg.MaxBodyBytes})
	if err != nil {
		return nil, nil, err
	}
	plans, err := fast.NewPlans(facts, check != nil)
	if err != nil {
		return nil, nil, err
	}
	a.Shortcuts = map[string]core.Shortcut{}
	for id, p := range plans {
		a.Shortcuts[id] = p
	}
	return s, a, nil
}

// middleware wraps h in what every request goes through, from the inside out: CORS, the
// guard, the journal (with Config.Double.Journal), the access log and the proxy headers.
func (srv *Server) middleware(cfg Config, ew *core.ErrorWriter, h http.Handler, methods []string, logw io.Writer) http.Handler {
	if len(cfg.CORSOrigins) > 0 {
		h = core.WithCORS(cfg.CORSOrigins, methods, h)
	}
	// Backstop for a panic outside the operation handlers (kin-openapi, a middleware): a
	// 500 Error, logged; and body read errors are 400s.
	h = core.Guard(ew, ew.Log)(h)
	h = srv.Record(h) // outside guard: it records the 500 of a panic too
	// The Common Log Format has no request headers, so Authorization is never written; a key
	// sent in the query is masked.
	h = fast.AccessLog(logw, core.Masker(append([]string{cfg.AdminKey}, cfg.APIKeys...)...).Query, h) // gorilla's LoggingHandler's line, for less
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
func routeHint(facts *spec.Facts, adminOn bool) func(r *http.Request) *core.Error {
	return func(r *http.Request) *core.Error {
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/_admin/") && !adminOn:
			return core.NewError(http.StatusNotFound, core.CodeNotFound,
				"no such resource: the endpoints under /_admin/ are on only with an admin key (petstore serve --admin-key, or PETSTORE_ADMIN_KEY)")
		case facts.BasePath != "" && !strings.HasPrefix(p, facts.BasePath+"/") && documentedPath(facts, r, facts.BasePath+p):
			return core.NewError(http.StatusNotFound, core.CodeNotFound, "no such resource: the API is under %s; did you mean %s%s?",
				facts.BasePath, facts.BasePath, p)
		}
		return core.ErrNoRoute
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

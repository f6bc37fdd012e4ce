// Package core is the reference server itself: the store, the Error records, validation,
// auth, the handlers of the operations (hand-written, or by shape for a grown spec), the
// recorder that holds an answer until it is validated, and the routes. Alone it is complete
// and correct; its fast paths (reference/internal/fast) and the test double
// (reference/double) plug into its hooks (API.Shortcuts, Server.Decode, the store's check,
// API.Choose), and it imports neither.
package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/spec"
)

// server holds what the handlers share; everything the spec says comes from its facts.
type Server struct {
	Store    *Store
	EW       *ErrorWriter
	Now      func() time.Time
	base     string
	statuses []string
	// statusRequired says whether the spec's NewPet requires a status.
	statusRequired bool
	limit          spec.IntBounds
	getPet         spec.Operation
	createBody     openapi3.Content
	// petPath is the base path and getPet's path up to its parameter: the Location of a
	// created animal is petPath and its id.
	PetPath string
	// decode parses a createPet body: decodeNewPet, or a fast path's equal.
	Decode func([]byte) (NewPet, error)
	// gen serves the operations the spec adds, by their shape (generic.go).
	Gen *generic
}

// newServerState makes the handlers' state for the spec's facts, with a store of at most
// maxPets animals that holds seed. check, when not nil, validates each animal's encoding
// as it is stored (store.check).
func NewServerState(facts *spec.Facts, now func() time.Time, maxPets int, seed []NewPet, check func([]byte) error) (*Server, error) {
	s := &Server{Now: now, base: facts.BasePath, statuses: facts.Statuses, statusRequired: StatusRequired(facts), limit: facts.Limit, Decode: DecodeNewPet}
	s.getPet = facts.ByID[spec.OpGet]
	path, ok := strings.CutSuffix(s.getPet.Path, "{petId}")
	if !ok || strings.Contains(path, "{") {
		return nil, fmt.Errorf("reference: %s's path %s must end in its one parameter, {petId}", spec.OpGet, s.getPet.Path)
	}
	s.PetPath = s.base + path
	if rb := facts.ByID[spec.OpCreate].Op.RequestBody; rb != nil && rb.Value != nil {
		s.createBody = rb.Value.Content
	}
	for i, p := range seed {
		if err := ValidateNewPet(p, s.statuses, s.statusRequired); err != nil {
			return nil, fmt.Errorf("reference: seed %w", &SeedError{Entry: i, Name: p.Name, Err: errors.New(err.(*Error).Message)})
		}
	}
	if len(s.statuses) > math.MaxUint8 {
		return nil, fmt.Errorf("reference: %d status values; at most %d are supported", len(s.statuses), math.MaxUint8)
	}
	s.Store = NewStore(s.statuses, maxPets)
	s.Store.Check = check
	if err := s.Store.Reset(seed); err != nil {
		return nil, fmt.Errorf("reference: seed of %d animals: %w", len(seed), err)
	}
	return s, nil
}

// The handlers check their input themselves: with Config.NoValidation they are all there is,
// and with validation on they must agree with it (the server's tests run both ways).

func (s *Server) handleListPets() Handler {
	return func(rec *Recorder, r *http.Request) {
		q := QueryOf(r)
		limit := s.limit.Default
		if v, ok, err := single(q, "limit"); err != nil {
			s.EW.Fail(rec, r, err)
			return
		} else if ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < s.limit.Min || n > s.limit.Max {
				s.EW.Fail(rec, r, Invalid("limit must be an integer from %d to %d, got %q",
					s.limit.Min, s.limit.Max, v))
				return
			}
			limit = n
		}
		status, ok, err := single(q, "status")
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		if ok && !slices.Contains(s.statuses, status) {
			s.EW.Fail(rec, r, Invalid("status must be one of %v, got %q", s.statuses, status))
			return
		}
		match, err := s.Gen.match(q) // the spec's other filters (generic.go)
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		buf := getBuf()
		defer putBuf(buf)
		*buf = s.Store.appendWhere((*buf)[:0], int(limit), status, match)
		rec.Stored(http.StatusOK, BodyPets, *buf)
	}
}

// noQuery is the query of a request without one; never written to.
var noQuery = map[string][]string{}

// queryOf returns the request's query parameters, to read only: without a query string,
// without parsing one.
func QueryOf(r *http.Request) map[string][]string {
	if r.URL.RawQuery == "" {
		return noQuery
	}
	return r.URL.Query()
}

// single returns the one value of a query parameter; a repeated parameter is an error.
func single(q map[string][]string, name string) (string, bool, error) {
	vs, ok := q[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) != 1:
		return "", false, Invalid("query parameter %q given %d times; give it once", name, len(vs))
	}
	return vs[0], true, nil
}

func (s *Server) handleCreatePet() Handler {
	return func(rec *Recorder, r *http.Request) {
		body, err := readBody(r) // valid until the request ends: decodeNewPet copies what it keeps
		if err != nil {
			s.EW.Fail(rec, r, err) // *http.MaxBytesError: 413
			return
		}
		if len(body) == 0 {
			s.EW.Fail(rec, r, Invalid("request body is required"))
			return
		}
		if !mediaTypeOK(s.createBody, r) {
			s.EW.Fail(rec, r, UnsupportedMediaType(r))
			return
		}
		p, err := s.Decode(body)
		if err == nil {
			err = ValidateNewPet(p, s.statuses, s.statusRequired)
		}
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		buf := getBuf()
		defer putBuf(buf)
		var id int64
		if *buf, id, err = s.Store.Add((*buf)[:0], p); err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		rec.Header().Set("Location", s.PetPath+strconv.FormatInt(id, 10))
		rec.Stored(http.StatusCreated, BodyPet, *buf)
	}
}

func (s *Server) handleGetPet() Handler {
	op := s.getPet // its Deprecation and Sunset headers are set by the api (api.go) on every answer
	idOf := pathID(op, "petId")
	return func(rec *Recorder, r *http.Request) {
		if op.Gone(s.Now()) {
			s.EW.Fail(rec, r, notFound("%s %s was removed on %s; use %s",
				op.Method, s.base+op.Path, op.Sunset.Format(time.DateOnly), Replacement(op)))
			return
		}
		id, err := idOf(r)
		if err != nil {
			s.EW.Fail(rec, r, err)
			return
		}
		buf := getBuf()
		defer putBuf(buf)
		var ok bool
		if *buf, ok = s.Store.AppendPet((*buf)[:0], id); !ok {
			s.EW.Fail(rec, r, notFound("pet %d not found", id))
			return
		}
		rec.Stored(http.StatusOK, BodyPet, *buf)
	}
}

func Replacement(op spec.Operation) string {
	if op.ReplacedBy == "" {
		return "another operation"
	}
	return op.ReplacedBy
}

// writeJSON answers with v encoded by encoding/json (outside the spec's operations). "<"
// and ">" stay as they are, so that the journal's "<redacted>" reads as such.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body.Bytes())
}

// bufs holds encoding buffers; a list of 100 animals is about 7 KB.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

func getBuf() *[]byte { return bufs.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) <= 64<<10 {
		bufs.Put(b)
	}
}

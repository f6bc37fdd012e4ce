package core

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/petstore/petstore/spec"
)

// routes are the hand-written handlers of the operations the interface document names; the
// spec's other operations are served by their shape (generic.go).
func (s *Server) Routes() map[string]Handler {
	return map[string]Handler{
		spec.OpList:   s.handleListPets(),  // GET  /pets
		spec.OpCreate: s.handleCreatePet(), // POST /pets
		spec.OpGet:    s.handleGetPet(),    // GET  /pets/{petId} (deprecated)
	}
}

// operations pairs every operation of the spec with its handler: the hand-written one, or
// the one its shape calls for (generic.go); a handler without an operation is an error.
func (s *Server) Operations(facts *spec.Facts) (map[string]Handler, error) {
	hs := s.Routes()
	for id := range hs {
		if _, ok := facts.ByID[id]; !ok {
			return nil, fmt.Errorf("reference: handler %q has no operation in the spec", id)
		}
	}
	s.genericOps(facts, hs)
	return hs, nil
}

// withExtras serves the routes of extras, matched exactly, and api for every other path
// (the API, and the 404 Error for a path it does not know).
func WithExtras(extras map[string]ExtraRoute, api http.Handler, ew *ErrorWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e, ok := extras[r.URL.Path]
		if !ok {
			api.ServeHTTP(w, r)
			return
		}
		if h := e.handler(r.Method); h != nil {
			h(w, r)
			return
		}
		ew.WriteError(w, r, &methodNotAllowed{allow: e.allow()})
	})
}

// extraRoute is an endpoint outside the spec: a handler per method, and HEAD wherever
// there is GET (RFC 9110 9.3.2; net/http sends the headers without the body).
type ExtraRoute map[string]http.HandlerFunc

// handler returns the handler for method, or nil.
func (e ExtraRoute) handler(method string) http.HandlerFunc {
	if h, ok := e[method]; ok {
		return h
	}
	if method == http.MethodHead {
		return e[http.MethodGet]
	}
	return nil
}

// allow is the Allow header of the route.
func (e ExtraRoute) allow() string {
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

package reference

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/petstore/petstore/spec"
)

// routes is the whole API on one screen: one handler per operationId of the spec. NewServer
// refuses to start if this table and the spec disagree.
func (s *server) routes() map[string]http.Handler {
	return map[string]http.Handler{
		spec.OpList:   s.handleListPets(),  // GET  /pets
		spec.OpCreate: s.handleCreatePet(), // POST /pets
		spec.OpGet:    s.handleGetPet(),    // GET  /pets/{petId} (deprecated)
	}
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

// withExtras serves the routes of extras, matched exactly, and api for every other path
// (the API, and the 404 Error for a path it does not know).
func withExtras(extras map[string]extraRoute, api http.Handler, ew *errorWriter) http.Handler {
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
		ew.writeError(w, r, &methodNotAllowed{allow: e.allow()})
	})
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

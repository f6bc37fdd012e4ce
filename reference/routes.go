package reference

import (
	"net/http"

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

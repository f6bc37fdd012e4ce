package reference

import "net/http"

// routes is the whole API on one screen: one handler per operationId of the spec. NewServer
// refuses to start if this table and the spec disagree.
func (s *server) routes() map[string]http.Handler {
	return map[string]http.Handler{
		"listPets":  s.handleListPets(),  // GET  /pets
		"createPet": s.handleCreatePet(), // POST /pets
		"getPet":    s.handleGetPet(),    // GET  /pets/{petId} (deprecated)
	}
}

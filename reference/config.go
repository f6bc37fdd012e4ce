// Package reference is the in-memory reference implementation of the pet store interface:
// NewServer, its Config, and the assembly of its rooms, each a package the compiler keeps
// apart. The server itself (internal/core: store, errors, validation, auth, handlers,
// routes) is complete and correct alone; its fast paths (internal/fast) are taken only where
// provably equal to it; the test double (double) wraps it when Config.Double asks for it.
// Routing and validation come from the spec, read once into spec.Facts when a server is made.
package reference

import (
	"io"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/internal/core"
)

// Config configures NewServer. The zero value of every field but APIKeys is usable.
type Config struct {
	// Spec is the description to serve and validate against; nil means spec.Load().
	Spec *openapi3.T
	// APIKeys are the accepted bearer tokens. At least one is required.
	APIKeys []string
	// AdminKey, when set, enables the endpoints under /_admin/ with this key as bearer token:
	// reset, clock and, with Journal, requests and report.
	AdminKey string
	// Seed is the initial content of the store (ids 1..len(Seed) in order); reset restores it.
	// Animals created later get ids above every id assigned before, resets included.
	Seed []NewPet
	// Log receives the access log (the Authorization header is never written); nil discards it.
	Log io.Writer
	// Now is the server's clock (getPet is gone on and after its sunset date); nil is time.Now.
	// With AdminKey, POST /_admin/clock and Server.SetNow move it by an offset.
	Now func() time.Time
	// MaxBodyBytes caps request bodies (413 beyond); 0 means 64 KiB.
	MaxBodyBytes int64
	// MaxPets caps the store (further creates are refused with an Error); 0 means 1,000,000.
	MaxPets int
	// NoValidation turns request and response validation off. For measurement only.
	NoValidation bool
	// Lenient logs an off-spec response instead of replacing it with a 500 Error.
	Lenient bool
	// ProxyHeaders trusts X-Forwarded-For, X-Real-IP and Forwarded for the client address in
	// the access log: set it only behind a reverse proxy that sets them, since a client can.
	ProxyHeaders bool
	// CORSOrigins enables CORS for these origins; empty means CORS is off.
	CORSOrigins []string

	// Double makes the server a test double for client developers; its zero value, the pure
	// reference, adds nothing to the path of a request.
	Double double.Double
}

// The animals of a seed and of the store, and what the server does with a grown spec.
type (
	NewPet    = core.NewPet    // an animal as a client sends it, and an entry of a seed
	Pet       = core.Pet       // an animal as the server answers it
	SeedError = core.SeedError // an entry of a seed the spec refuses
	Coverage  = core.Coverage  // which operations are served by their shape (Server.Coverage)
)

// LoadSeed reads a seed file: a JSON array of NewPet records (see testdata/pets.json). An
// entry with an "id" is refused: the animals get ids 1, 2, 3 ... in file order. The values
// are checked against the spec when NewServer starts.
func LoadSeed(path string) ([]NewPet, error) { return core.LoadSeed(path) }

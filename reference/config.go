// Package reference is the in-memory reference implementation of the pet store interface.
// Routing, request validation and response validation all come from spec/openapi.yaml, read
// once into spec.Facts when a server is made.
//
// Its rooms are packages, and the compiler keeps them apart:
//
//   - the server itself, internal/core: store, errors, validation, auth, handlers,
//     recorder, routes. Alone it is complete and correct.
//   - its fast paths, internal/fast: shortcuts taken only where they are provably equal to
//     the core's (precomputed checks, a one-pass decoder, the access log line), plugged in
//     through the core's hooks (API.Shortcuts, Server.Decode, the store's check).
//   - the test double, double: chosen answers, faults, the clock, the journal and the
//     client report, around the core.
//
// This package assembles them: NewServer, Config, and the Server with the double's handles.
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

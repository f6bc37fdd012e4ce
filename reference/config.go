// Package reference is the in-memory reference implementation of the pet store interface.
// Routing, request validation and response validation all come from spec/openapi.yaml, read
// once into spec.Facts when a server is made.
//
// Its files stand in three rooms, each using only its own room and the ones below
// (layers_test.go holds the rule):
//
//   - the pure reference: routes.go, handlers.go, store.go, newpet.go, api.go (validation),
//     errors.go, auth.go, guard.go, recorder.go. Alone it is complete and correct.
//   - the fast paths, fast_*.go: shortcuts taken only where they are provably equal to the
//     pure path (precomputed checks, a one-pass decoder, the access log line), plugged into
//     the pure reference through its hooks (api.shortcuts, server.decode, store.check).
//   - the test double, double*.go: chosen answers, faults, the clock, the journal and the
//     client report, around the pure reference (api.choose, middleware, /_admin/).
//
// server.go and config.go assemble them: the only files that know all three.
package reference

import (
	"io"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
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
	Double Double
}

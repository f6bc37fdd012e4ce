// Package reference is the in-memory reference implementation of the pet store interface.
// Routing, request validation and response validation all come from spec/openapi.yaml.
package reference

import (
	"io"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// Pet is an animal as the store keeps it and as the interface returns it.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// NewPet is the body of createPet, and the form of each entry of a seed file.
type NewPet struct {
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// Config configures NewServer. The zero value of every field but APIKeys is usable.
type Config struct {
	// Spec is the description to serve and validate against; nil means spec.Load().
	Spec *openapi3.T
	// APIKeys are the accepted bearer tokens. At least one is required.
	APIKeys []string
	// AdminKey, when set, enables POST /_admin/reset with this key as bearer token.
	AdminKey string
	// Seed is the initial content of the store (ids 1..len(Seed) in order); reset restores it.
	Seed []NewPet
	// Log receives the access log (the Authorization header is never written); nil discards it.
	Log io.Writer
	// Now is the server's clock (getPet is gone on and after its sunset date); nil is time.Now.
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
}

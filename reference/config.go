// Package reference is the in-memory reference implementation of the pet store interface.
// Routing, request validation and response validation all come from spec/openapi.yaml.
package reference

import (
	"context"
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

// Double configures the features for testing a client (README "Testing your client"). Each
// is a choice the interface document leaves open, and each is off in the zero value.
type Double struct {
	// Scenarios lets a request choose its answer: Prefer: code=NNN, for a status the spec
	// documents for the operation, and Prefer: delay=MS (at most MaxPreferDelay). Off, Prefer
	// is ignored.
	Scenarios bool
	// Latency delays every answer of the API.
	Latency time.Duration
	// FailRate is the share of API requests, from 0 to 1, answered 503 with Retry-After.
	FailRate float64
	// RateLimit is how many API requests are answered per second of the server's clock;
	// the rest of that second gets 429 with Retry-After. 0 means no limit.
	RateLimit int
	// Journal is how many recent requests are kept for GET /_admin/requests and
	// Server.Requests; it also turns on the client report (GET /_admin/report,
	// Server.Report). 0 records nothing.
	Journal int
	// Sleep waits for a delay or the latency; nil waits on a timer that stops early when the
	// request is cancelled. Tests inject one that records what it was asked.
	Sleep func(ctx context.Context, d time.Duration)
	// Rand returns a number in [0, 1) for FailRate; nil is math/rand/v2's Float64.
	Rand func() float64
}

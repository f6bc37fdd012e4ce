package referencetest

import (
	"os"
	"path/filepath"
)

// Pact returns the client's distinct requests so far as a Pact v4 consumer contract of
// consumer with provider (reference.Server.Pact): the key replaced by a placeholder, the
// answers with matchers where the document leaves the values open. `conformance pact
// verify` verifies it against any provider.
func (s *Server) Pact(consumer, provider string) []byte {
	s.t.Helper()
	data, err := s.Reference.Pact(consumer, provider)
	if err != nil {
		s.t.Fatalf("referencetest: %v", err)
	}
	return data
}

// WritePact writes Pact(consumer, provider) to path, creating its directory: the contract a
// client's test suite hands to the provider's side.
func (s *Server) WritePact(path, consumer, provider string) {
	s.t.Helper()
	data := s.Pact(consumer, provider)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatalf("referencetest: %v", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		s.t.Fatalf("referencetest: %v", err)
	}
}

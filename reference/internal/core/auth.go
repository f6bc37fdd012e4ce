package core

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/petstore/petstore/internal/secret"
)

// keySet holds the accepted bearer tokens as SHA-256 digests: comparing digests of equal
// length in constant time hides both the keys and their lengths from timing.
type KeySet struct {
	digests [][sha256.Size]byte
}

func NewKeySet(keys []string) (*KeySet, error) {
	if len(keys) == 0 {
		return nil, errors.New("reference: at least one API key is required")
	}
	ks := &KeySet{}
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, " \t\r\n") {
			return nil, errors.New("reference: an API key must be non-empty and contain no white space")
		}
		ks.digests = append(ks.digests, sha256.Sum256([]byte(k)))
	}
	return ks, nil
}

// check reports whether the request carries one of the keys as a bearer token, in exactly one
// Authorization field. The scheme name is case-insensitive (RFC 9110 section 11.1); an empty
// token never matches.
func (ks *KeySet) Check(r *http.Request) bool {
	// Authorization is a singleton field: with two, which one counts would depend on order.
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return false
	}
	token, ok := bearerToken(values[0])
	if !ok {
		return false
	}
	d := sha256.Sum256([]byte(token))
	match := 0
	for i := range ks.digests {
		match |= subtle.ConstantTimeCompare(d[:], ks.digests[i][:]) // no early exit
	}
	return match == 1
}

func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ") // RFC 9110: 1*SP between scheme and credentials
	return token, token != ""
}

// authenticate is the openapi3filter.AuthenticationFunc for the spec's bearer scheme.
func (ks *KeySet) Authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	if s == nil || s.Type != "http" || !strings.EqualFold(s.Scheme, "bearer") {
		return in.NewError(errors.New("unsupported security scheme " + in.SecuritySchemeName))
	}
	if !ks.Check(in.RequestValidationInput.Request) {
		return in.NewError(errors.New("missing or invalid bearer token"))
	}
	return nil
}

// Redacted is what a key becomes where the server writes what a client sent: the access
// log's query, the double's journal and report.
const Redacted = "<redacted>"

// Masker masks every form of the keys (internal/secret's) with Redacted.
func Masker(keys ...string) *secret.Masker {
	secrets := make([]secret.Secret, len(keys))
	for i, k := range keys {
		secrets[i] = secret.Secret{Value: k, Placeholder: Redacted}
	}
	return secret.New(secrets...)
}

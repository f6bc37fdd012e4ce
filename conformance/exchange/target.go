package exchange

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/petstore/petstore/conformance/wire"
	"github.com/petstore/petstore/internal/secret"
)

// Target is the service under test, as run, explore and replay are given it.
type Target struct {
	// BaseURL ends with the version segment, e.g. http://127.0.0.1:8080/v1.
	BaseURL string
	// APIKey is sent as the bearer token. It never appears in a report.
	APIKey string
	// Client sends the requests; nil means NewClient with the run's timeout. Whichever it
	// is, a session follows no redirect and caps response headers at 64 KiB.
	Client *http.Client
}

// Why a run could not be made at all: its first request got no answer, or a 401.
var (
	ErrUnreachable = errors.New("target unreachable")
	ErrKeyRefused  = errors.New("the target refused the API key")
)

// ResetPath is the reference server's reset, beside the base path: with the admin key, it
// puts the store back as it started.
const ResetPath = "/_admin/reset"

// ResetStore asks the target to start again from an empty store: POST ResetPath beside the
// base path, with adminKey as the bearer token. It is the one request a session sends
// outside the target's API surface, and so outside the guard (guard.go), which judges
// requests by the description's operations: it is sent only when a user gave an admin key
// (conformance explore --admin-key) to have the store reset, never in a read-only session,
// and nothing of it is recorded but its count. The error says why the store was not reset,
// with both keys redacted.
func (s *Session) ResetStore(ctx context.Context, adminKey string) error {
	if adminKey == "" {
		return errors.New("no admin key to reset the target with")
	}
	if s.readOnly {
		return &NotSentError{"POST " + ResetPath + ": the run is read-only and sends only GET and HEAD"}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	root := strings.TrimSuffix(strings.TrimSuffix(s.base.EscapedPath(), "/"), s.specBase)
	req, err := s.build(ctx, wire.Request{Method: http.MethodPost, Target: root + ResetPath}, adminKey)
	if err != nil {
		return err
	}
	admin := s.red.m.With(secret.Secret{Value: adminKey, Placeholder: "$PETSTORE_ADMIN_KEY"})
	hide := func(e error) string { return admin.Value(admin.Text(e.Error())) }
	s.requests.Add(1)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s got no answer: %s", ResetPath, hide(err))
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s answered %d", ResetPath, resp.StatusCode)
	}
	return nil
}

package exchange

import (
	"context"
	"net/http"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/wire"
)

// HTTPRequest is r built for this session's target and key, with the base URL's query and
// the headers every request carries (Options.Headers).
func (s *Session) HTTPRequest(ctx context.Context, r wire.Request) (*http.Request, error) {
	return s.build(ctx, r, s.key)
}

// build is HTTPRequest with another key (the admin key of ResetStore).
func (s *Session) build(ctx context.Context, r wire.Request, key string) (*http.Request, error) {
	req, err := r.HTTP(ctx, s.baseURL, key)
	if err != nil {
		return nil, err
	}
	s.WithBaseQuery(req.URL)
	s.AddHeaders(req)
	if r.Raw != nil {
		req = req.WithContext(withRaw(req.Context(), r.Raw))
	}
	return req, nil
}

// Exchange sends r for a rule, recorded in rec and validated against the spec (Do); open
// relaxes validation for probes of what the document leaves open.
func (s *Session) Exchange(ctx context.Context, rec *Recorder, open bool, r wire.Request) (*http.Response, []byte, error) {
	req, err := s.HTTPRequest(ctx, r)
	if err != nil {
		rec.Fail(report.Failure{Message: "the request cannot be built: " + s.Redact(err.Error()), Location: "request"})
		return nil, nil, err
	}
	return s.DoRead(rec, open, req)
}

// SendRequest sends r unrecorded (Send): a preparation, a clean-up, a probe of the target.
func (s *Session) SendRequest(ctx context.Context, r wire.Request) (*http.Response, []byte, error) {
	req, err := s.HTTPRequest(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	resp, body, _, err := s.Send(req)
	return resp, body, err
}

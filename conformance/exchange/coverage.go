package exchange

import (
	"net/http"
	"strings"

	"github.com/petstore/petstore/spec"
)

// recordCoverage counts an answered request against the operation it routes to (none: not
// counted, e.g. a probe of an undocumented path).
func (s *Session) recordCoverage(rt *routed, status int) {
	if rt.Err != nil {
		return
	}
	s.coverage.Record(rt.Route.Operation.OperationID, rt.vreq, rt.body, status)
}

// routed is a request moved under the spec's base path and its route, found once per
// exchange for coverage and validation.
type routed struct {
	vreq *http.Request
	spec.Routed
	body []byte // the request's body, as sent (nil for none)
	// head: a HEAD request, routed as the GET it is without content (RFC 9110 9.3.2); its
	// answer has no content to validate.
	head bool
	// before is the answer that came before this request's on its kept-alive connection.
	before *lastAnswer
}

func (s *Session) route(req *http.Request, body []byte) routed {
	vreq := s.specRequest(req)
	head := req.Method == http.MethodHead
	if head {
		vreq.Method = http.MethodGet
	}
	return routed{vreq: vreq, Routed: s.validator.RouteOf(vreq), body: body, head: head}
}

// specRequest is req with its path moved under the spec's base path, as the validator
// routes it (the target may serve the API under another prefix). It shares req's header and
// body, which routing, coverage and validation only read.
func (s *Session) specRequest(req *http.Request) *http.Request {
	vreq := req.WithContext(req.Context()) // a shallow copy
	u := *req.URL
	u.Path, u.RawPath = s.specBase+strings.TrimPrefix(req.URL.Path, strings.TrimSuffix(s.base.Path, "/")), ""
	vreq.URL = &u
	return vreq
}

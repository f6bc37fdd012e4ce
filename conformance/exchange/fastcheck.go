package exchange

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/schemacheck"
	"github.com/petstore/petstore/spec"
)

// The fast check of an answer against the description. kin-openapi's response validation
// decodes every body into maps and interfaces and walks the schema over them: on a run of
// small answers it was the largest part of the harness's CPU. The schemas of the documented
// responses are compiled once, per operation and status, by the module's one schema checker
// (internal/schemacheck). The fast check only ever says that kin-openapi certainly accepts
// the answer; for anything else (a body the checker does not find Valid, a schema keyword it
// does not know, a header to validate) the answer goes to kin-openapi as before, whose
// verdict and words are the ones reported. So the fast check can make a run faster, never
// more lenient: internal/schemacheck holds the checker to kin-openapi, and fastcheck_test.go
// holds what this file adds (statuses, media types, HEAD) to the session's validation.
//
// A response compiles when it defines no header but Content-Type and its media types have no
// encoding (OpenAPI 3.0 only).

// responseChecks are the compiled checks of a description's documented responses.
type responseChecks map[*openapi3.Operation]map[int]*responseCheck

// responseCheck is one documented response: no content to check, or a check per media type.
type responseCheck struct {
	noContent bool
	media     map[*openapi3.MediaType]*schemacheck.Check // nil value: the media type has no schema
}

// compileResponses compiles what it can of f's documented responses.
func compileResponses(f *spec.Facts) responseChecks {
	out := responseChecks{}
	if f.Doc.IsOpenAPI31OrLater() {
		return out
	}
	for _, o := range f.Ops {
		if o.Op.Responses == nil {
			continue
		}
		for code, ref := range o.Op.Responses.Map() {
			status, err := strconv.Atoi(code)
			if err != nil || ref == nil || ref.Value == nil {
				continue
			}
			if rc := compileResponse(ref.Value); rc != nil {
				if out[o.Op] == nil {
					out[o.Op] = map[int]*responseCheck{}
				}
				out[o.Op][status] = rc
			}
		}
	}
	return out
}

func compileResponse(r *openapi3.Response) *responseCheck {
	for name := range r.Headers {
		if name != "Content-Type" {
			return nil // kin-openapi validates the header
		}
	}
	if len(r.Content) == 0 {
		return &responseCheck{noContent: true}
	}
	rc := &responseCheck{media: map[*openapi3.MediaType]*schemacheck.Check{}}
	for _, mt := range r.Content {
		if mt == nil || len(mt.Encoding) > 0 {
			continue
		}
		if mt.Schema == nil {
			rc.media[mt] = nil
			continue
		}
		if c := schemacheck.Compile(mt.Schema.Value); c != nil {
			rc.media[mt] = c
		}
	}
	return rc
}

// passes reports whether kin-openapi certainly accepts the answer (status, header, body) to
// a request routed to op; false leaves the verdict to kin-openapi.
func (rc responseChecks) passes(op *openapi3.Operation, method string, status int, header http.Header, body []byte) bool {
	if method == http.MethodHead {
		return false
	}
	r := rc[op][status]
	switch {
	case r == nil:
		return false
	case r.noContent:
		return true
	}
	ct := header.Get("Content-Type")
	mt := op.Responses.Status(status).Value.Content.Get(ct)
	c, ok := r.media[mt]
	if mt == nil || !ok {
		return false
	}
	if c == nil {
		return true // the media type has no schema
	}
	// The media type kin-openapi picks its decoder by.
	if mediaType, _, _ := strings.Cut(ct, ";"); strings.ToLower(strings.TrimSpace(mediaType)) != "application/json" {
		return false
	}
	return c.Decide(body) == schemacheck.Valid
}

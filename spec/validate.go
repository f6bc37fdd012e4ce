package spec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Violation is one way a request or response breaks the description: what broke, where in the
// message, and which node of the description it broke, so a report can point at the spec line.
type Violation struct {
	Operation string `json:"operation,omitempty"` // operationId; "" when no operation matched
	Direction string `json:"direction"`           // "request" or "response"
	Message   string `json:"message"`             // one line, without the schema dump
	Pointer   string `json:"pointer"`             // JSON pointer into the description, e.g. #/components/schemas/Pet/required
	Location  string `json:"location,omitempty"`  // where in the message, e.g. "body/0/categoryId", "query limit", "status"
}

func (v Violation) String() string {
	loc := ""
	if v.Location != "" {
		loc = " at " + v.Location
	}
	op := v.Operation
	if op == "" {
		op = "-"
	}
	return fmt.Sprintf("%s %s%s: %s (%s)", op, v.Direction, loc, v.Message, v.Pointer)
}

// Directions of a Violation.
const (
	Request  = "request"
	Response = "response"
)

// PointerNoRoute is the Pointer of the violation reported for a request that no operation of
// the description matches.
const PointerNoRoute = "#/paths"

// Validator checks requests and responses against one description. Build it once: the
// router and options are made at construction, and it is safe for concurrent use.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
	base   string
	opts   *openapi3filter.Options
}

// NewValidator builds a Validator for doc. Requests are routed on their URL path, which
// must start with the description's base path (BasePath, "/v1"); host and scheme are ignored,
// so the same validator serves production, staging and a local server.
func NewValidator(doc *openapi3.T) (*Validator, error) {
	base, err := BasePath(doc)
	if err != nil {
		return nil, err
	}
	router, err := NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &Validator{
		doc:    doc,
		router: router,
		base:   base,
		opts: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
			AuthenticationFunc:    bearerPresent,
		},
	}, nil
}

// NewRouter returns a router that finds the operation of a request by its URL path, which must
// start with the description's base path ("/v1"); host and scheme are ignored. It routes on a
// copy whose only server is the relative base path: doc is not modified.
func NewRouter(doc *openapi3.T) (routers.Router, error) {
	base, err := BasePath(doc)
	if err != nil {
		return nil, err
	}
	routed := *doc
	routed.Servers = openapi3.Servers{{URL: base}}
	router, err := gorillamux.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("spec: router: %w", err)
	}
	return router, nil
}

// bearerPresent accepts any request that carries a non-empty bearer token: whether the key
// is valid is the server's business, not something a description can tell.
func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecurityScheme == nil || in.SecurityScheme.Type != "http" ||
		!strings.EqualFold(in.SecurityScheme.Scheme, "bearer") {
		return nil
	}
	scheme, token, ok := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return errors.New("no bearer token in the Authorization header")
	}
	return nil
}

// Doc returns the description the validator checks against.
func (v *Validator) Doc() *openapi3.T { return v.doc }

// Route finds the operation for req. The error wraps routers.ErrPathNotFound or
// routers.ErrMethodNotAllowed when nothing matches.
func (v *Validator) Route(req *http.Request) (*routers.Route, map[string]string, error) {
	return v.router.FindRoute(req)
}

// ValidateRequest checks req (whose body is passed separately, already read) against its
// operation. It returns nil when the request conforms.
func (v *Validator) ValidateRequest(req *http.Request, body []byte) []Violation {
	route, params, err := v.Route(req)
	if err != nil {
		return []Violation{noRoute(req, err)}
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	err = openapi3filter.ValidateRequest(req.Context(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route, Options: v.opts,
	})
	return v.requestViolations(route, err)
}

// ValidateResponse checks a response to req against the operation req was routed to: the
// status is documented, the media type is one the description gives, and the body validates
// against its schema. It returns nil when the response conforms.
func (v *Validator) ValidateResponse(req *http.Request, status int, header http.Header, body []byte) []Violation {
	return v.ValidateRoutedResponse(req, v.RouteOf(req), status, header, body)
}

// Routed is a request's route, found once and passed to what else needs it.
type Routed struct {
	Route  *routers.Route
	Params map[string]string
	// Err wraps routers.ErrPathNotFound or routers.ErrMethodNotAllowed when nothing matches.
	Err error
}

// RouteOf finds the operation for req.
func (v *Validator) RouteOf(req *http.Request) Routed {
	route, params, err := v.Route(req)
	return Routed{route, params, err}
}

// ValidateRoutedResponse is ValidateResponse for a request already routed (RouteOf).
func (v *Validator) ValidateRoutedResponse(req *http.Request, rt Routed, status int, header http.Header, body []byte) []Violation {
	route, params, err := rt.Route, rt.Params, rt.Err
	if err != nil {
		return []Violation{noRoute(req, err)}
	}
	op := route.Operation
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: v.opts,
		},
		Status:  status,
		Header:  header,
		Options: v.opts,
	}
	in.SetBodyBytes(body)
	err = openapi3filter.ValidateResponse(req.Context(), in)
	if err == nil {
		return nil
	}
	mk := responseViolation(op)
	respRef, respPtr, media, head := v.checkHead(route, status, header)
	if head != nil {
		return head
	}
	var rerr *openapi3filter.ResponseError
	if !errors.As(err, &rerr) || media == nil {
		return []Violation{mk(oneLine(err.Error()), respPtr, "")}
	}
	ct := header.Get("Content-Type")
	schemaPtr := respPtr + "/content/" + escape(mediaType(respRef.Value.Content, ct)) + "/schema"
	if schemaErrs := schemaErrors(rerr.Err); len(schemaErrs) > 0 {
		out := make([]Violation, 0, len(schemaErrs))
		for _, se := range schemaErrs {
			ptr, loc := schemaPointer(schemaPtr, media.Schema, se)
			out = append(out, mk(schemaMessage(se), ptr, loc))
		}
		return out
	}
	msg := rerr.Reason
	if rerr.Err != nil {
		msg += ": " + oneLine(rerr.Err.Error())
	}
	return []Violation{mk(msg, schemaPtr, "body")}
}

// ValidateResponseHead checks what can be checked of a response whose body was not kept (too
// large, or left out of a recording): the status is documented for the operation and the
// media type is one the description gives for it.
func (v *Validator) ValidateResponseHead(req *http.Request, status int, header http.Header) []Violation {
	route, _, err := v.Route(req)
	if err != nil {
		return []Violation{noRoute(req, err)}
	}
	_, _, _, head := v.checkHead(route, status, header)
	return head
}

// checkHead finds the documented response for status and the media type for the response's
// Content-Type, returning violations when either is missing. respPtr points at the response
// node; media is nil when the response documents no content.
func (v *Validator) checkHead(route *routers.Route, status int, header http.Header) (respRef *openapi3.ResponseRef, respPtr string, media *openapi3.MediaType, out []Violation) {
	op := route.Operation
	mk := responseViolation(op)
	opPtr := operationPointer(route)
	respRef = op.Responses.Status(status)
	if respRef == nil {
		return nil, opPtr + "/responses", nil, []Violation{mk(fmt.Sprintf("status %d is not documented for %s (documented: %s)",
			status, op.OperationID, documented(op)), opPtr+"/responses", "status")}
	}
	respPtr = opPtr + "/responses/" + strconv.Itoa(status)
	if respRef.Ref != "" {
		respPtr = respRef.Ref
	}
	if len(respRef.Value.Content) == 0 {
		return respRef, respPtr, nil, nil
	}
	ct := header.Get("Content-Type")
	if media = respRef.Value.Content.Get(ct); media == nil {
		return respRef, respPtr, nil, []Violation{mk(fmt.Sprintf("media type %q is not documented for status %d (documented: %s)",
			ct, status, strings.Join(mediaTypes(respRef.Value.Content), ", ")), respPtr+"/content", "header Content-Type")}
	}
	return respRef, respPtr, media, nil
}

func responseViolation(op *openapi3.Operation) func(msg, ptr, loc string) Violation {
	return func(msg, ptr, loc string) Violation {
		return Violation{Operation: op.OperationID, Direction: Response, Message: msg, Pointer: ptr, Location: loc}
	}
}

func (v *Validator) requestViolations(route *routers.Route, err error) []Violation {
	if err == nil {
		return nil
	}
	op := route.Operation
	opPtr := operationPointer(route)
	mk := func(msg, ptr, loc string) Violation {
		return Violation{Operation: op.OperationID, Direction: Request, Message: msg, Pointer: ptr, Location: loc}
	}
	var out []Violation
	for _, e := range flatten(err) {
		var sec *openapi3filter.SecurityRequirementsError
		var rerr *openapi3filter.RequestError
		switch {
		case errors.As(e, &sec):
			ptr := "#/security"
			if op.Security != nil {
				ptr = opPtr + "/security"
			}
			out = append(out, mk("security requirements failed: no bearer token in the Authorization header", ptr, "header Authorization"))
		case errors.As(e, &rerr) && rerr.Parameter != nil:
			p := rerr.Parameter
			ptr := parameterPointer(route, opPtr, p)
			loc := p.In + " " + p.Name
			msg := oneLine(rerr.Error())
			if ses := schemaErrors(rerr.Err); len(ses) > 0 {
				ptr, _ = schemaPointer(ptr+"/schema", p.Schema, ses[0])
				msg = fmt.Sprintf("parameter %q in %s: %s", p.Name, p.In, schemaMessage(ses[0]))
			}
			out = append(out, mk(msg, ptr, loc))
		case errors.As(e, &rerr) && rerr.RequestBody != nil:
			ptr := opPtr + "/requestBody"
			if op.RequestBody != nil && op.RequestBody.Ref != "" {
				ptr = op.RequestBody.Ref
			}
			ses := schemaErrors(rerr.Err)
			if len(ses) == 0 {
				out = append(out, mk("request body: "+oneLine(rerr.Reason+errSuffix(rerr.Err)), ptr, "body"))
				continue
			}
			ct := "application/json"
			media := rerr.RequestBody.Content.Get(ct)
			for _, se := range ses {
				if media == nil {
					out = append(out, mk(schemaMessage(se), ptr, "body"))
					continue
				}
				sp, loc := schemaPointer(ptr+"/content/"+escape(ct)+"/schema", media.Schema, se)
				out = append(out, mk(schemaMessage(se), sp, loc))
			}
		default:
			out = append(out, mk(oneLine(e.Error()), opPtr, ""))
		}
	}
	return out
}

func noRoute(req *http.Request, err error) Violation {
	return Violation{Direction: Request, Pointer: PointerNoRoute, Location: "path",
		Message: fmt.Sprintf("no operation matches %s %s: %v", req.Method, req.URL.Path, err)}
}

// flatten turns kin-openapi's multi-errors into a list.
func flatten(err error) []error {
	// Only a multi-error at the top: errors.As would look through a RequestError into its
	// own multi-error of schema errors and lose the parameter or body it belongs to.
	if multi, ok := err.(openapi3.MultiError); ok {
		var out []error
		for _, e := range multi {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// schemaErrors returns the schema errors inside err, in order.
func schemaErrors(err error) []*openapi3.SchemaError {
	if err == nil {
		return nil
	}
	var out []*openapi3.SchemaError
	for _, e := range flatten(err) {
		var se *openapi3.SchemaError
		if errors.As(e, &se) {
			out = append(out, se)
		} else if u := errors.Unwrap(e); u != nil && u != e {
			out = append(out, schemaErrors(u)...)
		}
	}
	return out
}

func schemaMessage(se *openapi3.SchemaError) string {
	if se.Reason != "" {
		return oneLine(se.Reason)
	}
	if se.Origin != nil {
		return oneLine(se.Origin.Error())
	}
	return fmt.Sprintf("value does not match the schema's %q", se.SchemaField)
}

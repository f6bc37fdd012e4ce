package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Error codes of the Error record, one per cause (DESIGN.md).
const (
	CodeUnauthorized         = "unauthorized"
	CodeInvalidRequest       = "invalid_request"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodePayloadTooLarge      = "payload_too_large"
	CodeStoreFull            = "store_full"
	CodeInternal             = "internal"
	CodeNotImplemented       = "not_implemented" // an operation of the spec the reference cannot serve (generic.go)
)

// Error is the spec's Error record: every failure the server answers carries one.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

// Error makes an Error usable as a Go error, so handlers can return it.
func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func NewError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func Invalid(format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, CodeInvalidRequest, format, args...)
}

func notFound(format string, args ...any) *Error {
	return NewError(http.StatusNotFound, CodeNotFound, format, args...)
}

var (
	ErrUnauthorized = NewError(http.StatusUnauthorized, CodeUnauthorized, "missing or invalid API key")
	ErrNoRoute      = NewError(http.StatusNotFound, CodeNotFound, "no such resource")
	errStoreFull    = NewError(http.StatusInsufficientStorage, CodeStoreFull, "the store is full")
	errInternal     = NewError(http.StatusInternalServerError, CodeInternal, "internal server error")
)

// outsideSpec are the statuses a handler may answer with although no operation documents
// them: limits, and the 501 of an operation the reference cannot serve.
var outsideSpec = map[int]bool{
	http.StatusRequestEntityTooLarge: true,
	http.StatusUnsupportedMediaType:  true,
	http.StatusInsufficientStorage:   true,
	http.StatusNotImplemented:        true, // an operation of the spec the reference cannot serve (generic.go)
}

// methodNotAllowed carries the methods the spec declares for the path, for the Allow header.
type methodNotAllowed struct{ allow string }

func (m *methodNotAllowed) Error() string { return "method not allowed" }

// errorWriter is the one choke point every failure goes through: it turns any error into an
// Error record. Unknown errors are logged and masked as internal.
type ErrorWriter struct {
	Log *log.Logger
	// noRoute, if set, words the 404 of a path no operation has (a hint where one helps);
	// nil: errNoRoute.
	NoRoute func(r *http.Request) *Error
}

func (ew *ErrorWriter) WriteError(w http.ResponseWriter, r *http.Request, err error) *Error {
	e := ew.classify(r, err)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	var unread *bodyReadError
	if errors.As(err, &unread) {
		// The rest of the body may still arrive; it must not be read as the next request.
		h.Set("Connection", "close")
	}
	switch e.Status {
	case http.StatusUnauthorized:
		h.Set("WWW-Authenticate", "Bearer")
	case http.StatusMethodNotAllowed:
		var m *methodNotAllowed
		if errors.As(err, &m) {
			h.Set("Allow", m.allow)
		}
	}
	if len(e.Message) > MaxMessageBytes {
		short := *e
		short.Message = Truncate(e.Message, MaxMessageBytes)
		e = &short
	}
	body, _ := json.Marshal(e) // an Error of strings and an int always marshals
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(body, '\n'))
	return e
}

// Fail answers err into the recorder of an operation's handler. The spec cannot list every
// limit of a deployment (section 8: request size limits are not shown); an Error for one
// is the server's answer, not drift to catch.
func (ew *ErrorWriter) Fail(rec *Recorder, r *http.Request, err error) {
	rec.OutsideSpec = outsideSpec[ew.WriteError(rec, r, err).Status]
}

// maxMessageBytes bounds Error.message: messages quote the offending value, and a client
// that sends a 10 KB query value needs the first few hundred bytes of it back, not all.
const MaxMessageBytes = 512

// truncate shortens s to at most n bytes, on a rune boundary, marking the cut.
func Truncate(s string, n int) string {
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// classify maps an error, including kin-openapi's, to the Error record to send.
func (ew *ErrorWriter) classify(r *http.Request, err error) *Error {
	var (
		e      *Error
		sec    *openapi3filter.SecurityRequirementsError
		big    *http.MaxBytesError
		req    *openapi3filter.RequestError
		meth   *methodNotAllowed
		unread *bodyReadError
	)
	switch {
	case errors.As(err, &e):
		return e
	// kin-openapi reads the body before it calls the authentication function, so a body
	// over the limit surfaces inside a SecurityRequirementsError: look for it first.
	case errors.As(err, &big):
		return NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge,
			"request body larger than %d bytes", big.Limit)
	case errors.As(err, &unread): // as with big: may come inside a SecurityRequirementsError
		return Invalid("request body could not be read (%s)", unread.reason())
	case errors.As(err, &sec):
		return ErrUnauthorized
	case errors.As(err, &meth), errors.Is(err, routers.ErrMethodNotAllowed):
		return NewError(http.StatusMethodNotAllowed, CodeMethodNotAllowed,
			"method %s not allowed on %s", r.Method, r.URL.Path)
	case errors.Is(err, routers.ErrPathNotFound):
		if ew.NoRoute != nil {
			return ew.NoRoute(r)
		}
		return ErrNoRoute
	case errors.As(err, &req):
		if req.RequestBody != nil && req.Err == nil && !mediaTypeOK(req.RequestBody.Content, r) {
			return UnsupportedMediaType(r)
		}
		return Invalid("%s", err.Error())
	}
	ew.Log.Printf("internal error: %s %s: %v", r.Method, r.URL.Path, err)
	return errInternal
}

// violated is the 500 Error that replaces a response the spec does not allow.
func Violated(err error) *Error {
	return NewError(http.StatusInternalServerError, CodeInternal, "the server's response violated the spec (%v)", err)
}

func UnsupportedMediaType(r *http.Request) *Error {
	return NewError(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType,
		"Content-Type %q is not supported; use application/json", r.Header.Get("Content-Type"))
}

// mediaTypeOK reports whether the request's Content-Type is one the request body accepts.
func mediaTypeOK(content openapi3.Content, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	return ct != "" && content.Get(ct) != nil
}

// bodyReadError is a failure to read the request body: the client's fault, a 400.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "reading the request body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// reason says what went wrong in words a client can use, without the socket addresses a
// net.OpError carries.
func (e *bodyReadError) reason() string {
	var ne net.Error
	switch {
	case errors.As(e.err, &ne) && ne.Timeout():
		return "timed out"
	case errors.Is(e.err, io.ErrUnexpectedEOF), errors.Is(e.err, io.EOF):
		return "it ended early"
	default:
		return "the connection failed"
	}
}

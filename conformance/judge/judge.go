// Package judge holds the requirements every front end of the harness judges alike, each
// as one function: the Error record (section 7), what a listing may hold (section 4.1) and
// that a stored animal equals what was sent (sections 2 and 4.2). The runner's rules, the
// generated cases, the session's spec checks, the proxy and the explorer all call these, so
// a requirement is read and worded once. Findings are report.Failure values in the
// project's words, each naming its section and carrying its level; the judge reads values
// from the description's facts, never from literals, and imports only spec and report.
package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// errorPointer is the Error record in the description.
const errorPointer = "#/components/schemas/Error"

// ErrorRecord judges an error answer (status 400 or above) against section 7: "All error
// responses use the Error record (code, message, status), where status repeats the HTTP
// status code", as application/json. Where the description's own validation has already
// judged the body against a documented Error response (shapeJudged), only what the
// description cannot say is judged: that status repeats the HTTP status. Otherwise the
// media type and the body's shape (the description's Error schema) are judged too.
func ErrorRecord(f *spec.Facts, status int, header http.Header, body []byte, shapeJudged bool) []report.Failure {
	if status < 400 {
		return nil
	}
	out := errorStatusField(status, body)
	if !shapeJudged {
		out = append(out, errorShape(f.ErrSchema, header, body)...)
	}
	return out
}

// AboutErrorRecord reports whether f, a finding on an error answer, is about its Error
// record (section 7): one of ErrorRecord's, or the description's validation of the Error
// schema; a caller that sorts findings into rules of its own (explore) asks here rather than
// reading the words.
func AboutErrorRecord(f report.Failure) bool {
	return strings.HasPrefix(f.Pointer, errorPointer) || strings.HasPrefix(f.Message, "error response") ||
		strings.Contains(f.Message, "(section 7)")
}

// errorStatusField: the record's status repeats the HTTP status. A body that is no record
// with a status is left to the shape (or to the description's validation).
func errorStatusField(status int, body []byte) []report.Failure {
	var e struct {
		Status *json.Number `json:"status"`
	}
	if json.Unmarshal(body, &e) != nil || e.Status == nil {
		return nil
	}
	if e.Status.String() != fmt.Sprint(status) {
		return []report.Failure{{
			Level:    report.Must,
			Message:  fmt.Sprintf("the Error record's status is %s but the HTTP status is %d (section 7)", e.Status, status),
			Expected: fmt.Sprint(status), Actual: e.Status.String(),
			Pointer: errorPointer + "/properties/status", Location: "body/status",
		}}
	}
	return nil
}

// errorShape: application/json, and a JSON value the Error schema accepts.
func errorShape(schema *openapi3.SchemaRef, header http.Header, body []byte) []report.Failure {
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return []report.Failure{{Level: report.Must,
			Message:  fmt.Sprintf("error response has media type %q, not application/json (section 7)", header.Get("Content-Type")),
			Location: "header Content-Type", Expected: "application/json", Actual: header.Get("Content-Type")}}
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []report.Failure{{Level: report.Must, Message: "error response body is not JSON: " + err.Error() + " (section 7)", Pointer: errorPointer, Location: "body"}}
	}
	if err := schema.Value.VisitJSON(v); err != nil {
		var se *openapi3.SchemaError
		ptr, loc, msg := errorPointer, "body", err.Error()
		if errors.As(err, &se) {
			msg = se.Reason
			if se.SchemaField != "" {
				ptr += "/" + se.SchemaField
			}
			if p := se.JSONPointer(); len(p) > 0 {
				loc += "/" + strings.Join(p, "/")
			}
		}
		return []report.Failure{{Level: report.Must, Message: "error response is not an Error record: " + msg + " (section 7)", Pointer: ptr, Location: loc}}
	}
	return nil
}

// Package kit is the plumbing every faulty server of the project is built from: the
// request-side mutants (conformance/mutants), the sequence mutants
// (conformance/explore/seqmutants) and the faulty servers of the harness's own tests. A fault
// is a middleware around the reference server; the kit says which requests it applies to,
// holds the reference's answer back so that the fault can change it (status, headers, JSON
// body), changes a request before the reference sees it, and answers an Error record
// instead. It imports only the standard library.
package kit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
)

// Which requests a fault applies to. Paths are matched by their end, so the base path
// (/v1) comes from wherever the server is mounted, not from here.

// IsList is a listing: GET on the collection.
func IsList(r *http.Request) bool {
	return r.Method == http.MethodGet && path.Base(r.URL.Path) == "pets"
}

// IsCreate is a create: POST on the collection.
func IsCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && path.Base(r.URL.Path) == "pets"
}

// IsGet is a fetch of one animal: GET on an item of the collection.
func IsGet(r *http.Request) bool {
	return r.Method == http.MethodGet && path.Base(path.Dir(r.URL.Path)) == "pets"
}

// AnyRequest matches every request.
func AnyRequest(*http.Request) bool { return true }

// Reply is a response of the reference server, held back so that a fault can change it.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Capture serves r with next and returns the response instead of sending it.
func Capture(next http.Handler, r *http.Request) *Reply {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	return &Reply{Status: rec.Code, Header: rec.Header().Clone(), Body: rec.Body.Bytes()}
}

// Send writes the (changed) reply; the length is recomputed by net/http.
func (rp *Reply) Send(w http.ResponseWriter) {
	for k, vs := range rp.Header {
		w.Header()[k] = vs
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rp.Status)
	_, _ = w.Write(rp.Body)
}

// Decode reads the JSON b into v, numbers kept as text (json.Number); it reports whether b
// was JSON of v's shape.
func Decode(b []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v) == nil
}

// Object and Objects decode a Pet and a Pets body, numbers kept as text.
func (rp *Reply) Object() (map[string]any, bool) {
	var m map[string]any
	return m, Decode(rp.Body, &m) && m != nil
}

// Objects decodes a Pets body (see Object).
func (rp *Reply) Objects() ([]map[string]any, bool) {
	var l []map[string]any
	return l, Decode(rp.Body, &l)
}

// SetBody replaces the body with v as JSON, status and headers kept.
func (rp *Reply) SetBody(v any) {
	b, _ := json.Marshal(v)
	rp.Body = append(b, '\n')
}

// SetJSON replaces the reply with a JSON body of the given status.
func (rp *Reply) SetJSON(status int, v any) {
	rp.Status = status
	rp.SetBody(v)
	rp.Header.Set("Content-Type", "application/json")
}

// EditJSON decodes the body, lets edit change it and encodes the result. A body that is
// not JSON is left alone: the fault then does not apply to it.
func (rp *Reply) EditJSON(edit func(v any) any) {
	var v any
	if !Decode(rp.Body, &v) {
		return
	}
	if b, err := json.Marshal(edit(v)); err == nil {
		rp.Body = append(b, '\n')
	}
}

// EachObject applies edit to v when it is an object, or to each object of v when it is an
// array: the same projection for a Pet and for Pets.
func EachObject(edit func(map[string]any)) func(any) any {
	return func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			edit(t)
		case []any:
			for _, e := range t {
				if m, ok := e.(map[string]any); ok {
					edit(m)
				}
			}
		}
		return v
	}
}

// Respond returns a middleware that serves the requests matching when through next and
// lets edit change the response before it leaves.
func Respond(when func(*http.Request) bool, edit func(r *http.Request, rp *Reply)) func(http.Handler) http.Handler {
	return RespondNext(when, func(_ http.Handler, r *http.Request, rp *Reply) { edit(r, rp) })
}

// RespondNext is Respond for faults that ask the reference server more (other listings)
// to build their answer.
func RespondNext(when func(*http.Request) bool, edit func(next http.Handler, r *http.Request, rp *Reply)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !when(r) {
				next.ServeHTTP(w, r)
				return
			}
			rp := Capture(next, r)
			edit(next, r, rp)
			rp.Send(w)
		})
	}
}

// OnErrors changes every error response (status 400 and above).
func OnErrors(edit func(rp *Reply)) func(http.Handler) http.Handler {
	return Respond(AnyRequest, func(_ *http.Request, rp *Reply) {
		if rp.Status >= 400 {
			edit(rp)
		}
	})
}

// OnSuccess changes every successful response of the requests matching when.
func OnSuccess(when func(*http.Request) bool, edit func(rp *Reply)) func(http.Handler) http.Handler {
	return Respond(when, func(_ *http.Request, rp *Reply) {
		if rp.Status < 300 {
			edit(rp)
		}
	})
}

// Request returns a middleware that changes the requests matching when before the
// reference server sees them.
func Request(when func(*http.Request) bool, edit func(r *http.Request)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if when(r) {
				r = r.Clone(r.Context())
				edit(r)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Query changes the query of the matching requests.
func Query(when func(*http.Request) bool, edit func(q url.Values)) func(http.Handler) http.Handler {
	return Request(when, func(r *http.Request) {
		q := r.URL.Query()
		edit(q)
		r.URL.RawQuery = q.Encode()
	})
}

// Body changes the body of the matching requests; edit gets the bytes as sent.
func Body(when func(*http.Request) bool, edit func(r *http.Request, b []byte) []byte) func(http.Handler) http.Handler {
	return Request(when, func(r *http.Request) {
		var b []byte
		if r.Body != nil {
			b, _ = io.ReadAll(r.Body)
		}
		b = edit(r, b)
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
	})
}

// BodyObject changes the matching request bodies that are JSON objects.
func BodyObject(when func(*http.Request) bool, edit func(m map[string]any)) func(http.Handler) http.Handler {
	return Body(when, func(_ *http.Request, b []byte) []byte {
		var m map[string]any
		if !Decode(b, &m) || m == nil {
			return b
		}
		edit(m)
		out, _ := json.Marshal(m)
		return out
	})
}

// WithPath is r for another path (getPet with another id), for a fault that asks the
// reference server about something else.
func WithPath(r *http.Request, p string) *http.Request {
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = p, ""
	return r2
}

// Fail answers with an Error record of the given status instead of serving the request:
// the way a crashed handler looks behind a recovery middleware.
func Fail(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]any{"code": code, "message": message, "status": status})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// CrashWhen answers the matching requests with a 500 Error record.
func CrashWhen(when func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if when(r) {
				Fail(w, http.StatusInternalServerError, "internal", "internal server error")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

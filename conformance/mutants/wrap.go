package mutants

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
func isList(r *http.Request) bool {
	return r.Method == http.MethodGet && path.Base(r.URL.Path) == "pets"
}

func isCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && path.Base(r.URL.Path) == "pets"
}

func isGet(r *http.Request) bool {
	return r.Method == http.MethodGet && path.Base(path.Dir(r.URL.Path)) == "pets"
}

func anyRequest(*http.Request) bool { return true }

// reply is a response of the reference server, held back so that a fault can change it.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// capture serves r with next and returns the response instead of sending it.
func capture(next http.Handler, r *http.Request) *reply {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	return &reply{status: rec.Code, header: rec.Header().Clone(), body: rec.Body.Bytes()}
}

// send writes the (changed) reply; the length is recomputed by net/http.
func (rp *reply) send(w http.ResponseWriter) {
	for k, vs := range rp.header {
		w.Header()[k] = vs
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rp.status)
	_, _ = w.Write(rp.body)
}

// editJSON decodes the body, lets edit change it and encodes the result. A body that is
// not JSON is left alone: the fault then does not apply to it.
func (rp *reply) editJSON(edit func(v any) any) {
	dec := json.NewDecoder(bytes.NewReader(rp.body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	if b, err := json.Marshal(edit(v)); err == nil {
		rp.body = append(b, '\n')
	}
}

// eachObject applies edit to v when it is an object, or to each object of v when it is an
// array: the same projection for a Pet and for Pets.
func eachObject(edit func(map[string]any)) func(any) any {
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

// setJSON replaces the reply with a JSON body.
func (rp *reply) setJSON(status int, v any) {
	b, _ := json.Marshal(v)
	rp.status, rp.body = status, append(b, '\n')
	rp.header.Set("Content-Type", "application/json")
}

// respond returns a middleware that serves the requests matching when through next and
// lets edit change the response before it leaves.
func respond(when func(*http.Request) bool, edit func(r *http.Request, rp *reply)) func(http.Handler) http.Handler {
	return respondNext(when, func(_ http.Handler, r *http.Request, rp *reply) { edit(r, rp) })
}

// respondNext is respond for faults that ask the reference server more (other listings)
// to build their answer.
func respondNext(when func(*http.Request) bool, edit func(next http.Handler, r *http.Request, rp *reply)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !when(r) {
				next.ServeHTTP(w, r)
				return
			}
			rp := capture(next, r)
			edit(next, r, rp)
			rp.send(w)
		})
	}
}

// onErrors changes every error response (status 400 and above).
func onErrors(edit func(rp *reply)) func(http.Handler) http.Handler {
	return respond(anyRequest, func(_ *http.Request, rp *reply) {
		if rp.status >= 400 {
			edit(rp)
		}
	})
}

// onSuccess changes every successful response of the requests matching when.
func onSuccess(when func(*http.Request) bool, edit func(rp *reply)) func(http.Handler) http.Handler {
	return respond(when, func(_ *http.Request, rp *reply) {
		if rp.status < 300 {
			edit(rp)
		}
	})
}

// editErrorJSON changes the Error record of every error response.
func editErrorJSON(edit func(map[string]any)) func(http.Handler) http.Handler {
	return onErrors(func(rp *reply) { rp.editJSON(eachObject(edit)) })
}

// request returns a middleware that changes the requests matching when before the
// reference server sees them.
func request(when func(*http.Request) bool, edit func(r *http.Request)) func(http.Handler) http.Handler {
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

// query changes the query of the matching requests.
func query(when func(*http.Request) bool, edit func(q url.Values)) func(http.Handler) http.Handler {
	return request(when, func(r *http.Request) {
		q := r.URL.Query()
		edit(q)
		r.URL.RawQuery = q.Encode()
	})
}

// body changes the body of the matching requests; edit gets the bytes as sent.
func body(when func(*http.Request) bool, edit func(r *http.Request, b []byte) []byte) func(http.Handler) http.Handler {
	return request(when, func(r *http.Request) {
		var b []byte
		if r.Body != nil {
			b, _ = io.ReadAll(r.Body)
		}
		b = edit(r, b)
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
	})
}

// bodyObject changes the matching request bodies that are JSON objects.
func bodyObject(when func(*http.Request) bool, edit func(m map[string]any)) func(http.Handler) http.Handler {
	return body(when, func(_ *http.Request, b []byte) []byte {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var m map[string]any
		if dec.Decode(&m) != nil || m == nil {
			return b
		}
		edit(m)
		out, _ := json.Marshal(m)
		return out
	})
}

// fail answers with an Error record of the given status instead of serving the request:
// the way a crashed handler looks behind a recovery middleware.
func fail(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]any{"code": code, "message": message, "status": status})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// crashWhen answers the matching requests with a 500 Error record.
func crashWhen(when func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if when(r) {
				fail(w, http.StatusInternalServerError, "internal", "internal server error")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// asNumber is v as a JSON number, or the empty number (which converts to nothing).
func asNumber(v any) json.Number {
	n, _ := v.(json.Number)
	return n
}

package seqmutants

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
)

// Which requests a wrapper changes, matched by the end of the path so that the base path
// comes from wherever the server is mounted.
func isList(r *http.Request) bool {
	return r.Method == http.MethodGet && path.Base(r.URL.Path) == "pets"
}

func isCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && path.Base(r.URL.Path) == "pets"
}

func isGet(r *http.Request) bool {
	return r.Method == http.MethodGet && path.Base(path.Dir(r.URL.Path)) == "pets"
}

// reply is an answer of the reference server, held back so that a wrapper can change it.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func capture(next http.Handler, r *http.Request) *reply {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	return &reply{status: rec.Code, header: rec.Header().Clone(), body: rec.Body.Bytes()}
}

func (rp *reply) send(w http.ResponseWriter) {
	for k, vs := range rp.header {
		w.Header()[k] = vs
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rp.status)
	_, _ = w.Write(rp.body)
}

// object and objects decode a Pet and a Pets body, numbers kept as text.
func (rp *reply) object() (map[string]any, bool) {
	var m map[string]any
	return m, decode(rp.body, &m) && m != nil
}

func (rp *reply) objects() ([]map[string]any, bool) {
	var l []map[string]any
	return l, decode(rp.body, &l)
}

func decode(b []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v) == nil
}

func (rp *reply) setBody(v any) {
	b, _ := json.Marshal(v)
	rp.body = append(b, '\n')
}

// fail answers with an Error record instead of serving the request.
func fail(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]any{"code": code, "message": message, "status": status})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func idOf(m map[string]any) (int64, bool) {
	n, ok := m["id"].(json.Number)
	if !ok {
		return 0, false
	}
	id, err := n.Int64()
	return id, err == nil
}

func setID(m map[string]any, id int64) { m["id"] = json.Number(strconv.FormatInt(id, 10)) }

// withPath is r for another path under the same directory (getPet with another id).
func withPath(r *http.Request, p string) *http.Request {
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = p, ""
	return r2
}

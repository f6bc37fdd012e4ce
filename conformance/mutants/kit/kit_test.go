package kit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// echo answers the body it got, with the header X-Was and a Content-Length that a rewrite
// makes wrong.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Was", "here")
	w.Header().Set("Content-Length", "999")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(b)
})

func serve(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	return rec
}

func TestRewriting(t *testing.T) {
	// A response edited as JSON keeps its status and headers; the length is net/http's again.
	h := OnSuccess(IsCreate, func(rp *Reply) { rp.EditJSON(EachObject(func(m map[string]any) { delete(m, "id") })) })(echo)
	rec := serve(h, http.MethodPost, "/v1/pets", `[{"id":12345678901234567890,"name":"a"},{"id":2}]`)
	assert.Equal(t, http.StatusCreated, rec.Code)
	assert.Equal(t, "here", rec.Header().Get("X-Was"))
	assert.Empty(t, rec.Header().Get("Content-Length"))
	assert.Equal(t, "[{\"name\":\"a\"},{}]\n", rec.Body.String())
	// A request that does not match passes untouched; a body that is not JSON is left alone.
	assert.Equal(t, `{"id":1}`, serve(h, http.MethodPost, "/v1/pets/1", `{"id":1}`).Body.String())
	assert.Equal(t, "not json", serve(h, http.MethodPost, "/v1/pets", "not json").Body.String())

	// A request body edited as a JSON object reaches the server changed, numbers as sent.
	h = BodyObject(IsCreate, func(m map[string]any) { m["name"] = "b" })(echo)
	assert.Equal(t, `{"categoryId":1.50,"name":"b"}`, serve(h, http.MethodPost, "/v1/pets", `{"name":"a","categoryId":1.50}`).Body.String())

	// A query edited; an Error record instead of an answer.
	seen := ""
	h = Query(IsList, func(q url.Values) { q.Set("limit", "7") })(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r.URL.RawQuery }))
	serve(h, http.MethodGet, "/v1/pets?limit=2", "")
	assert.Equal(t, "limit=7", seen)
	rec = serve(CrashWhen(IsGet)(echo), http.MethodGet, "/v1/pets/3", "")
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.JSONEq(t, `{"code":"internal","message":"internal server error","status":500}`, rec.Body.String())
}

package double_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/reference/internal/testkit"
)

func journalOf(t *testing.T, h http.Handler, query string) double.Journal {
	t.Helper()
	w := admin(t, h, "GET", "/_admin/requests"+query, "")
	require.Equal(t, http.StatusOK, w.Code, w.Body)
	var j double.Journal
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &j))
	return j
}

// The journal lists a client's requests with the operation, the answer and the reason of a
// refusal; filters select by operation, status and time; DELETE and reset empty it.
func TestJournal(t *testing.T) {
	h := newTestServer(t, reference.Config{Seed: seedOf(2), AdminKey: adminKey, Double: double.Double{Journal: 100}})
	call(t, h, "GET", "/v1/pets?limit=1", "")
	call(t, h, "POST", "/v1/pets", `{"name":"Rex"}`)
	call(t, h, "GET", "/v1/pets/2", "")
	do(t, h, testkit.Req{Method: "GET", Path: "/v1/pets"}) // no key
	do(t, h, testkit.Req{Method: "GET", Path: "/nowhere"})
	do(t, h, testkit.Req{Method: "GET", Path: "/healthz"}) // not journalled

	j := journalOf(t, h, "")
	require.Len(t, j.Requests, 5)
	assert.Equal(t, 100, j.Capacity)
	first := j.Requests[0]
	assert.Equal(t, uint64(1), first.Seq)
	assert.Equal(t, "GET", first.Method)
	assert.Equal(t, "/v1/pets", first.Path)
	assert.Equal(t, "limit=1", first.Query)
	assert.Equal(t, "listPets", first.Operation)
	assert.Equal(t, "valid", first.Key)
	assert.Equal(t, []string{"Bearer <redacted>"}, first.Headers["Authorization"])
	assert.Equal(t, fixedNow(), first.Time, "by the server's clock")
	assert.Equal(t, 200, first.Status)
	assert.Nil(t, first.Error)

	bad := j.Requests[1]
	assert.Equal(t, "createPet", bad.Operation)
	assert.Equal(t, `{"name":"Rex"}`, bad.Body)
	require.NotNil(t, bad.Error)
	assert.Equal(t, 400, bad.Status)
	assert.Contains(t, bad.Error.Message, `property "categoryId" is missing`)
	assert.Equal(t, "none", j.Requests[3].Key)
	assert.Equal(t, "", j.Requests[4].Operation)
	assert.Equal(t, core.CodeNotFound, j.Requests[4].Error.Code)

	for query, want := range map[string][]uint64{
		"?operation=getPet":               {3},
		"?status=400":                     {2},
		"?status=4xx":                     {2, 4, 5},
		"?operation=listPets&status=401":  {4},
		"?since=2026-01-02T03:04:05Z":     {1, 2, 3, 4, 5},
		"?since=2026-01-02T03:04:06Z":     {},
		"?operation=createPet&status=2XX": {},
	} {
		var got []uint64
		for _, e := range journalOf(t, h, query).Requests {
			got = append(got, e.Seq)
		}
		if len(want) == 0 {
			assert.Empty(t, got, query)
		} else {
			assert.Equal(t, want, got, query)
		}
	}
	for _, query := range []string{"?status=abc", "?status=9xx", "?since=yesterday", "?method=GET", "?status=200&status=201", "?operation=getPets"} {
		w := admin(t, h, "GET", "/_admin/requests"+query, "")
		assert.Equal(t, http.StatusBadRequest, w.Code, query)
		assert.Equal(t, core.CodeInvalidRequest, errorBody(t, w).Code, query)
	}
	var ids []string
	for _, o := range shipped.Ops {
		ids = append(ids, o.ID)
	}
	assert.Equal(t, `operation "getPets" is no operation of the spec; they are `+strings.Join(ids, ", "),
		errorBody(t, admin(t, h, "GET", "/_admin/requests?operation=getPets", "")).Message, "a mistyped name is said, not an empty journal")
	w := call(t, h, "GET", "/_admin/requests", "")
	assert.Equal(t, http.StatusUnauthorized, w.Code, "the API key is not the admin key")

	require.Equal(t, http.StatusNoContent, admin(t, h, "DELETE", "/_admin/requests", "").Code)
	assert.Empty(t, journalOf(t, h, "").Requests)
	call(t, h, "GET", "/v1/pets", "")
	j = journalOf(t, h, "")
	require.Len(t, j.Requests, 1)
	assert.Equal(t, uint64(6), j.Requests[0].Seq, "sequence numbers go on")
	require.Equal(t, http.StatusNoContent, admin(t, h, "POST", "/_admin/reset", "").Code)
	assert.Empty(t, journalOf(t, h, "").Requests, "reset empties the journal")

	plain := newTestServer(t, reference.Config{AdminKey: adminKey})
	assert.Equal(t, http.StatusNotFound, admin(t, plain, "GET", "/_admin/requests", "").Code, "no journal unless asked")
}

// Memory stays bounded: the journal keeps its last N requests however many come, and each
// body is capped.
func TestJournalIsBounded(t *testing.T) {
	const size = 8
	h := newTestServer(t, reference.Config{AdminKey: adminKey, Double: double.Double{Journal: size}})
	for i := range 500 {
		call(t, h, "GET", fmt.Sprintf("/v1/pets?limit=%d", 1+i%100), "")
	}
	long := `{"name":"Rex","categoryId":1,"status":"available","x":"` + strings.Repeat("a", 3*double.JournalBodyBytes) + `"}`
	call(t, h, "POST", "/v1/pets", long)
	j := journalOf(t, h, "")
	require.Len(t, j.Requests, size)
	assert.Equal(t, uint64(501-size), j.Dropped)
	for i, e := range j.Requests {
		assert.Equal(t, uint64(501-size+1+i), e.Seq, "the last ones, oldest first")
	}
	last := j.Requests[size-1]
	assert.Equal(t, 201, last.Status)
	assert.Len(t, last.Body, double.JournalBodyBytes)
	assert.True(t, last.BodyTruncated)
}

// encodings are the forms a key can take in what a client sends or a server writes.
func encodings(key string) []string {
	out := []string{key, url.QueryEscape(key), url.PathEscape(key), strings.ToLower(url.QueryEscape(key))}
	j, _ := json.Marshal(key)
	out = append(out, string(j[1:len(j)-1]))
	for _, raw := range []string{key, key + ":"} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			out = append(out, enc.EncodeToString([]byte(raw)))
		}
	}
	return out
}

// After a client's session the journal and the report hold no form of the keys, wherever
// the client put them: Authorization (Bearer, Basic), other headers, the query, the path
// and the body, plain and encoded.
func TestJournalNeverHoldsTheKey(t *testing.T) {
	const key = `k3y/with+odd=chars<&>"`
	h := newTestServer(t, reference.Config{APIKeys: []string{key}, AdminKey: adminKey, Seed: seedOf(1), Double: double.Double{Journal: 100}})
	var sent int
	for _, form := range append(encodings(key), encodings(adminKey)...) {
		for _, r := range []*http.Request{
			newRequest(t, "GET", "/v1/pets?token="+url.QueryEscape(form), nil),
			newRequest(t, "GET", "/v1/pets/"+url.PathEscape(form), nil),
			newRequest(t, "POST", "/v1/pets", strings.NewReader(`{"name":`+string(must(json.Marshal(form)))+`,"categoryId":1}`)),
		} {
			r.Header.Set("Authorization", "Bearer "+key)
			r.Header.Set("X-Api-Key", form)
			serve(h, r)
			sent++
		}
	}
	basic := newRequest(t, "GET", "/v1/pets", nil)
	basic.SetBasicAuth(key, "")
	serve(h, basic)
	wrong := newRequest(t, "GET", "/v1/pets", nil)
	wrong.Header.Set("Authorization", "Bearer "+key+"x")
	serve(h, wrong)

	outputs := map[string]string{
		"journal":         admin(t, h, "GET", "/_admin/requests", "").Body.String(),
		"report JSON":     admin(t, h, "GET", "/_admin/report", "").Body.String(),
		"report Markdown": admin(t, h, "GET", "/_admin/report?format=markdown", "").Body.String(),
	}
	require.Len(t, journalOf(t, h, "").Requests, sent+2)
	for name, out := range outputs {
		require.NotEmpty(t, out)
		for _, form := range append(encodings(key), encodings(adminKey)...) {
			assert.NotContains(t, out, form, "%s holds a form of a key", name)
		}
	}
	assert.Contains(t, outputs["journal"], "<redacted>")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The report counts each operation's calls, groups the rejections by reason, leaves chosen
// answers out of them, and warns about the deprecated operation with its replacement.
func TestClientReport(t *testing.T) {
	h := newTestServer(t, reference.Config{Seed: seedOf(2), AdminKey: adminKey, Double: double.Double{Journal: 2, Scenarios: true}})
	call(t, h, "GET", "/v1/pets", "")
	call(t, h, "POST", "/v1/pets", `{"name":"Rex"}`)
	call(t, h, "POST", "/v1/pets", `{"name":"Tom"}`)
	call(t, h, "GET", "/v1/pets/1", "")
	call(t, h, "GET", "/v1/pets/2", "")
	call(t, h, "GET", "/v1/pets/1", "", "Prefer", "code=404")
	require.Equal(t, http.StatusNoContent, admin(t, h, "POST", "/_admin/reset", "").Code)
	require.Equal(t, http.StatusOK, admin(t, h, "POST", "/_admin/clock", `{"now":"2031-01-01"}`).Code)
	call(t, h, "GET", "/v1/pets/1", "")

	var rep double.ClientReport
	w := admin(t, h, "GET", "/_admin/report", "")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &rep))
	assert.Equal(t, 7, rep.Requests, "the report outlives reset and the small journal")
	byID := map[string]double.OperationReport{}
	for _, o := range rep.Operations {
		byID[o.Operation] = o
	}
	assert.Equal(t, 1, byID["listPets"].Calls)
	create := byID["createPet"]
	assert.Equal(t, 2, create.Rejected)
	require.Len(t, create.Reasons, 1, "grouped by message")
	assert.Equal(t, double.Rejection{Status: 400, Code: core.CodeInvalidRequest, Message: create.Reasons[0].Message, Count: 2}, create.Reasons[0])
	get := byID["getPet"]
	assert.Equal(t, 4, get.Calls)
	assert.Equal(t, map[int]int{200: 2, 404: 2}, get.Statuses)
	assert.Equal(t, 1, get.Rejected, "the chosen 404 is not the client's fault; the removed operation's is")
	require.NotNil(t, get.Deprecated)
	assert.Equal(t, double.Deprecation{Sunset: "2030-12-05", Replacement: "listPets", CallsAfterSunset: 1}, *get.Deprecated)
	require.Len(t, rep.Warnings, 1)
	assert.Equal(t, "getPet (GET /v1/pets/{petId}) is deprecated and is removed on 2030-12-05; the client called it 4 times (once on or after the removal date): move to listPets (GET /v1/pets)", rep.Warnings[0])

	w = call(t, h, "GET", "/_admin/report", "", "Authorization", "Bearer "+adminKey, "Accept", "text/markdown")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "text/markdown; charset=utf-8", w.Header().Get("Content-Type"))
	md := w.Body.String()
	assert.Contains(t, md, "# Client report\n\n7 requests.")
	assert.Contains(t, md, "- **getPet (GET /v1/pets/{petId}) is deprecated")
	assert.Contains(t, md, "| getPet (GET /v1/pets/{petId}) | 4 | 1 | 200 ×2, 404 ×2 |")
	assert.Contains(t, md, "| createPet (POST /v1/pets) | 400 | invalid_request |")
	assert.Equal(t, http.StatusBadRequest, admin(t, h, "GET", "/_admin/report?format=pdf", "").Code)

	one := newTestServer(t, reference.Config{AdminKey: adminKey, Double: double.Double{Journal: 10}})
	call(t, one, "GET", "/v1/pets", "")
	w = call(t, one, "GET", "/_admin/report", "", "Authorization", "Bearer "+adminKey, "Accept", "text/markdown")
	assert.Contains(t, w.Body.String(), "# Client report\n\n1 request.", "one request, in the singular")
}

// A short key (under secret.MinTextLen) is masked wherever it is a value: in a query
// parameter, a header, a cookie and Basic credentials, in the journal, the client report and
// the access log (which writes the query string).
func TestShortKeyMaskedWhereItIsAValue(t *testing.T) {
	const key = "Qz7"
	var log lockedLog
	h := newTestServer(t, reference.Config{APIKeys: []string{key}, AdminKey: adminKey, Seed: seedOf(1), Double: double.Double{Journal: 100}, Log: &log})
	for _, r := range []*http.Request{
		newRequest(t, "GET", "/v1/pets?api_key="+key+"&limit=2", nil),
		newRequest(t, "GET", "/v1/pets?token="+strings.ToLower(key), nil),
		newRequest(t, "GET", "/v1/pets", nil),
	} {
		r.Header.Set("Authorization", "Bearer "+key)
		r.Header.Set("X-Api-Key", key)
		r.Header.Set("Cookie", "sid="+key)
		serve(h, r)
	}
	basic := newRequest(t, "GET", "/v1/pets", nil)
	basic.SetBasicAuth(key, "")
	serve(h, basic)

	journal := admin(t, h, "GET", "/_admin/requests", "").Body.String()
	outputs := map[string]string{"journal": journal, "report JSON": admin(t, h, "GET", "/_admin/report", "").Body.String()}
	require.Contains(t, journal, "api_key=<redacted>&limit=2", "the query keeps its other values")
	require.Contains(t, journal, `"X-Api-Key":["<redacted>"]`)
	require.Eventually(t, func() bool { return strings.Count(log.String(), "\n") >= 4 }, 2*time.Second, 10*time.Millisecond, "the access log is written")
	outputs["access log"] = log.String()
	assert.Contains(t, outputs["access log"], `"GET /v1/pets?api_key=<redacted>&limit=2 HTTP/1.1"`)
	for name, out := range outputs {
		for _, form := range []string{key, strings.ToLower(key), strings.ToUpper(key), base64.StdEncoding.EncodeToString([]byte(key + ":"))} {
			assert.NotContains(t, out, form, "%s holds a form of the key", name)
		}
	}
}

// lockedLog is a log the server writes from its own goroutine while a test reads it.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedLog) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

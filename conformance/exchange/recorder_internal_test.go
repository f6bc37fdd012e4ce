package exchange

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/report"
)

// An exchange is written for a report when it is read, as it was sent and answered: what
// the caller changes afterwards is not in it, the key is redacted, and the order of the
// exchanges and the failures that point at them are those of the requests.
func TestExchangesAreWrittenWhenRead(t *testing.T) {
	const key = "recorder-test-key-93c1"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`[{"id":1,"name":"` + key + `","categoryId":2}]`))
	}))
	defer srv.Close()
	s, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: key, Facts: facts(t)})
	require.NoError(t, err)
	rec := NewRecorder(s.Redact)

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/pets?limit=3", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, body, err := s.DoRead(rec, false, req)
	require.NoError(t, err)
	assert.Contains(t, string(body), key, "the caller reads the answer as it came")
	req.Header.Set("Authorization", "Bearer changed")
	req.URL.RawQuery = "limit=9"
	resp.Header.Set("X-Echo", "changed")
	rec.Fail(report.Failure{Message: "a finding on the first exchange"})

	gone, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/v1/pets", nil)
	require.NoError(t, err)
	_, err = s.Do(rec, false, gone)
	require.Error(t, err)
	assert.Equal(t, 2, rec.ExchangeCount())

	failures, exchanges := rec.Results()
	require.Len(t, exchanges, 2)
	first := exchanges[0]
	assert.Equal(t, "/v1/pets?limit=3", strings.TrimPrefix(first.Request.URL, srv.URL))
	assert.Equal(t, []string{report.CredBearer.Shown}, first.Request.Header["Authorization"])
	assert.Equal(t, []string{report.CredBearer.Shown}, first.Response.Header["X-Echo"])
	assert.NotContains(t, first.Response.Body, key)
	assert.Contains(t, first.Curl, "limit=3")
	assert.NotContains(t, first.Curl, key)
	assert.NotEmpty(t, exchanges[1].Error, "the second request got no answer")
	require.NotEmpty(t, failures)
	assert.Equal(t, 0, failures[0].Exchange)
}

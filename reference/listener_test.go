package reference

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What net/http answers on its own, before the handler, comes as an Error record with the
// same status and the connection closed; what the handler answers is untouched.
func TestListenerWritesNetHTTPRefusalsAsErrorRecords(t *testing.T) {
	srv := httptest.NewUnstartedServer(newTestServer(t, Config{APIKeys: []string{"k"}}))
	srv.Listener = Listener(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		name, request string
		status        int
		code          string
	}{
		{"no host", "GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer k\r\n\r\n", 400, "invalid_request"},
		{"two hosts", "GET /v1/pets HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: Bearer k\r\n\r\n", 400, "invalid_request"},
		{"two lengths", "GET /v1/pets HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 2\r\n\r\n{}", 400, "invalid_request"},
		{"bad escape", "GET /v1/pets%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400, "invalid_request"},
		{"te gzip", "GET /v1/pets HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"},
		{"unknown expectation", "GET /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer k\r\nExpect: conformance\r\n\r\n", 417, "expectation_failed"},
		{"handler's own 401", "GET /v1/pets HTTP/1.1\r\nHost: a\r\n\r\n", 401, "unauthorized"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			_, err = io.WriteString(c, tt.request)
			require.NoError(t, err)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var rec struct {
				Code, Message string
				Status        int
			}
			require.NoError(t, json.Unmarshal(body, &rec), "%s", body)
			assert.Equal(t, tt.code, rec.Code)
			assert.Equal(t, tt.status, rec.Status)
			assert.NotEmpty(t, rec.Message)
			if tt.status != 401 {
				assert.True(t, resp.Close, "the connection is closed after a refusal of the framing")
			}
		})
	}
}

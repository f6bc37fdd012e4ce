package seqmutants

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/exchange"
)

type client struct{ t exchange.Target }

func newClient(t *testing.T, doc *openapi3.T, m Mutant) *client {
	tg, stop, err := Serve(doc, m)
	require.NoError(t, err)
	t.Cleanup(stop)
	return &client{tg}
}

func (c *client) do(t *testing.T, method, path, body string) string {
	req, err := http.NewRequest(method, c.t.BaseURL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.t.APIKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.t.Client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

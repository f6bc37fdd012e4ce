package referencetest_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/pact"
	"github.com/petstore/petstore/reference/referencetest"
)

// A client's test hands its contract to the provider's side: WritePact.
func TestWritePact(t *testing.T) {
	s := referencetest.Start(t, referencetest.Options{})
	resp, err := s.Client().Get(s.URL + "/pets?status=sold")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	path := filepath.Join(t.TempDir(), "pacts", "my-client.json")
	s.WritePact(path, "my-client", "petstore")
	p, err := pact.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "my-client", p.Consumer)
	require.Len(t, p.Interactions, 1)
	assert.Equal(t, "/v1/pets", p.Interactions[0].Request.Path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), s.APIKey)
}

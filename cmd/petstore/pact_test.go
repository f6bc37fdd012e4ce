package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/pact"
)

// --pact: at shutdown the client's distinct requests are a Pact v4 file, the key replaced by
// the placeholder.
func TestServePact(t *testing.T) {
	const key = "pact-key-0123456789"
	path := filepath.Join(t.TempDir(), "web.json")
	s := start(t, nil, "--api-key", key, "--seed", seedFile, "--pact", path, "--pact-consumer", "web")
	for range 2 {
		send(t, "GET", s.baseURL+"/pets?status=available&limit=100", key, "")
	}
	_, body := send(t, "POST", s.baseURL+"/pets", key, `{"name":"Rex","categoryId":7,"status":"available"}`)
	var created struct{ ID json.Number }
	require.NoError(t, json.Unmarshal(body, &created))
	send(t, "GET", s.baseURL+"/pets/"+created.ID.String(), key, "")

	s.stop()
	require.NoError(t, <-s.done)
	s.done <- nil
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), key)
	p, err := pact.Read(data)
	require.NoError(t, err)
	assert.Equal(t, "web", p.Consumer)
	assert.Equal(t, "petstore", p.Provider)
	require.Len(t, p.Interactions, 3, "the listing sent twice is one interaction")
	assert.Equal(t, "Bearer "+pact.KeyPlaceholder, pact.Header(p.Interactions[0].Request.Headers, "Authorization"))
	assert.Equal(t, pact.StateAnimalExists, p.Interactions[2].States[0].Name)
	var lines []string
	for line := range s.output {
		lines = append(lines, line)
	}
	assert.Contains(t, lines, "petstore: pact written to "+path)
}

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/spec"
)

// grownFile writes the spec with the named additions (internal/grownspec) and returns its
// path and the sha256 of its text.
func grownFile(t *testing.T, names ...string) (string, string) {
	t.Helper()
	text, err := grownspec.Text(names...)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	require.NoError(t, os.WriteFile(path, text, 0o600))
	sum := sha256.Sum256(text)
	return path, hex.EncodeToString(sum[:])
}

// startLines reads the n start-up lines that follow the key's.
func startLines(s *started, n int) []string {
	var out []string
	for len(out) < n {
		out = append(out, <-s.output)
	}
	return out
}

// Without --spec the server says it serves the embedded spec, with its sha256, and nothing
// else: every operation of it has its hand-written handler.
func TestServeSaysWhichSpec(t *testing.T) {
	s := start(t, nil, "--api-key", "k")
	sum := sha256.Sum256(spec.Bytes())
	assert.Equal(t, "petstore: spec the embedded spec/openapi.yaml (sha256 "+hex.EncodeToString(sum[:])+")", <-s.output)
	s.stop()
	<-s.done
	for line := range s.output {
		assert.NotContains(t, line, "501", "nothing else is said about the spec")
		assert.NotContains(t, line, "not acted on")
	}
	s.done <- nil
}

// With DELETE /pets/{petId} added to a copy of the spec, `petstore serve --spec COPY` starts,
// says so, and removes on request: 204, then 404; a key is asked for first.
func TestServeGrownSpecDeletes(t *testing.T) {
	path, sum := grownFile(t, grownspec.Delete)
	s := start(t, nil, "--api-key", "k", "--spec", path, "--seed", filepath.Join("..", "..", "testdata", "pets.json"))
	assert.Equal(t, []string{
		"petstore: spec " + path + " (sha256 " + sum + ")",
		"petstore: served by its shape: deletePet (DELETE /pets/{petId}): removes the animal",
	}, startLines(s, 2))
	resp, _ := send(t, http.MethodDelete, s.baseURL+"/pets/2", "", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	resp, body := send(t, http.MethodDelete, s.baseURL+"/pets/2", "k", "")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "%s", body)
	resp, body = send(t, http.MethodDelete, s.baseURL+"/pets/2", "k", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.JSONEq(t, `{"code":"not_found","message":"pet 2 not found","status":404}`, string(body))
	code, _ := get(t, s.baseURL+"/pets/2", "k")
	assert.Equal(t, http.StatusNotFound, code)
}

// An operation of no standard shape does not keep the server from starting: the start-up
// lines name it, and it is answered 501 with an Error. A parameter the server accepts and
// does not act on is named too, and a list parameter named like a property of the animals
// filters.
func TestServeGrownSpecUnservedAndFilter(t *testing.T) {
	path, _ := grownFile(t, grownspec.Groom, grownspec.NameFilter, grownspec.Sort)
	s := start(t, nil, "--api-key", "k", "--spec", path, "--seed", filepath.Join("..", "..", "testdata", "pets.json"))
	// The coverage lines end with those of the parameters not acted on; before them, any
	// other operation the spec has.
	const sortLine = "petstore: accepted, not acted on: listPets: query parameter sort"
	var lines []string
	for len(lines) == 0 || lines[len(lines)-1] != sortLine {
		line, ok := <-s.output
		require.True(t, ok, "the start-up lines end before %q: %q", sortLine, lines)
		lines = append(lines, line)
	}
	assert.True(t, slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "petstore: not served (answered 501 not_implemented): groomPet (POST /pets/{petId}/groom): no standard shape")
	}), "%q", lines)

	resp, body := send(t, http.MethodPost, s.baseURL+"/pets/1/groom", "k", "")
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode)
	var e map[string]any
	require.NoError(t, json.Unmarshal(body, &e))
	assert.Equal(t, "not_implemented", e["code"])
	assert.EqualValues(t, http.StatusNotImplemented, e["status"])

	code, body := get(t, s.baseURL+"/pets?name=Rex&sort=id", "k")
	require.Equal(t, http.StatusOK, code)
	var pets []map[string]any
	require.NoError(t, json.Unmarshal(body, &pets))
	require.NotEmpty(t, pets)
	for _, p := range pets {
		assert.Equal(t, "Rex", p["name"])
	}
}

// A --spec that is missing or not a valid description stops the server at start (exit 2).
func TestServeBadSpec(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("openapi: 3.0.3\npaths: [\n"), 0o600))
	for _, file := range []string{filepath.Join(dir, "absent.yaml"), bad} {
		err := run(t.Context(), []string{"petstore", "serve", "--addr", "127.0.0.1:0", "--api-key", "k", "--spec", file},
			func(string) string { return "" }, &strings.Builder{}, &strings.Builder{})
		require.Error(t, err)
		assert.Equal(t, cli.ExitUnable, cli.Code(err))
		assert.Contains(t, err.Error(), "--spec")
	}
}

// The seed is held to the spec it is served with: with status required in NewPet, a seed
// animal without one stops the server at start (exit 2), naming the file, the animal and the
// field.
func TestServeRefusesASeedTheSpecRefuses(t *testing.T) {
	doc, err := spec.Load()
	require.NoError(t, err)
	newPet := *doc.Components.Schemas["NewPet"].Value
	newPet.Required = append(slices.DeleteFunc(slices.Clone(newPet.Required), func(f string) bool { return f == "status" }), "status")
	doc.Components.Schemas["NewPet"] = &openapi3.SchemaRef{Value: &newPet}
	text, err := json.Marshal(doc) // JSON is YAML
	require.NoError(t, err)
	dir := t.TempDir()
	path, seed := filepath.Join(dir, "openapi.json"), filepath.Join(dir, "pets.json")
	require.NoError(t, os.WriteFile(path, text, 0o600))
	require.NoError(t, os.WriteFile(seed, []byte(`[{"name":"Rex","categoryId":1,"status":"available"},{"name":"Daisy","categoryId":4}]`), 0o600))
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // a server that starts stops at once, and run returns nil
	err = run(ctx, []string{"petstore", "serve", "--addr", "127.0.0.1:0", "--api-key", "k", "--spec", path, "--seed", seed},
		func(string) string { return "" }, &strings.Builder{}, &strings.Builder{})
	require.Error(t, err)
	assert.Equal(t, cli.ExitUnable, cli.Code(err))
	assert.Equal(t, `petstore: seed `+seed+`: entry 1 ("Daisy"): property "status" is missing: the spec's NewPet requires it`, err.Error())
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
)

var seedFile = filepath.Join("..", "..", "testdata", "pets.json")

// send makes one request with a bearer key ("" sends none), a body and header pairs.
func send(t *testing.T, method, url, key, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

func root(s *started) string { return strings.TrimSuffix(s.baseURL, "/v1") }

// --now 2031-01-01: getPet answers as after its removal. Without it getPet answers 200, and
// /_admin/clock moves the clock across the date.
func TestServeNow(t *testing.T) {
	s := start(t, nil, "--api-key", "k", "--seed", seedFile, "--now", "2031-01-01")
	code, body := get(t, s.baseURL+"/pets/1", "k")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, string(body), "was removed on 2030-12-05; use listPets")
	assert.Equal(t, "petstore: test double: clock from 2031-01-01", <-s.output)

	s = start(t, nil, "--api-key", "k", "--seed", seedFile, "--admin-key", "admin-key-0123")
	code, _ = get(t, s.baseURL+"/pets/1", "k")
	assert.Equal(t, http.StatusOK, code)
	resp, _ := send(t, "POST", root(s)+"/_admin/clock", "admin-key-0123", `{"now":"2030-12-05"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	code, _ = get(t, s.baseURL+"/pets/1", "k")
	assert.Equal(t, http.StatusNotFound, code)
}

// --scenarios: Prefer: code=404 gives a 404 Error, code=418 a 400 that says why; without
// the flag Prefer is ignored.
func TestServeScenarios(t *testing.T) {
	s := start(t, nil, "--api-key", "k", "--seed", seedFile, "--scenarios")
	resp, body := send(t, "GET", s.baseURL+"/pets/1", "k", "", "Prefer", "code=404")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.JSONEq(t, `{"code":"not_found","message":"Not Found (the answer the request chose with Prefer: code=404)","status":404}`, string(body))
	resp, body = send(t, "GET", s.baseURL+"/pets/1", "k", "", "Prefer", "code=418")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(body), "getPet does not document that status")

	plain := start(t, nil, "--api-key", "k", "--seed", seedFile)
	resp, _ = send(t, "GET", plain.baseURL+"/pets/1", "k", "", "Prefer", "code=404")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// The harness still passes against `petstore serve --scenarios` when no Prefer is sent,
// with --strict too (the journal and the admin key on as well).
func TestConformanceAgainstScenarios(t *testing.T) {
	s := start(t, nil, "--api-key", "conformance-key", "--scenarios", "--admin-key", "admin-key-0123")
	for _, strict := range []bool{false, true} {
		rep, err := conformance.Run(context.Background(),
			conformance.Target{BaseURL: s.baseURL, APIKey: "conformance-key"}, conformance.Options{Strict: strict})
		require.NoError(t, err)
		var bad []string
		for _, r := range rep.Results {
			if r.Status != conformance.Pass && r.Status != conformance.Skip {
				bad = append(bad, r.ID+": "+string(r.Status)+": "+r.Reason)
			}
		}
		assert.True(t, rep.Conforming(), "strict=%v: %v", strict, bad)
		assert.Empty(t, bad, "strict=%v", strict)
	}
}

// --client-report: at shutdown the report counts the getPet calls and names the
// replacement; the journal behind it lists the requests with the key masked.
func TestServeClientReport(t *testing.T) {
	const key = "client-key-0123456789"
	path := filepath.Join(t.TempDir(), "client.md")
	s := start(t, nil, "--api-key", key, "--seed", seedFile, "--admin-key", "admin-key-0123", "--client-report", path, "--journal", "3")
	for range 5 {
		get(t, s.baseURL+"/pets/2", key)
	}
	_, body := send(t, "GET", root(s)+"/_admin/requests", "admin-key-0123", "")
	var j struct {
		Requests []map[string]any `json:"requests"`
		Dropped  int              `json:"dropped"`
	}
	require.NoError(t, json.Unmarshal(body, &j))
	assert.Len(t, j.Requests, 3, "--journal 3")
	assert.Equal(t, 2, j.Dropped)
	assert.NotContains(t, string(body), key)

	s.stop()
	require.NoError(t, <-s.done)
	s.done <- nil
	report, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(report), "| getPet (GET /v1/pets/{petId}) | 5 | 0 | 200 ×5 |")
	assert.Contains(t, string(report), "called it 5 times: move to listPets (GET /v1/pets)")
	var lines []string
	for line := range s.output {
		lines = append(lines, line)
	}
	assert.Contains(t, lines, "petstore: client report written to "+path)
}

func TestDoubleFlagErrors(t *testing.T) {
	dir := t.TempDir()
	withID := filepath.Join(dir, "ids.json")
	require.NoError(t, os.WriteFile(withID, []byte(`[{"id":3,"name":"Rex","categoryId":1}]`), 0o600))
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"bad now":          {[]string{"--now", "soon"}, "--now:"},
		"negative latency": {[]string{"--latency", "-1s"}, "--latency must not be negative"},
		"latency too long": {[]string{"--latency", "40s"}, "must be below --write-timeout"},
		"fail rate":        {[]string{"--fail-rate", "1.5"}, "--fail-rate must be from 0 to 1"},
		"rate limit":       {[]string{"--rate-limit", "fast"}, "--rate-limit: want requests per second"},
		"journal":          {[]string{"--journal", "-1"}, "--journal must be from 0"},
		"report, no room":  {[]string{"--client-report", "-", "--journal", "0"}, "--client-report needs a journal"},
		"seed with ids":    {[]string{"--seed", withID}, `entry 0: "id" is not accepted`},
		"journal unread":   {[]string{"--journal", "50"}, "--journal keeps requests for GET /_admin/requests or the client report: add --admin-key or --client-report"},
		"report nowhere":   {[]string{"--client-report", filepath.Join(dir, "missing", "r.json")}, "--client-report " + filepath.Join(dir, "missing", "r.json") + " cannot be written"},
		"report a dir":     {[]string{"--client-report", dir}, "--client-report " + dir + " is a directory"},
		"dash style":       {[]string{"--scenarios=maybe"}, "for --scenarios:"},
		"pact, no room":    {[]string{"--pact", "-", "--journal", "0"}, "--pact needs a journal"},
		"pact nowhere":     {[]string{"--pact", filepath.Join(dir, "missing", "p.json")}, "--pact " + filepath.Join(dir, "missing", "p.json") + " cannot be written"},
	} {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), append([]string{"petstore", "serve"}, tc.args...),
				func(string) string { return "" }, io.Discard, io.Discard)
			require.Error(t, err)
			assert.Equal(t, cli.ExitUnable, cli.Code(err))
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// The start-up line counts in the singular when a count is one.
func TestDescribeCounts(t *testing.T) {
	var d doubleFlags
	assert.Equal(t, "petstore: test double: journal of 1 request", d.describe(reference.Config{Double: double.Double{Journal: 1}}))
	assert.Equal(t, "petstore: test double: journal of 500 requests", d.describe(reference.Config{Double: double.Double{Journal: 500}}))
}

// --vary SEED: the start line says the seed and the choices it picks, the same for the same
// seed; the ids the server shows are the seed's (above 2^53 for seed 4), and getPet finds
// an animal by the id it was shown.
func TestServeVary(t *testing.T) {
	var lines []string
	for range 2 {
		s := start(t, nil, "--api-key", "k", "--seed", seedFile, "--vary", "4")
		lines = append(lines, <-s.output)
		_, body := send(t, "GET", s.baseURL+"/pets?limit=3", "k", "")
		var pets []struct{ ID json.Number }
		require.NoError(t, json.Unmarshal(body, &pets), string(body))
		require.NotEmpty(t, pets)
		id, err := pets[0].ID.Int64()
		require.NoError(t, err)
		assert.Greater(t, id, int64(1<<53))
		code, _ := get(t, s.baseURL+"/pets/"+pets[0].ID.String(), "k")
		assert.Equal(t, http.StatusOK, code)
	}
	assert.Equal(t, "petstore: test double: "+double.ChooseVariations(4).String(), lines[0])
	assert.Equal(t, lines[0], lines[1])
	assert.Contains(t, lines[0], "vary seed 4: ids beyond-2^53")
}

// --client-report: a client that broke a MUST rule makes the server exit 1 at shutdown,
// after the report is written, naming the rules (TestServeClientReport: one that did not
// exits 0).
func TestServeClientReportFailsOnMustRule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client.json")
	s := start(t, nil, "--api-key", "k", "--client-report", path)
	code, _ := get(t, s.baseURL+"/pets?limit=500", "k")
	require.Equal(t, http.StatusBadRequest, code)
	s.stop()
	err := <-s.done
	s.done <- nil
	require.Error(t, err)
	assert.Equal(t, 1, cli.Code(err))
	assert.Contains(t, err.Error(), "the client broke 1 MUST rule of the interface document: client/limit-in-bounds (see the client report)")
	var rep double.ClientReport
	raw, rerr := os.ReadFile(path)
	require.NoError(t, rerr)
	require.NoError(t, json.Unmarshal(raw, &rep))
	assert.Equal(t, "fail", rep.Verdict)
}

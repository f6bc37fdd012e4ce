package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/proxy"
	"github.com/petstore/petstore/internal/cli"
)

const browserHAR = "../../conformance/proxy/testdata/browser.har"

var listening = regexp.MustCompile(`listening on (http://\S+)/v1,`)

// startProxy runs `conformance proxy args...` with env as the environment until the
// returned stop is called, and returns the proxy's address once it listens. stop returns
// the exit code and everything the command printed on stdout.
func startProxy(t *testing.T, env map[string]string, args ...string) (addr string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"conformance", "proxy"}, args...), func(k string) string { return env[k] }, w, io.Discard)
		w.Close()
		done <- err
	}()
	lines := bufio.NewScanner(r)
	if !lines.Scan() {
		cancel()
		t.Fatalf("proxy ended before listening: %v", <-done)
	}
	first := lines.Text() + "\n"
	m := listening.FindStringSubmatch(first)
	require.NotNil(t, m, first)
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()
	return m[1], func() (int, string) {
		cancel()
		err := <-done
		return cli.Code(err), first + <-rest
	}
}

// send sends one request with the bearer key (none for "") and returns the status and body.
func send(t *testing.T, method, url, bearer, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// curlSession sends the README's curl session through the proxy at addr: list, list with
// limit and status, create, get, an unknown id, and a request without the key.
func curlSession(t *testing.T, addr string) {
	for _, c := range []struct{ method, path, bearer, body string }{
		{"GET", "/v1/pets", key, ""},
		{"GET", "/v1/pets?limit=1&status=available", key, ""},
		{"POST", "/v1/pets", key, `{"name":"Rex","categoryId":1,"status":"available"}`},
		{"GET", "/v1/pets/1", key, ""},
		{"GET", "/v1/pets/999", key, ""},
		{"GET", "/v1/pets", "", ""},
	} {
		send(t, c.method, addr+c.path, c.bearer, c.body)
	}
}

// A session through a server that lets requests without a key in: exit 1, the violation
// lines as they happen, the summary, the HAR file, and the key in none of them; check-har
// finds the same lines in the HAR file.
func TestProxySession(t *testing.T) {
	har := filepath.Join(t.TempDir(), "session.har")
	addr, stop := startProxy(t, map[string]string{"PETSTORE_BASE_URL": openReference(t, true), "PETSTORE_API_KEY": key},
		"--listen", "127.0.0.1:0", "--record", har)
	curlSession(t, addr)
	send(t, "GET", addr+"/v1/pets/1", "", "")
	code, out := stop()
	assert.Equal(t, cli.ExitFail, code, "violations were seen: %s", out)
	violations := regexp.MustCompile(`(?m)^violation: .*\n`).FindAllString(out, -1)
	assert.Equal(t, []string{
		"violation: listPets request at header Authorization: security requirements failed: no bearer token in the Authorization header (#/security) [GET /v1/pets -> 200]\n",
		"violation: getPet request at header Authorization: security requirements failed: no bearer token in the Authorization header (#/security) [GET /v1/pets/1 -> 200]\n",
	}, violations)
	assert.Contains(t, out, "checked 7 exchanges under /v1: 2 violations, 0 ignored (not API calls)\n")
	assert.Contains(t, out, "recorded 7 exchanges to "+har)
	assert.NotContains(t, out, key)

	recorded, err := os.ReadFile(har)
	require.NoError(t, err)
	assert.NotContains(t, string(recorded), key)

	code, again, _ := runMain(t, nil, "check-har", har)
	assert.Equal(t, cli.ExitFail, code)
	assert.Equal(t, strings.Join(violations, ""), strings.Join(regexp.MustCompile(`(?m)^violation: .*\n`).FindAllString(again, -1), ""),
		"the proxy's lines, again")
}

func TestProxyConformingSession(t *testing.T) {
	addr, stop := startProxy(t, nil, "--listen", "127.0.0.1:0", "--upstream", openReference(t, false))
	curlSession(t, addr)
	_, report := send(t, "GET", addr+proxy.ReportPath, "", "")
	assert.Contains(t, report, `"checked": 6`)
	code, out := stop()
	assert.Equal(t, cli.ExitOK, code, out)
	assert.NotContains(t, out, "violation:")
	assert.Contains(t, out, "checked 6 exchanges under /v1: 0 violations, 0 ignored (not API calls)\n"+
		"client rules broken: 2 ADVISORY (requests' findings by level; SHOULD and ADVISORY do not fail)\n", "the deprecated getPet, twice: reported, not failed")
	assert.Equal(t, 2, strings.Count(out, "client rule: client/deprecated-operation (ADVISORY"), out)
}

// A MUST client rule broken (the key in the query) fails the session as a violation does,
// and check-har of its recording; the key is in neither output.
func TestProxyClientRuleFails(t *testing.T) {
	har := filepath.Join(t.TempDir(), "session.har")
	addr, stop := startProxy(t, nil, "--listen", "127.0.0.1:0", "--upstream", openReference(t, false), "--record", har)
	send(t, "GET", addr+"/v1/pets?api_key="+key, key, "")
	code, out := stop()
	assert.Equal(t, cli.ExitFail, code, out)
	want := "client rule: client/auth-bearer (MUST, section 5.1-5.2): GET /v1/pets?api_key=*** sent the key in the query string [GET /v1/pets?api_key=*** -> 200]\n"
	assert.Contains(t, out, want)
	assert.Contains(t, out, "checked 1 exchange under /v1: 0 violations, 0 ignored (not API calls)\nclient rules broken: 1 MUST")
	assert.NotContains(t, out, key)

	code, again, _ := runMain(t, nil, "check-har", har)
	assert.Equal(t, cli.ExitFail, code, again)
	assert.Contains(t, again, want)
	assert.NotContains(t, again, key)
}

// Each way the proxy cannot start is one line, with one prefix, exit 2.
func TestProxyCannotStart(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	up := openReference(t, false)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no upstream", nil, "--upstream URL is required"},
		{"not http", []string{"--upstream", "ftp://example.org/v1"}, "want an http or https URL"},
		{"no host", []string{"--upstream", "http:///v1"}, "no host"},
		{"query", []string{"--upstream", up + "?x=1"}, "without query"},
		{"bad flag", []string{"--bogus"}, "flag provided but not defined: --bogus"},
		{"stray argument", []string{"--upstream", up, "extra"}, `unexpected argument "extra"`},
		{"unreachable", []string{"--upstream", down.URL + "/v1"}, "is unreachable"},
		{"bad spec", []string{"--upstream", up, "--spec", "testdata/missing.yaml"}, "--spec"},
		{"unwritable HAR", []string{"--upstream", up, "--record", filepath.Join(t.TempDir(), "no", "x.har")}, "--record"},
		{"bad listen", []string{"--upstream", up, "--listen", "127.0.0.1:99999"}, "--listen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runMain(t, nil, append([]string{"proxy"}, tt.args...)...)
			assert.Equal(t, cli.ExitUnable, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			assert.True(t, strings.HasPrefix(errOut, "conformance proxy: "), errOut)
			assert.Equal(t, 1, strings.Count(errOut, "proxy:"), "one prefix: %q", errOut)
		})
	}
}

func TestCheckHAR(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	empty := write("empty.har", `{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}`)
	tests := []struct {
		name    string
		args    []string
		code    int
		wantOut string // a line of stdout
		wantErr string // in the one line on stderr
	}{
		{name: "violations", args: []string{browserHAR}, code: cli.ExitFail,
			wantOut: "checked 5 exchanges under /v1: 3 violations, 5 ignored (not API calls), 1 with a body over the cap or not recorded (bodies not validated)\n"},
		{name: "flags after the file", args: []string{browserHAR, "--host", "api.example"}, code: cli.ExitFail,
			wantOut: "checked 4 exchanges under /v1: 1 violation, 6 ignored"},
		{name: "missing file", args: []string{filepath.Join(dir, "nope.har")}, code: cli.ExitUnable, wantErr: "no such file"},
		{name: "not a HAR", args: []string{write("x.har", "hello")}, code: cli.ExitUnable, wantErr: "not a HAR file"},
		{name: "nothing under the base path", args: []string{empty}, code: cli.ExitUnable, wantErr: "nothing was checked"},
		{name: "help", args: []string{"-h"}, code: cli.ExitOK, wantOut: "usage: conformance check-har FILE.har [flags]\n"},
		{name: "no file", args: nil, code: cli.ExitUnable, wantErr: "want one HAR file"},
		{name: "bad spec", args: []string{"--spec", write("bad.yaml", "openapi: nope"), browserHAR}, code: cli.ExitUnable, wantErr: "--spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runMain(t, nil, append([]string{"check-har"}, tt.args...)...)
			assert.Equal(t, tt.code, code, errOut)
			if tt.wantOut != "" {
				assert.Contains(t, out, tt.wantOut)
			}
			if tt.wantErr != "" {
				assert.Contains(t, errOut, tt.wantErr)
				assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			}
		})
	}
	t.Run("clean", func(t *testing.T) {
		data, err := os.ReadFile(browserHAR)
		require.NoError(t, err)
		clean := write("clean.har", strings.Replace(string(data), `{\"id\":1,\"name\":\"Tom\"}`, `{\"id\":1,\"name\":\"Tom\",\"categoryId\":2}`, 1))
		code, out, errOut := runMain(t, nil, "check-har", "--host", "api.example", clean)
		assert.Equal(t, cli.ExitOK, code, out+errOut)
		assert.NotContains(t, out, "violation:")
	})
}

package proxy

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var listening = regexp.MustCompile(`listening on (http://\S+)/v1,`)

// startCommand runs Command until the returned stop is called, and returns the proxy's
// address once it listens. stop returns Command's error.
func startCommand(t *testing.T, args []string, getenv func(string) string) (addr string, out *syncBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuffer{wrote: make(chan struct{}, 1)}
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- Command(ctx, args, getenv, out, &stderr) }()
	for {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case <-out.wrote:
		case err := <-done:
			cancel()
			t.Fatalf("proxy ended before listening: %v; stderr: %s", err, stderr.String())
		}
	}
	return addr, out, func() error {
		cancel()
		return <-done
	}
}

func TestCommandSession(t *testing.T) {
	har := filepath.Join(t.TempDir(), "session.har")
	up := newReference(t, faulty)
	addr, out, stop := startCommand(t, []string{"--listen", "127.0.0.1:0", "--record", har},
		env(map[string]string{"PETSTORE_BASE_URL": up.URL + "/v1", "PETSTORE_API_KEY": testKey}))
	for _, c := range faultyTraffic {
		send(t, addr, c)
	}
	err := stop()
	assert.Equal(t, cli.ExitFail, cli.Code(err), "violations were seen: %v", err)
	text := out.String()
	for _, line := range wantFaulty {
		assert.Contains(t, text, line+"\n")
	}
	assert.Contains(t, text, "checked 7 exchanges under /v1: 6 violations, 0 ignored (not API calls)\n")
	assert.Contains(t, text, "recorded 7 exchanges to "+har)
	assert.NotContains(t, text, testKey)

	recorded, err := os.ReadFile(har)
	require.NoError(t, err)
	assert.NotContains(t, string(recorded), testKey)

	var stdout, stderr bytes.Buffer
	err = CheckHARCommand(context.Background(), []string{har}, &stdout, &stderr)
	assert.Equal(t, cli.ExitFail, cli.Code(err))
	assert.Equal(t, wantFaulty, lines(stdout.String())[:len(wantFaulty)], "the proxy's lines, again")
}

func TestCommandConformingSession(t *testing.T) {
	up := newReference(t, nil)
	addr, out, stop := startCommand(t, []string{"--listen", "127.0.0.1:0", "--upstream", up.URL + "/v1"}, env(nil))
	for _, c := range readmeTraffic {
		send(t, addr, c)
	}
	assert.Contains(t, string(send(t, addr, call{method: "GET", path: ReportPath}).body), `"checked": 6`)
	require.NoError(t, stop())
	assert.NotContains(t, out.String(), "violation:")
	assert.Contains(t, out.String(), "checked 6 exchanges under /v1: 0 violations, 0 ignored (not API calls)\n")
}

func TestCommandErrors(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	up := newReference(t, nil)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no upstream", nil, "--upstream URL is required"},
		{"not http", []string{"--upstream", "ftp://example.org/v1"}, "want an http or https URL"},
		{"no host", []string{"--upstream", "http:///v1"}, "no host"},
		{"query", []string{"--upstream", up.URL + "/v1?x=1"}, "without query"},
		{"bad flag", []string{"--bogus"}, "flag provided but not defined: -bogus"},
		{"stray argument", []string{"--upstream", up.URL, "extra"}, `unexpected argument "extra"`},
		{"unreachable", []string{"--upstream", down.URL + "/v1"}, "is unreachable"},
		{"bad spec", []string{"--upstream", up.URL, "--spec", "testdata/missing.yaml"}, "--spec"},
		{"unwritable HAR", []string{"--upstream", up.URL, "--record", filepath.Join(t.TempDir(), "no", "x.har")}, "--record"},
		{"bad listen", []string{"--upstream", up.URL, "--listen", "127.0.0.1:99999"}, "--listen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Command(context.Background(), tt.args, env(nil), &stdout, &stderr)
			require.Error(t, err)
			assert.Equal(t, cli.ExitUnable, cli.Code(err))
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestCheckHARCommand(t *testing.T) {
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
		wantErr string // in the error
	}{
		{name: "violations", args: []string{"testdata/browser.har"}, code: cli.ExitFail,
			wantOut: "checked 5 exchanges under /v1: 3 violations, 5 ignored (not API calls), 1 with a body over the cap or not recorded (bodies not validated)\n"},
		{name: "flags after the file", args: []string{"testdata/browser.har", "--host", "api.example"}, code: cli.ExitFail,
			wantOut: "checked 4 exchanges under /v1: 1 violation, 6 ignored"},
		{name: "missing file", args: []string{filepath.Join(dir, "nope.har")}, code: cli.ExitUnable, wantErr: "no such file"},
		{name: "not a HAR", args: []string{write("x.har", "hello")}, code: cli.ExitUnable, wantErr: "not a HAR file"},
		{name: "nothing under the base path", args: []string{empty}, code: cli.ExitUnable, wantErr: "nothing was checked"},
		{name: "help", args: []string{"-h"}, code: cli.ExitOK},
		{name: "no file", args: nil, code: cli.ExitUnable, wantErr: "want one HAR file"},
		{name: "bad spec", args: []string{"--spec", write("bad.yaml", "openapi: nope"), "testdata/browser.har"}, code: cli.ExitUnable, wantErr: "--spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := CheckHARCommand(context.Background(), tt.args, &stdout, &stderr)
			assert.Equal(t, tt.code, cli.Code(err), "%v", err)
			if tt.wantOut != "" {
				assert.Contains(t, stdout.String(), tt.wantOut)
			}
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "\n")
			}
		})
	}
	t.Run("clean", func(t *testing.T) {
		clean := write("clean.har", strings.Replace(mustRead(t, "testdata/browser.har"), `{\"id\":1,\"name\":\"Tom\"}`, `{\"id\":1,\"name\":\"Tom\",\"categoryId\":2}`, 1))
		var stdout, stderr bytes.Buffer
		err := CheckHARCommand(context.Background(), []string{"--host", "api.example", clean}, &stdout, &stderr)
		assert.NoError(t, err, stdout.String())
		assert.NotContains(t, stdout.String(), "violation:")
	})
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

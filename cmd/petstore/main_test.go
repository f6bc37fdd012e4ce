package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
)

// started is a running `petstore serve`, as its output announced it.
type started struct {
	baseURL string      // http://127.0.0.1:PORT/v1
	lines   []string    // the start-up lines
	output  chan string // the lines after them; closed when run has returned
	stderr  *lockedBuffer
	stop    context.CancelFunc
	done    chan error
}

// start runs `petstore serve args...` and waits for its two start-up lines: no sleeping,
// the lines are printed once the listener is open.
func start(t *testing.T, env map[string]string, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &started{stop: cancel, done: make(chan error, 1), output: make(chan string, 64), stderr: &lockedBuffer{}}
	go func() {
		err := run(ctx, append([]string{"petstore", "serve", "--addr", "127.0.0.1:0"}, args...),
			func(k string) string { return env[k] }, pw, s.stderr)
		_ = pw.CloseWithError(io.EOF)
		s.done <- err
	}()
	sc := bufio.NewScanner(pr)
	for len(s.lines) < 2 && sc.Scan() {
		s.lines = append(s.lines, sc.Text())
	}
	go func() { // keep later output flowing; a line nobody waits for may be dropped
		defer close(s.output)
		for sc.Scan() {
			select {
			case s.output <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	if len(s.lines) < 2 {
		cancel()
		require.FailNow(t, "petstore serve did not start", "%v", <-s.done)
	}
	_, url, ok := strings.Cut(s.lines[0], "serving ")
	require.True(t, ok, s.lines[0])
	s.baseURL, _, _ = strings.Cut(url, " ")
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	return s
}

// lockedBuffer is the server's stderr: written by the server, read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func get(t *testing.T, url, key string) (int, []byte) {
	t.Helper()
	resp, body := send(t, "GET", url, key, "")
	return resp.StatusCode, body
}

func TestServeGeneratedKeyAndSeed(t *testing.T) {
	s := start(t, nil, "--seed", filepath.Join("..", "..", "testdata", "pets.json"))
	assert.Regexp(t, `^petstore: serving http://127\.0\.0\.1:\d+/v1 \(34 animals\)$`, s.lines[0])
	key, ok := strings.CutPrefix(s.lines[1], "petstore: API key: ")
	require.True(t, ok, s.lines[1])
	assert.Len(t, key, 32)

	code, _ := get(t, strings.TrimSuffix(s.baseURL, "/v1")+"/healthz", "")
	assert.Equal(t, http.StatusOK, code)
	code, body := get(t, s.baseURL+"/pets", key)
	require.Equal(t, http.StatusOK, code)
	var pets []map[string]any
	require.NoError(t, json.Unmarshal(body, &pets))
	assert.Len(t, pets, 20)
	code, _ = get(t, s.baseURL+"/pets", "")
	assert.Equal(t, http.StatusUnauthorized, code)

	s.stop()
	assert.NoError(t, <-s.done, "a cancelled context is a clean shutdown")
	s.done <- nil // for the cleanup
}

func TestKeysFlagBeatsEnv(t *testing.T) {
	env := map[string]string{"PETSTORE_API_KEYS": "env-one, env-two", "PETSTORE_ADMIN_KEY": "env-admin"}
	s := start(t, env)
	assert.Equal(t, "petstore: 2 API keys from PETSTORE_API_KEYS", s.lines[1])
	for key, want := range map[string]int{"env-one": 200, "env-two": 200, "other": 401} {
		code, _ := get(t, s.baseURL+"/pets", key)
		assert.Equal(t, want, code, key)
	}
	reset, err := http.NewRequest("POST", strings.TrimSuffix(s.baseURL, "/v1")+"/_admin/reset", nil)
	require.NoError(t, err)
	reset.Header.Set("Authorization", "Bearer env-admin")
	resp, err := http.DefaultClient.Do(reset)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "admin key from the environment")

	s = start(t, env, "--api-key", "flag-key")
	assert.Equal(t, "petstore: 1 API key from --api-key", s.lines[1])
	for key, want := range map[string]int{"flag-key": 200, "env-one": 401} {
		code, _ := get(t, s.baseURL+"/pets", key)
		assert.Equal(t, want, code, key)
	}
}

func TestStopsOnSIGTERM(t *testing.T) {
	s := start(t, nil, "--api-key", "k")
	// run registered for SIGTERM before it printed its address, so the signal cannot kill
	// the test binary.
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	assert.NoError(t, <-s.done)
	s.done <- nil
}

func TestStartErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"busy port":      {[]string{"serve", "--addr", busy.Addr().String()}, "address already in use"},
		"missing seed":   {[]string{"serve", "--seed", filepath.Join(dir, "absent.json")}, "no such file"},
		"malformed seed": {[]string{"serve", "--seed", write("bad.json", `[{"name":`)}, "want a JSON array"},
		"invalid seed":   {[]string{"serve", "--seed", write("lost.json", `[{"name":"Rex","categoryId":1,"status":"lost"}]`)}, `lost.json: entry 0 ("Rex"): status must be one of`},
		"unknown flag":   {[]string{"serve", "--nope"}, "flag provided but not defined"},
		"bad number":     {[]string{"serve", "--max-pets", "many"}, "invalid value"},
		"negative":       {[]string{"serve", "--max-body", "-1"}, "must be positive"},
		"extra argument": {[]string{"serve", "now"}, "unexpected argument"},
		"no command":     {nil, "want the command serve"},
		"other command":  {[]string{"run"}, "want the command serve"},
	} {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), append([]string{"petstore"}, tc.args...),
				func(string) string { return "" }, io.Discard, io.Discard)
			require.Error(t, err)
			assert.Equal(t, cli.ExitUnable, cli.Code(err))
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// Both `petstore --help` and `petstore serve --help` list every flag, written --flag as the
// README writes them.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"petstore", "--help"}, {"petstore", "-h"}, {"petstore", "serve", "--help"}} {
		var out strings.Builder
		require.NoError(t, run(context.Background(), args, func(string) string { return "" }, &out, io.Discard))
		assert.Contains(t, out.String(), "usage: petstore serve", args)
		for _, flag := range []string{"--api-key key", "--admin-key key", "--now date", "--scenarios", "--client-report file", "--shutdown-timeout duration"} {
			assert.Contains(t, out.String(), "\n  "+flag, args)
		}
		assert.NotRegexp(t, `(^|\s)-[a-z]`, out.String(), "no -flag")
	}
}

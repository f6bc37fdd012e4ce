package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
)

// generous bounds every wait on the server; it is a deadline against hangs, never a delay.
const generous = 30 * time.Second

// dial opens a raw connection to a started server.
func dial(t *testing.T, s *started) net.Conn {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(s.baseURL, "http://"), "/v1")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(generous)))
	return c
}

// closedByServer reads c until the server closes it and returns what it sent before. A
// read that hits the generous deadline fails the test: the server held the connection.
func closedByServer(t *testing.T, c net.Conn) string {
	t.Helper()
	got, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %v", generous)
	}
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		require.NoError(t, err)
	}
	return string(got)
}

// A client that sends half a header and then nothing (slowloris) is cut off after
// --read-header-timeout; without a timeout the read below would hit its deadline.
func TestSlowlorisIsClosed(t *testing.T) {
	s := start(t, nil, "--api-key", "k", "--read-header-timeout", "200ms")
	c := dial(t, s)
	_, err := io.WriteString(c, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bea")
	require.NoError(t, err)
	assert.Empty(t, closedByServer(t, c), "closed without a response")

	// A client that sends its headers and then trickles nothing of the body: --read-timeout
	// ends the read, and the server answers 400 before closing.
	// The write deadline is generous so that it cannot cut the 400 off: the response must come.
	s = start(t, nil, "--api-key", "k", "--read-timeout", "300ms", "--write-timeout", "30s")
	c = dial(t, s)
	_, err = io.WriteString(c, "POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":")
	require.NoError(t, err)
	resp := closedByServer(t, c)
	assert.True(t, strings.HasPrefix(resp, "HTTP/1.1 400 "), resp)
	assert.Contains(t, resp, `"code":"invalid_request"`)
}

// Request line and headers beyond --max-header-bytes get net/http's own 431 (a text body:
// the handler never runs), then the connection is closed.
func TestHeaderLimit(t *testing.T) {
	s := start(t, nil, "--api-key", "k", "--max-header-bytes", "1024")
	// net/http allows 4096 bytes above MaxHeaderBytes before it refuses.
	big := strings.Repeat("a", 8<<10)
	for name, head := range map[string]string{
		"long header": "GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Pad: " + big + "\r\n\r\n",
		"long URL":    "GET /v1/pets?pad=" + big + " HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		c := dial(t, s)
		_, err := io.WriteString(c, head)
		require.NoError(t, err, name)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err, name)
		resp.Body.Close()
		assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode, name)
	}
	// Below the limit the same server answers normally.
	code, _ := get(t, s.baseURL+"/pets?pad="+strings.Repeat("a", 512), "k")
	assert.Equal(t, http.StatusOK, code)
}

func TestLimitFlags(t *testing.T) {
	o, err := parse([]string{"petstore", "serve", "--read-header-timeout", "1s", "--read-timeout", "2s",
		"--write-timeout", "3s", "--idle-timeout", "4s", "--max-header-bytes", "5", "--shutdown-timeout", "6s"}, io.Discard)
	require.NoError(t, err)
	srv := newHTTPServer(http.NotFoundHandler(), o.limits, io.Discard)
	assert.Equal(t, []any{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5},
		[]any{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes})
	assert.Equal(t, 6*time.Second, o.limits.shutdownTimeout)

	o, err = parse([]string{"petstore", "serve"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, defaultLimits, o.limits)
	srv = newHTTPServer(http.NotFoundHandler(), o.limits, io.Discard)
	for name, d := range map[string]time.Duration{"read header": srv.ReadHeaderTimeout, "read": srv.ReadTimeout,
		"write": srv.WriteTimeout, "idle": srv.IdleTimeout} {
		assert.Positive(t, d, name)
	}

	for _, bad := range [][]string{{"--read-header-timeout", "0"}, {"--idle-timeout", "-1s"},
		{"--max-header-bytes", "0"}, {"--shutdown-timeout", "0s"}, {"--write-timeout", "soon"}} {
		_, err := parse(append([]string{"petstore", "serve"}, bad...), io.Discard)
		require.Error(t, err, bad)
		assert.Equal(t, cli.ExitUnable, cli.Code(err), bad)
	}
}

// Without --cors-origin no response carries CORS headers; with it, the listed origin gets
// them and a preflight works, another origin gets neither.
func TestCORSFlag(t *testing.T) {
	const app = "https://app.example"
	preflight := func(s *started, origin string) *http.Response {
		req, err := http.NewRequest("OPTIONS", s.baseURL+"/pets", nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	off := start(t, nil, "--api-key", "k")
	resp := preflight(off, app)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))

	on := start(t, nil, "--api-key", "k", "--cors-origin", app, "--cors-origin", "https://other.example")
	resp = preflight(on, app)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, app, resp.Header.Get("Access-Control-Allow-Origin"))
	resp = preflight(on, "https://evil.example")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
}

// inFlight sends the head of a createPet with "Expect: 100-continue" and waits for the
// server's 100 Continue: from then on the handler is running, reading the body.
func inFlight(t *testing.T, s *started, body string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := dial(t, s)
	_, err := io.WriteString(c, "POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n"+
		"Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: "+
		strconv.Itoa(len(body))+"\r\n\r\n")
	require.NoError(t, err)
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	_, err = r.ReadString('\n') // the blank line after the interim response
	require.NoError(t, err)
	return c, r
}

// waitFor reads the server's output until a line with want, or fails when the output ends.
func waitFor(t *testing.T, s *started, want string) {
	t.Helper()
	for line := range s.output {
		if strings.Contains(line, want) {
			return
		}
	}
	t.Fatalf("the server never printed %q", want)
}

// SIGTERM while a request is in flight: the server stops accepting connections, the request
// completes with its 201, and run returns nil (exit 0).
func TestSIGTERMLetsRequestsInFlightFinish(t *testing.T) {
	s := start(t, nil, "--api-key", "k")
	body := `{"name":"Rex","categoryId":1,"status":"available"}`
	c, r := inFlight(t, s, body)

	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	waitFor(t, s, "shutting down")
	_, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(s.baseURL, "http://"), "/v1"))
	assert.Error(t, err, "a new connection after SIGTERM is refused")

	_, err = io.WriteString(c, body)
	require.NoError(t, err)
	resp, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode, "%s", got)
	assert.True(t, resp.Close, "the connection is closed after the last response")
	select {
	case err := <-s.done:
		assert.NoError(t, err, "exit 0")
		s.done <- nil
	case <-time.After(generous):
		t.Fatal("run did not return after the last request")
	}
}

// A request still in flight when --shutdown-timeout runs out is cut: its connection is
// closed and run reports it (exit 1) instead of waiting for ever.
func TestShutdownTimeoutClosesConnections(t *testing.T) {
	s := start(t, nil, "--api-key", "k", "--shutdown-timeout", "200ms")
	c, _ := inFlight(t, s, `{"name":"Rex","categoryId":1,"status":"available"}`) // the body never comes
	s.stop()
	select {
	case err := <-s.done:
		require.Error(t, err)
		assert.Equal(t, cli.ExitFail, cli.Code(err))
		assert.Contains(t, err.Error(), "--shutdown-timeout 200ms")
		s.done <- nil
	case <-time.After(generous):
		t.Fatal("run did not return after --shutdown-timeout")
	}
	closedByServer(t, c)
}

// The server's log (stderr: access log, net/http's errors) never shows a key, whether it
// came from a flag or the environment, right or wrong, in a request that succeeds or fails.
func TestKeysNeverInServerLog(t *testing.T) {
	const flagKey, envKey, adminKey = "ps_flag_9c2e4b1d8f60a5c3", "ps_env_3e9b2d4f6a8c1f7a", "ps_admin_6a5f4e3d2c1b0a9f"
	for _, s := range []*started{
		start(t, nil, "--api-key", flagKey, "--admin-key", adminKey, "--max-header-bytes", "1024"),
		start(t, map[string]string{"PETSTORE_API_KEYS": envKey, "PETSTORE_ADMIN_KEY": adminKey}, "--max-header-bytes", "1024"),
	} {
		for _, key := range []string{flagKey, envKey, flagKey[:len(flagKey)-1] + "x", adminKey} {
			get(t, s.baseURL+"/pets", key)
			get(t, s.baseURL+"/pets/abc", key)
			get(t, s.baseURL+"/pets/99", key)
			c := dial(t, s) // over the header limit: net/http's own 431
			_, err := io.WriteString(c, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+key+
				"\r\nX-Pad: "+strings.Repeat("a", 8<<10)+"\r\n\r\n")
			require.NoError(t, err)
			closedByServer(t, c)
		}
		s.stop()
		require.NoError(t, <-s.done)
		s.done <- nil
		logged := s.stderr.String()
		require.Contains(t, logged, `"GET /v1/pets HTTP/1.1" 200`, "the access log was written")
		for _, secret := range []string{flagKey, envKey, adminKey, "ps_", "Bearer"} {
			assert.NotContains(t, logged, secret)
		}
	}
}

// Without a key from a flag or the environment, each start makes a new random key: none is
// built in.
func TestGeneratedKeysDiffer(t *testing.T) {
	a, b := start(t, nil), start(t, nil)
	assert.NotEqual(t, a.lines[1], b.lines[1])
}

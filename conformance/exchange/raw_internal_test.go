package exchange

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/wire"
	"github.com/petstore/petstore/spec"
)

// The key, and a short secret of a header every request carries (masked as a value).
const rawKeyForTest, rawGateway = "raw-secret-7f3c", "Gw4x"

// rawListener accepts connections on a loopback port, reads each request's bytes until the
// client stops writing for a moment, hands them to got and answers answer (nothing: holds
// the connection open until the test ends).
func rawListener(t *testing.T, answer string) (addr string, got chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	got = make(chan []byte, 16)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				var buf []byte
				r := bufio.NewReader(conn)
				for {
					_ = conn.SetReadDeadline(time.Now().Add(150 * time.Millisecond))
					b := make([]byte, 4096)
					n, err := r.Read(b)
					buf = append(buf, b[:n]...)
					if err != nil {
						break
					}
				}
				got <- buf
				if answer == "" {
					<-done
					return
				}
				_, _ = io.WriteString(conn, answer)
			}()
		}
	}()
	return ln.Addr().String(), got
}

func rawSession(t *testing.T, addr string, timeout time.Duration) *Session {
	t.Helper()
	facts, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	s, err := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: rawKeyForTest, Facts: facts, Timeout: timeout,
		Headers: http.Header{"X-Gateway": {rawGateway}}})
	require.NoError(t, err)
	return s
}

const errorRecord = `{"code":"invalid_request","message":"bad host","status":400}`

var errorAnswer = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(errorRecord)) +
	"\r\nConnection: close\r\n\r\n" + errorRecord

// The raw sender writes exactly the request line and fields the request asks for, the key
// among them; the report and the reproduce line hold no trace of the key, and the line, run
// by a shell, writes the same bytes.
func TestRawSenderWritesTheBytesAsked(t *testing.T) {
	addr, got := rawListener(t, errorAnswer)
	s := rawSession(t, addr, 5*time.Second)
	list := wire.Request{Method: http.MethodGet, Path: "/pets", Query: []wire.Param{{Name: "limit", Value: "1"}}}
	auth := "Authorization: Bearer " + rawKeyForTest + "\r\nX-Gateway: " + rawGateway + "\r\n"
	for _, tt := range []struct {
		name string
		raw  wire.Raw
		body string
		want string
		curl string // in the reproduce line: curl's option, or "printf" for a pipe into nc
	}{
		{"no host", wire.Raw{HostSet: true}, "",
			"GET /v1/pets?limit=1 HTTP/1.1\r\n" + auth + "\r\n", "-H 'Host:'"},
		{"empty host", wire.Raw{HostSet: true, Hosts: []string{""}}, "",
			"GET /v1/pets?limit=1 HTTP/1.1\r\nHost: \r\n" + auth + "\r\n", "-H 'Host;'"},
		{"two hosts", wire.Raw{HostSet: true, Hosts: []string{"{host}", "example.invalid"}}, "",
			"GET /v1/pets?limit=1 HTTP/1.1\r\nHost: " + addr + "\r\nHost: example.invalid\r\n" + auth + "\r\n", "printf"},
		{"two lengths", wire.Raw{Lengths: []string{"0", "2"}}, "{}",
			"GET /v1/pets?limit=1 HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + "Content-Length: 0\r\nContent-Length: 2\r\n\r\n{}", "printf"},
		{"te gzip", wire.Raw{TransferEncoding: "gzip"}, "",
			"GET /v1/pets?limit=1 HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + "Transfer-Encoding: gzip\r\n\r\n", "printf"},
		{"length and chunked", wire.Raw{TransferEncoding: "chunked", Lengths: []string{"5"}}, "",
			"GET /v1/pets?limit=1 HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", "printf"},
		{"bad escape", wire.Raw{Target: "{base}{path}%zz"}, "",
			"GET /v1/pets%zz?limit=1 HTTP/1.1\r\nHost: " + addr + "\r\n" + auth + "\r\n", "--request-target '/v1/pets%zz?limit=1'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := list.Clone()
			raw := tt.raw
			r.Raw = &raw
			if tt.body != "" {
				r.Body = wire.JSONBody([]byte(tt.body))
			}
			rec := NewRecorder(s.Redact)
			resp, _, err := s.Exchange(context.Background(), rec, true, r)
			require.NoError(t, err)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			sent := <-got
			assert.Equal(t, tt.want, string(sent))

			fails, exs := rec.Results()
			assert.Empty(t, fails)
			require.Len(t, exs, 1)
			ex := exs[0]
			assert.NotContains(t, ex.Curl, rawKeyForTest)
			assert.NotContains(t, ex.Curl, rawGateway)
			assert.NotContains(t, ex.Request.Header.Get("X-Gateway"), rawGateway)
			assert.NotContains(t, ex.Request.URL+ex.Request.Header.Get("Authorization"), rawKeyForTest)
			assert.Contains(t, ex.Curl, tt.curl)
			assert.Contains(t, ex.Curl, report.KeyPlaceholder)
			if tt.raw.HostSet {
				assert.Equal(t, s.rawExchangeHeader(mustHTTP(t, s, r), &raw, nil).Values("Host"), ex.Request.Header.Values("Host"), "the Host lines as sent")
			}
			if tt.curl != "printf" {
				return
			}
			assert.Contains(t, ex.Curl, "| nc ")
			// The printf of the line writes the bytes the target received, the key taken
			// from the environment.
			pipe := strings.TrimSuffix(ex.Curl[:strings.Index(ex.Curl, " | nc ")], " ")
			cmd := exec.Command("sh", "-c", pipe)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), report.KeyPlaceholder[1:] + "=" + rawKeyForTest, "PETSTORE_HEADER_1=" + rawGateway}
			out, err := cmd.Output()
			require.NoError(t, err, pipe)
			assert.Equal(t, string(sent), string(out), pipe)
		})
	}
}

// A Host the user gives (-H 'Host: vhost') is the one Host line of a raw request, in place
// of the base URL's (none where the case sends none, one of two where it sends two), and the
// Host of a request Go's client writes, not a field beside it.
func TestUserHostIsTheHostSent(t *testing.T) {
	addr, got := rawListener(t, errorAnswer)
	facts, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	s, err := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: rawKeyForTest, Facts: facts, Timeout: 5 * time.Second,
		Headers: http.Header{"Host": {"vhost.example"}}})
	require.NoError(t, err)
	list := wire.Request{Method: http.MethodGet, Path: "/pets"}
	for _, tt := range []struct {
		name  string
		raw   *wire.Raw
		hosts []string
	}{
		{"plain", nil, []string{"vhost.example"}},
		{"no host", &wire.Raw{HostSet: true}, nil},
		{"two hosts", &wire.Raw{HostSet: true, Hosts: []string{"{host}", "example.invalid"}}, []string{"vhost.example", "example.invalid"}},
		{"bad escape", &wire.Raw{Target: "{base}{path}%zz"}, []string{"vhost.example"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := list.Clone()
			r.Raw = tt.raw
			_, _, _ = s.Exchange(context.Background(), NewRecorder(s.Redact), true, r)
			head, _, _ := strings.Cut(string(<-got), "\r\n\r\n")
			var hosts []string
			for _, line := range strings.Split(head, "\r\n")[1:] {
				if name, v, _ := strings.Cut(line, ": "); strings.EqualFold(name, "Host") {
					hosts = append(hosts, v)
				}
			}
			assert.Equal(t, tt.hosts, hosts)
		})
	}
}

func mustHTTP(t *testing.T, s *Session, r wire.Request) *http.Request {
	t.Helper()
	req, err := s.HTTPRequest(context.Background(), r)
	require.NoError(t, err)
	return req
}

// A raw request is GET or HEAD: another method is not sent.
func TestRawSenderSendsOnlyReads(t *testing.T) {
	addr, got := rawListener(t, errorAnswer)
	s := rawSession(t, addr, 5*time.Second)
	rec := NewRecorder(s.Redact)
	_, _, err := s.Exchange(context.Background(), rec, true, wire.Request{Method: http.MethodPost, Path: "/pets",
		Body: wire.JSONBody([]byte(`{}`)), Raw: &wire.Raw{TransferEncoding: "gzip"}})
	require.ErrorIs(t, err, ErrNotSent)
	assert.Contains(t, rec.NotSent(), "only as GET or HEAD")
	select {
	case b := <-got:
		t.Fatalf("sent: %q", b)
	case <-time.After(300 * time.Millisecond):
	}
}

// A request that announces bytes it never sends closes its side of the connection: the target
// reads the end at once (the listener here stops reading at EOF, not at its deadline), and
// one that closes without an answer is no finding.
func TestRawSenderClosesItsSide(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	got := make(chan []byte, 1)
	eof := make(chan bool, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close() // no answer: an incomplete request may be closed on
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		b, err := io.ReadAll(conn)
		got <- b
		eof <- err == nil
	}()
	s := rawSession(t, ln.Addr().String(), time.Minute)
	rec := NewRecorder(s.Redact)
	_, _, err = s.Exchange(context.Background(), rec, true, wire.Request{Method: http.MethodGet, Path: "/pets",
		Body: wire.JSONBody([]byte(`{}`)), Raw: &wire.Raw{Lengths: []string{"100"}, CloseWrite: true}})
	require.True(t, errors.Is(err, ErrNotSent), "%v", err)
	assert.True(t, <-eof, "the target read the end of the request, not its own deadline")
	assert.Contains(t, string(<-got), "Content-Length: 100\r\n\r\n{}")
	assert.Contains(t, rec.NotSent(), "never came")
	assert.Empty(t, rec.Failures())
}

// Over https the raw sender speaks TLS with the session client's trust (here the test
// server's certificate), and its line pipes the bytes into openssl s_client.
func TestRawSenderOverTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent) // not reached: net/http refuses two lengths first
	}))
	t.Cleanup(srv.Close)
	facts, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	s, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: rawKeyForTest, Facts: facts, Client: srv.Client()})
	require.NoError(t, err)
	rec := NewRecorder(s.Redact)
	resp, _, err := s.Exchange(context.Background(), rec, true, wire.Request{Method: http.MethodGet, Path: "/pets",
		Body: wire.JSONBody([]byte(`{}`)), Raw: &wire.Raw{Lengths: []string{"0", "2"}}})
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	_, exs := rec.Results()
	require.Len(t, exs, 1)
	assert.Contains(t, exs[0].Curl, "| openssl s_client -quiet -connect '"+srv.Listener.Addr().String()+"' -servername '127.0.0.1'")
	assert.NotContains(t, exs[0].Curl, rawKeyForTest)
}

// Where the client sends requests through a proxy, a raw request is not sent (it would go
// around the proxy), and says why.
func TestRawRequestNotSentThroughAProxy(t *testing.T) {
	facts, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	proxy, _ := url.Parse("http://127.0.0.1:9")
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	s, err := New(Config{BaseURL: "http://127.0.0.1:9/v1", APIKey: rawKeyForTest, Facts: facts, Client: client})
	require.NoError(t, err)
	rec := NewRecorder(s.Redact)
	_, _, err = s.Exchange(context.Background(), rec, true, wire.Request{Method: http.MethodGet, Path: "/pets", Raw: &wire.Raw{HostSet: true}})
	require.True(t, errors.Is(err, ErrNotSent), "%v", err)
	assert.Contains(t, rec.NotSent(), "HTTP_PROXY")
}

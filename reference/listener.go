package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/petstore/petstore/reference/internal/core"
)

// Listener wraps ln, a plain TCP listener, so that the answers Go's HTTP server writes on
// its own, before any handler sees a request, carry the Error record of section 7 like every
// other error of the reference: a request without Host or with two, an invalid
// Content-Length, a transfer coding the server does not know, a target that does not parse,
// a header over the limit, an expectation other than 100-continue. net/http writes these as text/plain lines straight to the
// connection (its conn.serve), with no hook to change them; the wrapped connection
// recognises that one write and writes the Error record in its place, status and
// Connection: close kept. Every answer a handler writes goes through untouched. Serve with
// TLS over it changes nothing: the bytes it sees are encrypted.
func Listener(ln net.Listener) net.Listener { return recordListener{ln} }

type recordListener struct{ net.Listener }

func (l recordListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return recordConn{c}, nil
}

type recordConn struct{ net.Conn }

// NetConn is the connection under c (a reset of the test double sets its linger), as
// tls.Conn gives its own.
func (c recordConn) NetConn() net.Conn { return c.Conn }

// CloseWrite closes the sending side of the connection under c, as net/http does before it
// closes after a refusal (its closeWriteAndWait), when that connection can.
func (c recordConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c recordConn) Write(b []byte) (int, error) {
	out, ok := errorRecordFor(b)
	if !ok {
		return c.Conn.Write(b)
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// goErrorHeaders follow the status line of every answer net/http writes on its own; an
// answer a handler writes has a Date, a Content-Length and its fields in sorted order, so
// never these two alone.
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// goExpectationFailed is the whole answer net/http writes, through its response writer and
// before any handler, to a request with an Expect other than 100-continue (RFC 9110
// 10.1.1); no handler of the reference writes a 417.
var goExpectationFailed = regexp.MustCompile(`^HTTP/1\.1 417 Expectation Failed\r\nConnection: close\r\nDate: [^\r]*\r\nContent-Length: 0\r\n\r\n$`)

// errorRecordFor is the answer to write instead of b when b is one of net/http's own
// ("HTTP/1.1 400 Bad Request: missing required Host header" + goErrorHeaders + text, or its
// bare 417).
func errorRecordFor(b []byte) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(b, []byte(proto+"4")) && !bytes.HasPrefix(b, []byte(proto+"5")) {
		return nil, false // every write of a body, and every answer below 400: one look at its start
	}
	if goExpectationFailed.Match(b) {
		return errorRecord(http.StatusExpectationFailed, codeExpectationFailed, "the expectation cannot be met: the only one known is 100-continue (RFC 9110 10.1.1)"), true
	}
	line, _, ok := bytes.Cut(b, []byte("\r\n"))
	if !ok || !bytes.HasPrefix(line, []byte(proto)) || !bytes.HasPrefix(b[len(line):], []byte(goErrorHeaders)) || len(line) < len(proto)+3 {
		return nil, false
	}
	status, err := strconv.Atoi(string(line[len(proto) : len(proto)+3]))
	if err != nil || status < 400 {
		return nil, false
	}
	text := strings.TrimSpace(string(b[len(line)+len(goErrorHeaders):]))
	// "400 Bad Request: missing required Host header": the cause after the status's words.
	msg := strings.TrimPrefix(strings.TrimPrefix(text, strconv.Itoa(status)+" "), http.StatusText(status))
	msg = strings.TrimSpace(strings.TrimPrefix(msg, ":"))
	if msg == "" {
		msg = "the request cannot be read as HTTP/1.1 (RFC 9112): " + strings.ToLower(http.StatusText(status))
	}
	code := core.CodeInvalidRequest
	switch status {
	case http.StatusNotImplemented:
		code = core.CodeNotImplemented
	case http.StatusRequestHeaderFieldsTooLarge:
		code = codeHeaderTooLarge
	}
	return errorRecord(status, code, msg), true
}

// errorRecord is a whole answer of status with an Error record, closing the connection.
func errorRecord(status int, code, msg string) []byte {
	body, _ := json.Marshal(core.NewError(status, code, "%s", msg))
	out := fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		status, http.StatusText(status), len(body))
	return append(out, body...)
}

// codeExpectationFailed is the Error record's code of the 417 net/http answers to an
// expectation it does not know.
const codeExpectationFailed = "expectation_failed"

// codeHeaderTooLarge is the Error record's code of the 431 net/http answers to a request
// line and fields over its limit.
const codeHeaderTooLarge = "header_too_large"

package exchange

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/wire"
)

// A server that answers an oversized request line 431 with "Connection: close" and no length,
// and closes at once with the rest of the request unread (Node does), resets the connection:
// the reset may come before or after the answer's last bytes. Either way the answer is the
// 431 that came, judged as it is, and never "cut short": the finding must not depend on timing.
func TestAnswerEndedByAResetIsTheAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				br := bufio.NewReader(c)
				_, _ = br.Peek(1024) // a little of the request line, not the rest
				_, _ = c.Write([]byte("HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n"))
				_ = c.(*net.TCPConn).SetLinger(0) // close with a reset: the unread bytes
				c.Close()
			}()
		}
	}()
	s, err := New(Config{BaseURL: "http://" + ln.Addr().String() + "/v1", APIKey: "KEY", Facts: facts(t)})
	require.NoError(t, err)
	for range 20 {
		rec := NewRecorder(s.Redact)
		resp, _, err := s.Exchange(context.Background(), rec, true,
			wire.Request{Method: "GET", Path: "/pets", ExtraQuery: "conformance=" + strings.Repeat("a", 16<<10)})
		if err != nil {
			// The reset can come before the status line: no answer at all, not a cut one.
			assert.NotContains(t, err.Error(), "reading the response body")
			continue
		}
		assert.Equal(t, 431, resp.StatusCode)
		for _, f := range rec.Failures() {
			assert.NotContains(t, f.Message, "cut short")
		}
	}
}

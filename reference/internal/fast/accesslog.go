package fast

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// accessLog writes one line per request to out in the Common Log Format: byte for byte the
// line of gorilla/handlers' LoggingHandler (accesslog_test.go compares them on odd requests
// and in a fuzz target). It takes LoggingHandler's place because that one wraps every
// response in httpsnoop's generated type and builds each line in fresh memory: 10 of the 40
// allocations of a GET, and with the line about 3% of the server's CPU under load (perf,
// issue 14). Here a request costs one allocation, the wrapper. Like LoggingHandler, it logs
// nothing for a request whose handler panics (net/http aborts the connection). One thing
// differs from gorilla's line: mask, when set, masks the values of the query string (a key
// sent as ?api_key=..., which the log must not keep), and the rest of the line is gorilla's.
func AccessLog(out io.Writer, mask func(rawQuery string) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := time.Now()
		user := "-"
		if r.URL.User != nil {
			if name := r.URL.User.Username(); name != "" {
				user = name
			}
		}
		uri := r.RequestURI
		if r.ProtoMajor == 2 && r.Method == http.MethodConnect {
			uri = r.Host // RFC 7540 section 8.3: CONNECT names its target in the authority
		}
		if uri == "" {
			uri = r.URL.RequestURI() // before the handler, which may change r.URL
		}
		if i := strings.IndexByte(uri, '?'); i >= 0 && mask != nil {
			if q := mask(uri[i+1:]); q != uri[i+1:] {
				uri = uri[:i+1] + q
			}
		}
		lw := &loggedWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(lw, r)

		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		bp := lineBufs.Get().(*[]byte)
		b := append((*bp)[:0], host...)
		b = append(b, " - "...)
		b = append(b, user...)
		b = append(b, " ["...)
		b = t.AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
		b = append(b, `] "`...)
		b = append(b, r.Method...)
		b = append(b, ' ')
		b = appendQuoted(b, uri)
		b = append(b, ' ')
		b = append(b, r.Proto...)
		b = append(b, `" `...)
		b = strconv.AppendInt(b, int64(lw.status), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(lw.size), 10)
		b = append(b, '\n')
		_, _ = out.Write(b)
		if cap(b) <= 4<<10 { // a line with a huge URI does not keep its buffer
			*bp = b
			lineBufs.Put(bp)
		}
	})
}

var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// loggedWriter notes the status and the size of the body a handler writes.
type loggedWriter struct {
	http.ResponseWriter
	status, size int
}

func (l *loggedWriter) WriteHeader(status int) {
	l.ResponseWriter.WriteHeader(status)
	l.status = status
}

func (l *loggedWriter) Write(b []byte) (int, error) {
	n, err := l.ResponseWriter.Write(b)
	l.size += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (l *loggedWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

const lowerhex = "0123456789abcdef"

// appendQuoted appends s escaped as gorilla/handlers v1.5.2 does in its access log
// (logging.go, appendQuoted; BSD 3-Clause, Copyright 2013 The Gorilla Authors): printable
// characters as they are, '"' and '\' backslashed, the rest as Go escapes. The loop below is
// that function's, kept whole (over 60 lines) so that it reads line for line against gorilla's;
// the fast path in front of it is ours.
func appendQuoted(buf []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return append(buf, s...)
	}
	var runeTmp [utf8.UTFMax]byte
	for width := 0; len(s) > 0; s = s[width:] {
		r := rune(s[0])
		width = 1
		if r >= utf8.RuneSelf {
			r, width = utf8.DecodeRuneInString(s)
		}
		if width == 1 && r == utf8.RuneError {
			buf = append(buf, `\x`...)
			buf = append(buf, lowerhex[s[0]>>4])
			buf = append(buf, lowerhex[s[0]&0xF])
			continue
		}
		if r == rune('"') || r == '\\' { // always backslashed
			buf = append(buf, '\\')
			buf = append(buf, byte(r))
			continue
		}
		if strconv.IsPrint(r) {
			n := utf8.EncodeRune(runeTmp[:], r)
			buf = append(buf, runeTmp[:n]...)
			continue
		}
		switch r {
		case '\a':
			buf = append(buf, `\a`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		case '\v':
			buf = append(buf, `\v`...)
		default:
			switch {
			case r < ' ':
				buf = append(buf, `\x`...)
				buf = append(buf, lowerhex[s[0]>>4])
				buf = append(buf, lowerhex[s[0]&0xF])
			case r > utf8.MaxRune:
				r = 0xFFFD
				fallthrough
			case r < 0x10000:
				buf = append(buf, `\u`...)
				for s := 12; s >= 0; s -= 4 {
					buf = append(buf, lowerhex[r>>uint(s)&0xF])
				}
			default:
				buf = append(buf, `\U`...)
				for s := 28; s >= 0; s -= 4 {
					buf = append(buf, lowerhex[r>>uint(s)&0xF])
				}
			}
		}
	}
	return buf
}

package fast

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"

	"github.com/gorilla/handlers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stamp is the time in a line; the two loggers read the clock separately.
var stamp = regexp.MustCompile(`\[[^]]*\]`)

// bothLines serves r through accessLog and through gorilla's LoggingHandler, with the same
// handler, and returns the two lines with their times blanked.
func bothLines(t testing.TB, r *http.Request, h http.HandlerFunc) (ours, gorillas string) {
	var a, b bytes.Buffer
	AccessLog(&a, nil, h).ServeHTTP(httptest.NewRecorder(), r.Clone(r.Context()))
	handlers.LoggingHandler(&b, h).ServeHTTP(httptest.NewRecorder(), r.Clone(r.Context()))
	return stamp.ReplaceAllString(a.String(), "[T]"), stamp.ReplaceAllString(b.String(), "[T]")
}

// The access log writes gorilla's LoggingHandler's line, byte for byte, for odd requests and
// handlers alike.
func TestAccessLogIsGorillasLine(t *testing.T) {
	req := func(method, uri string, edit func(*http.Request)) *http.Request {
		r := httptest.NewRequest(method, "http://example.com/", nil)
		r.RequestURI = uri
		if edit != nil {
			edit(r)
		}
		return r
	}
	write := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			if status != 0 {
				w.WriteHeader(status)
			}
			_, _ = w.Write([]byte(body))
		}
	}
	requests := map[string]*http.Request{
		"plain":            req("GET", "/v1/pets?limit=3", nil),
		"quotes":           req("GET", `/v1/pets?name="a\b"`, nil),
		"not UTF-8":        req("GET", "/v1/pets/\xff\xfe", nil),
		"unicode":          req("GET", "/v1/pets/é€😀", nil),
		"controls":         req("GET", "/v1/\a\b\f\n\r\t\v\x00\x7f\u0085\U000e0001", nil),
		"user in the URL":  req("GET", "/v1/pets", func(r *http.Request) { r.URL.User = url.UserPassword("ann", "secret") }),
		"empty user":       req("GET", "/v1/pets", func(r *http.Request) { r.URL.User = url.User("") }),
		"no RequestURI":    req("GET", "", func(r *http.Request) { r.URL, _ = url.Parse("/v1/pets?x=%22") }),
		"HTTP/2 CONNECT":   req("CONNECT", "", func(r *http.Request) { r.ProtoMajor, r.Proto, r.Host = 2, "HTTP/2.0", "example.com:443" }),
		"HTTP/1.0":         req("GET", "/v1/pets", func(r *http.Request) { r.ProtoMajor, r.ProtoMinor, r.Proto = 1, 0, "HTTP/1.0" }),
		"address, no port": req("GET", "/v1/pets", func(r *http.Request) { r.RemoteAddr = "unix-socket" }),
		"IPv6":             req("GET", "/v1/pets", func(r *http.Request) { r.RemoteAddr = "[::1]:4242" }),
	}
	handlersByName := map[string]http.HandlerFunc{
		"200 implicit":   write(0, `[{"id":1}]`),
		"404":            write(404, `{"code":"not_found"}`),
		"no body":        write(204, ""),
		"nothing at all": func(http.ResponseWriter, *http.Request) {},
		"two writes": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("ab"))
			_, _ = w.Write([]byte("cde"))
		},
		"103 then 201": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte("x"))
		},
		"changes the URL": func(w http.ResponseWriter, r *http.Request) {
			r.URL.Path, r.URL.RawPath, r.URL.User = "/elsewhere", "", nil
			w.WriteHeader(400)
		},
	}
	for rn, r := range requests {
		for hn, h := range handlersByName {
			ours, want := bothLines(t, r, h)
			require.NotEmpty(t, want)
			assert.Equal(t, want, ours, "%s, %s", rn, hn)
		}
	}
}

// A panicking handler leaves no line, as with LoggingHandler (net/http aborts the request).
func TestAccessLogNoLineAfterPanic(t *testing.T) {
	var out bytes.Buffer
	h := AccessLog(&out, nil, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	assert.Panics(t, func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)) })
	assert.Empty(t, out.String())
}

// Any request line: the same log line as gorilla's.
func FuzzAccessLogIsGorillasLine(f *testing.F) {
	for _, s := range []string{"/v1/pets", `/"\`, "/\xff", "/\u2028", "/\U0010ffff", "/a b", "\x00"} {
		f.Add(s, "GET", 200)
	}
	f.Fuzz(func(t *testing.T, uri, method string, status int) {
		if status < 100 || status > 999 {
			return
		}
		r := httptest.NewRequest("GET", "/", nil)
		r.RequestURI, r.Method = uri, method
		ours, want := bothLines(t, r, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
		if ours != want {
			t.Fatalf("ours:    %q\ngorilla: %q", ours, want)
		}
	})
}

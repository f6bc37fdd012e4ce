package core

import (
	"io"
	"log"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gorilla/handlers"
)

// errRecovered answers a panic anywhere below the outermost middleware.
var errRecovered = NewError(http.StatusInternalServerError, CodeInternal,
	"internal server error (a panic; see the server log)")

// guard is the outermost protection of every request. It turns a panic anywhere in next
// (kin-openapi, a middleware, a log writer) into a 500 Error body, where gorilla's
// RecoveryHandler would answer with an empty 500. And it marks failures to read the request
// body (a truncated chunked body, a client that stops sending) so that they are answered
// with a 400, not masked as an internal error or, inside kin-openapi's security check, a 401.
func Guard(ew *ErrorWriter, logger *log.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body != nil && r.Body != http.NoBody {
				r.Body = &markedBody{ReadCloser: r.Body}
			}
			tw := &wroteTracker{ResponseWriter: w}
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler || tw.wrote {
					// The status line is gone: abort, so that the client sees a broken
					// response instead of a truncated one that looks complete.
					panic(http.ErrAbortHandler)
				}
				ew.WriteError(w, r, errRecovered) // first: the log writer may be what panicked
				logger.Printf("panic: %s %s: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
			}()
			next.ServeHTTP(tw, r)
		})
	}
}

// markedBody wraps every read error of a request body in a bodyReadError.
type markedBody struct{ io.ReadCloser }

func (b *markedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = &bodyReadError{err: err}
	}
	return n, err
}

// wroteTracker records whether the response has started.
type wroteTracker struct {
	http.ResponseWriter
	wrote bool
}

func (t *wroteTracker) WriteHeader(status int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(status)
}

func (t *wroteTracker) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (a flush, or the test double's
// broken connection).
func (t *wroteTracker) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// corsHeaders are the request headers a browser may send cross-origin, and the response
// headers it may show to the calling script.
var (
	corsAllowHeaders  = []string{"Authorization", "Content-Type"}
	corsExposeHeaders = []string{"Deprecation", "Sunset", "Location", "WWW-Authenticate"}
	// gorilla/handlers always accepts these request headers in a preflight.
	corsDefaultHeaders = []string{"Accept", "Accept-Language", "Content-Language", "Origin"}
)

// withCORS enables CORS for origins (gorilla/handlers) on next. gorilla answers a preflight
// it refuses with an empty 400, 403 or 405, and one from an unknown origin with an empty
// 200; those go to next instead, which answers OPTIONS with a 405 Error and no CORS headers,
// so the browser refuses the call just the same.
func WithCORS(origins, methods []string, next http.Handler) http.Handler {
	c := handlers.CORS(
		handlers.AllowedOrigins(origins),
		handlers.AllowedMethods(methods),
		handlers.AllowedHeaders(corsAllowHeaders),
		handlers.ExposedHeaders(corsExposeHeaders),
		handlers.OptionStatusCode(http.StatusNoContent),
	)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && !preflightOK(r, origins, methods) {
			next.ServeHTTP(w, r)
			return
		}
		c.ServeHTTP(w, r)
	})
}

// preflightOK reports whether gorilla would grant the preflight r (see cors.go ServeHTTP).
func preflightOK(r *http.Request, origins, methods []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || !(slices.Contains(origins, origin) || slices.Contains(origins, "*")) {
		return false
	}
	if _, ok := r.Header["Access-Control-Request-Method"]; !ok {
		return false
	}
	if !slices.Contains(methods, r.Header.Get("Access-Control-Request-Method")) {
		return false
	}
	for _, h := range strings.Split(r.Header.Get("Access-Control-Request-Headers"), ",") {
		h = http.CanonicalHeaderKey(strings.TrimSpace(h))
		if h != "" && !slices.Contains(corsDefaultHeaders, h) && !slices.Contains(corsAllowHeaders, h) {
			return false
		}
	}
	return true
}

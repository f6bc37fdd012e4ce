package conformance_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// goRefusal is an answer net/http writes on its own, before any handler: a request without
// Host or with two, two Content-Lengths, a transfer coding it does not know, a target that
// does not parse (text/plain), an expectation it does not know (a bare 417).
var goRefusal = regexp.MustCompile(`^HTTP/1\.1 (\d{3})[^\r]*\r\n(?:Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n|Connection: close\r\nDate: [^\r]*\r\nContent-Length: 0\r\n\r\n$)`)

// refusing is a listener whose connections answer net/http's own refusals with what answer
// writes for the status instead (another stack's HTTP layer).
type refusing struct {
	net.Listener
	answer func(status int) string
}

func (l refusing) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &refusingConn{c, l.answer}, nil
}

type refusingConn struct {
	net.Conn
	answer func(status int) string
}

func (c *refusingConn) Write(b []byte) (int, error) {
	m := goRefusal.FindSubmatch(b)
	if m == nil {
		return c.Conn.Write(b)
	}
	status, _ := strconv.Atoi(string(m[1]))
	if _, err := c.Conn.Write([]byte(c.answer(status))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// serveRefusing serves h behind a listener whose HTTP layer answers as answer says.
func serveRefusing(t *testing.T, h http.Handler, answer func(status int) string) conformance.Target {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = refusing{srv.Listener, answer}
	srv.Start()
	t.Cleanup(srv.Close)
	return conformance.Target{BaseURL: srv.URL + "/v1", APIKey: testKey, Client: srv.Client()}
}

func closing(status int, contentType, body string) string {
	return fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), contentType, len(body), body)
}

// The requests only the HTTP layer answers (no Host, two, two Content-Lengths, a transfer
// coding it does not know, %zz in the path, an expectation it does not know) fail where that
// layer answers as Apache does (an HTML page), as fastify does (a JSON object without status)
// or as Node does (a bare 400 or 417): with the key and without it, each a case of
// listPets/cases-anatomy (zoo findings glue-19, glue-20, glue-23, glue-24, sym-12, sym-13,
// sym-14, grape-25).
func TestHTTPLayerRefusalsWithoutAnErrorRecordFail(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	for name, answer := range map[string]func(int) string{
		"html page": func(st int) string {
			return closing(st, "text/html; charset=iso-8859-1", "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head><title>400 Bad Request</title></head></html>\n")
		},
		"json without status": func(st int) string {
			return closing(st, "application/json", `{"error":"Bad Request","message":"Bad Request"}`)
		},
		"no content": func(st int) string {
			return fmt.Sprintf("HTTP/1.1 %d %s\r\nConnection: close\r\n\r\n", st, http.StatusText(st))
		},
	} {
		t.Run(name, func(t *testing.T) {
			rep := run(t, serveRefusing(t, ref, answer), conformance.Options{Seed: 1, Only: []string{"listPets/cases-anatomy"}})
			var failed []string
			for _, res := range rep.Results {
				for _, f := range res.Failures {
					if !slices.Contains(failed, f.Case) {
						failed = append(failed, f.Case)
					}
				}
			}
			for _, words := range []string{"no Host field at all", "two Host lines: the target's, then example.invalid", "Content-Length: 0 and Content-Length: 2, a body of 2 bytes",
				"Transfer-Encoding: gzip, no chunked", "an invalid escape at the end: /v1/pets%zz", "Expect: conformance"} {
				assert.Contains(t, failed, words, "with the key")
				assert.Contains(t, failed, words+"; no Authorization header", "without it")
			}
			assert.Len(t, failed, 12, "nothing else fails: %q", failed)
			assert.Equal(t, conformance.Fail, rep.Results[0].Status)
		})
	}
}

// The choices the readings leave a server pass: refusing an empty Host or Content-Length
// beside chunked with a 400 Error record (the reference takes both), and answering a
// transfer coding it does not know with 400 rather than 501 (the reference answers 501).
func TestHTTPLayerOtherChoicesPass(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	strict := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "" || len(r.TransferEncoding) > 0 && r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"code":"invalid_request","message":"the request's framing or Host is refused","status":400}`)
			return
		}
		ref.ServeHTTP(w, r)
	})
	record := func(st int) string {
		if st == http.StatusNotImplemented {
			st = http.StatusBadRequest
		}
		return closing(st, "application/json", fmt.Sprintf(`{"code":"invalid_request","message":"refused by the HTTP layer","status":%d}`, st))
	}
	rep := run(t, serveRefusing(t, strict, record), conformance.Options{Seed: 1, Only: []string{"listPets/cases-anatomy"}, Strict: true})
	require.Len(t, rep.Results, 1)
	assert.Equal(t, conformance.Pass, rep.Results[0].Status, "%v", rep.Results[0].Failures)

	// And the reference, whose listener writes net/http's own refusals as Error records,
	// 501 to the transfer coding among them.
	rep = run(t, serve(t, ref), conformance.Options{Seed: 1, Only: []string{"listPets/cases-anatomy"}, Strict: true})
	assert.Equal(t, conformance.Pass, rep.Results[0].Status, "%v", rep.Results[0].Failures)
}

// renaming is a listener whose connections rename one field of each request before net/http
// reads it (a server whose HTTP layer passes Expect on to the application, which Go's does
// not: it answers every expectation but 100-continue with 417 first).
type renaming struct {
	net.Listener
	from, to string // of the same length
}

func (l renaming) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return renamingConn{c, l.from, l.to}, nil
}

type renamingConn struct {
	net.Conn
	from, to string
}

func (c renamingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	copy(b[:n], bytes.ReplaceAll(b[:n], []byte(c.from), []byte(c.to)))
	return n, err
}

// Without a key, a request the HTTP layer may answer first is still never a success: a server
// that serves the listing to a keyless request with an Expect fails (5.3). A TRACE goes
// without the key only (RFC 9110 9.3.8: no credentials in a TRACE), and its echo, no
// resource's content, is an answer.
func TestKeylessSuccessFailsBesideAnExpectation(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	lets := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "TRACE":
			w.Header().Set("Content-Type", "message/http")
			_, _ = fmt.Fprintf(w, "TRACE %s HTTP/1.1\r\nHost: %s\r\n", r.URL.RequestURI(), r.Host)
		case r.Header.Get("Xxpect") != "" && r.Header.Get("Authorization") == "":
			r.Header.Set("Authorization", "Bearer "+testKey) // the expectation skips the key check
			ref.ServeHTTP(w, r)
		default:
			ref.ServeHTTP(w, r)
		}
	})
	srv := httptest.NewUnstartedServer(lets)
	srv.Listener = reference.Listener(renaming{srv.Listener, "\r\nExpect: ", "\r\nXxpect: "})
	srv.Start()
	t.Cleanup(srv.Close)
	rep := run(t, conformance.Target{BaseURL: srv.URL + "/v1", APIKey: testKey, Client: srv.Client()},
		conformance.Options{Seed: 1, Only: []string{"listPets/cases-anatomy", "getPet/cases-anatomy"}})
	var failed, sent []string
	for _, res := range rep.Results {
		for _, f := range res.Failures {
			failed = append(failed, f.Case+": "+f.Message)
		}
		for _, ex := range res.Exchanges {
			if ex.Request.Method == "TRACE" {
				sent = append(sent, ex.Request.Header.Get("Authorization"))
			}
		}
	}
	assert.Equal(t, []string{"Expect: conformance; no Authorization header: a request without a valid key must not succeed (5.3), got 200 OK"}, failed)
	for _, auth := range sent {
		assert.Empty(t, auth, "a TRACE carries no credentials")
	}
}

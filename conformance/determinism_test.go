package conformance_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// after500 answers a create whose name is null with a 500 (a handler that crashes on it), as
// a framework's server would, and then, without saying "Connection: close", either closes
// the kept-alive connection at once (uvicorn after an unhandled error) or, dropNext, reads
// the next request that arrives on it and closes without an answer. Which request that is,
// and from which rule, is down to how the run's workers share connections.
func after500(dropNext bool) func(h http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if r.Method != http.MethodPost || !bytes.Contains(body, []byte(`"name":null`)) {
				h.ServeHTTP(w, r)
				return
			}
			conn, rw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			msg := `{"code":"internal","message":"crashed","status":500}`
			fmt.Fprintf(rw, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
			_ = rw.Flush()
			if dropNext {
				_, _ = http.ReadRequest(bufio.NewReader(rw))
			}
		})
	}
}

// The same server and seed give the same findings at any --workers count: a request whose
// kept-alive connection the target dropped before answering is sent again on a fresh one,
// so no case loses its verdict to another case's connection, and no rule ends in error; a
// connection closed after the 500 is reported with the request that got the 500, whether or
// not a later request happened to reuse it (issue 22, item 3).
func TestFindingsDoNotDependOnConnections(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	for _, tc := range []struct {
		name     string
		dropNext bool
	}{{"closes at once", false}, {"drops the next request", true}} {
		t.Run(tc.name, func(t *testing.T) {
			target := serve(t, after500(tc.dropNext)(newReference(t, beforeSunset, reference.Config{})))
			findings := func(workers int) []string {
				// Strength 1: the auth variants' pairs change no connection; every case of
				// every other family is sent as at the default.
				rep := run(t, target, conformance.Options{Seed: 22, Workers: workers, Strength: 1})
				var out []string
				// The close is a finding of its own, with the request whose answer it
				// followed. A target that keeps the connection until a request comes is
				// seen to close it only when one does.
				if !tc.dropNext && assert.NotEmpty(t, rep.ConnectionCloses, "workers %d", workers) {
					for _, c := range rep.ConnectionCloses {
						out = append(out, "close after "+c.After)
						assert.Contains(t, c.Curl, `"name":null`)
					}
				}
				for _, res := range rep.Results {
					assert.NotEqual(t, conformance.Error, res.Status, "workers %d: %s: %s", workers, res.ID, res.Reason)
					for _, f := range res.Failures {
						out = append(out, res.ID+" | "+f.Case+" | "+f.Message)
					}
				}
				slices.Sort(out)
				return out
			}
			want := findings(1)
			require.NotEmpty(t, want, "the 500 is a finding")
			assert.True(t, slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, "5xx") }), "%q", want)
			for _, workers := range []int{8, 32} {
				assert.Equal(t, want, findings(workers), "workers %d", workers)
			}
		})
	}
}

// A connection the target closes without an answer, on a fresh connection while it answers
// other requests, is a finding of the request that met it: the crash a server's worst bug
// often is, with the request to reproduce it.
func TestDroppedConnectionIsAFinding(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/pets/abc") {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	target := conformance.Target{BaseURL: srv.URL + "/v1", APIKey: testKey, Client: srv.Client()}
	rep := run(t, target, conformance.Options{Only: []string{"getPet/non-integer-id"}})
	res, _ := rep.Result("getPet/non-integer-id")
	assert.Equal(t, conformance.Fail, res.Status, res.Reason)
	require.NotEmpty(t, res.Failures)
	assert.Equal(t, "the target closed the connection without an answer (it answers other requests)", res.Failures[0].Message)
	require.NotEmpty(t, rep.Causes, "it leads the report as a cause")
	assert.Equal(t, res.Failures[0].Message, rep.Causes[0].Message)
	assert.Contains(t, rep.Causes[0].Example.Curl, "/pets/abc")
}

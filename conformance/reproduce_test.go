package conformance_test

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
)

// An empty body goes out with Content-Length: 0, never chunked, and the reproduce line
// sends the same.
func TestEmptyBodyFraming(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	type seen struct {
		chunked bool
		length  string
	}
	var mu sync.Mutex
	var posts []seen
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.ContentLength <= 0 {
			mu.Lock()
			posts = append(posts, seen{len(r.TransferEncoding) > 0, r.Header.Get("Content-Length")})
			mu.Unlock()
			w.WriteHeader(http.StatusTeapot) // fails the rule, so the report keeps the exchange
			return
		}
		ref.ServeHTTP(w, r)
	}))
	rep := run(t, target, conformance.Options{Only: []string{"createPet/empty-body"}})
	res, ok := rep.Result("createPet/empty-body")
	require.True(t, ok)
	require.Equal(t, conformance.Fail, res.Status, res.Reason)
	mu.Lock()
	require.NotEmpty(t, posts)
	for _, p := range posts {
		assert.Equal(t, seen{false, "0"}, p, "sent as Content-Length: 0, not chunked")
	}
	mu.Unlock()
	require.NotEmpty(t, res.Exchanges)
	curl := res.Exchanges[len(res.Exchanges)-1].Curl
	assert.Contains(t, curl, "-X POST")
	assert.Contains(t, curl, "-H 'Content-Length: 0'")
	assert.NotContains(t, curl, "--data")
}

// A request that times out says after how long, once. The server hangs and its client gives
// up at once, as its timeout would (kit.Hang): a short real timeout would also cut a busy
// machine's ordinary answers.
func TestNoAnswerNamesTimeout(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	hang := &kit.Hang{}
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/pets/abc") {
			hang.Here(r)
			return
		}
		ref.ServeHTTP(w, r)
	}))
	target.Client = hang.Client(target.Client)
	rep := run(t, target, conformance.Options{Timeout: 42 * time.Second, Only: []string{"getPet/non-integer-id"}})
	res, _ := rep.Result("getPet/non-integer-id")
	assert.Equal(t, conformance.Error, res.Status)
	assert.True(t, strings.HasPrefix(res.Reason, "no answer from the target within 42s (--timeout): "), res.Reason)
	assert.Equal(t, 1, strings.Count(res.Reason, "no answer"), res.Reason)
	// An error is grouped into the causes as a failure is, with the request to repeat.
	require.NotEmpty(t, rep.Causes)
	assert.Equal(t, res.Reason, rep.Causes[0].Message)
	assert.Contains(t, rep.Causes[0].Example.Curl, "/pets/abc")

	// Refused: no timeout to name, and still one prefix.
	rep = run(t, conformance.Target{BaseURL: target.BaseURL, APIKey: testKey, Client: &http.Client{Transport: refuseOn("/pets/abc")}},
		conformance.Options{Only: []string{"getPet/non-integer-id"}})
	res, _ = rep.Result("getPet/non-integer-id")
	assert.Equal(t, conformance.Error, res.Status)
	assert.True(t, strings.HasPrefix(res.Reason, "no answer from the target: "), res.Reason)
	assert.Equal(t, 1, strings.Count(res.Reason, "no answer"), res.Reason)
}

// refuseOn fails requests whose path ends with suffix as a refused connection would.
type refuseOn string

func (s refuseOn) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, string(s)) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return http.DefaultTransport.RoundTrip(r)
}

package double_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/spec"
)

// preferOnce adds a Prefer field to the first request it sends only: one request gets the
// fault, as one would in production, and a client that recovers gets its answer after.
type preferOnce struct {
	prefer string
	sent   atomic.Int32
}

func (p *preferOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", authed)
	if p.sent.Add(1) == 1 {
		r.Header.Set("Prefer", p.prefer)
	}
	// A connection of its own per request: net/http would otherwise send a request again by
	// itself when a kept-alive connection breaks, and hide the fault from the client.
	return (&http.Transport{DisableKeepAlives: true}).RoundTrip(r)
}

// listOnce is a client that does not handle faults: one request, and any trouble is an error.
func listOnce(c *http.Client, url string) (int, error) {
	resp, err := c.Get(url + "/v1/pets")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("listPets: %s", resp.Status)
	}
	var pets []json.RawMessage
	err = json.NewDecoder(resp.Body).Decode(&pets)
	return len(pets), err
}

// listRetrying handles them: it waits as Retry-After says after a 429 or 503, and sends
// the (idempotent) request again once after a broken connection.
func listRetrying(c *http.Client, url string, wait func(time.Duration)) (int, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := c.Get(url + "/v1/pets")
		if err != nil {
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			s, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			wait(time.Duration(s) * time.Second)
			continue
		}
		return listOnce(c, url)
	}
	return 0, errors.New("gave up")
}

// Prefer: code=429 and code=503 may be chosen for any operation (a gateway's answers), with
// Retry-After and Preference-Applied; nothing is created. A client that waits as asked gets
// its listing; one that does not handle them fails.
func TestPreferGatewayStatuses(t *testing.T) {
	h := newTestServer(t, reference.Config{Seed: seedOf(2), Double: double.Double{Scenarios: true, Journal: 10}})
	for _, code := range []int{429, 503} {
		w := call(t, h, "POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"available"}`, "Authorization", authed,
			"Content-Type", "application/json", "Prefer", "code="+strconv.Itoa(code))
		require.Equal(t, code, w.Code, w.Body)
		assert.Equal(t, "1", w.Header().Get("Retry-After"))
		assert.Equal(t, "code="+strconv.Itoa(code), w.Header().Get("Preference-Applied"))
		assert.Equal(t, map[int]string{429: double.CodeRateLimited, 503: double.CodeUnavailable}[code], errorBody(t, w).Code)
	}
	assert.Len(t, pets(t, call(t, h, "GET", "/v1/pets", "")), 2, "nothing was created")

	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, code := range []string{"429", "503"} {
		_, err := listOnce(&http.Client{Transport: &preferOnce{prefer: "code=" + code}}, srv.URL)
		assert.EqualError(t, err, "listPets: "+code+" "+http.StatusText(atoi(code)))
		var waited []time.Duration
		n, err := listRetrying(&http.Client{Transport: &preferOnce{prefer: "code=" + code}}, srv.URL,
			func(d time.Duration) { waited = append(waited, d) })
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		assert.Equal(t, []time.Duration{time.Second}, waited)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// Prefer: fault=reset resets the connection and fault=close closes it, neither with an
// answer; the journal records the request with status 0. A client that sends the request
// again gets its listing; one that does not fails with the connection's error.
func TestPreferConnectionFaults(t *testing.T) {
	ref, err := reference.New(reference.Config{APIKeys: []string{testKey}, Now: fixedNow, Seed: seedOf(2), Double: double.Double{Scenarios: true, Journal: 10}})
	require.NoError(t, err)
	// Behind the listener petstore serve uses (reference.Listener), whose connections wrap
	// the TCP one: the reset still reaches it.
	srv := httptest.NewUnstartedServer(ref)
	srv.Listener = reference.Listener(srv.Listener)
	srv.Start()
	defer srv.Close()
	for fault, is := range map[string]error{double.FaultReset: syscall.ECONNRESET, double.FaultClose: io.EOF} {
		t.Run(fault, func(t *testing.T) {
			_, err := listOnce(&http.Client{Transport: &preferOnce{prefer: "fault=" + fault}}, srv.URL)
			require.Error(t, err)
			assert.ErrorIs(t, err, is)
			n, err := listRetrying(&http.Client{Transport: &preferOnce{prefer: "fault=" + fault}}, srv.URL, nil)
			require.NoError(t, err)
			assert.Equal(t, 2, n)
		})
	}
	// Each entry is journaled before its connection is broken, so the client's error comes
	// after it (httptest's Close does not wait for the handlers of taken connections).
	j, err := ref.Requests(double.RequestFilter{})
	require.NoError(t, err)
	var none int
	for _, e := range j.Requests {
		if e.Status == 0 {
			none++
			assert.True(t, e.Chosen)
		}
	}
	assert.Equal(t, 4, none, "two faults of each kind, recorded without an answer")
}

// Prefer: fault=slow trickles the body in pieces over the delay (asked of the sleeper, so
// nothing waits here); the body is whole and the preferences applied are echoed.
func TestPreferSlowBody(t *testing.T) {
	var s sleeper
	h := newTestServer(t, reference.Config{Seed: seedOf(3), Double: double.Double{Scenarios: true, Sleep: s.sleep}})
	w := call(t, h, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "fault=slow, delay=800")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Len(t, pets(t, w), 3)
	assert.Equal(t, "fault=slow, delay=800", w.Header().Get("Preference-Applied"))
	asked := s.take()
	assert.Len(t, asked, 8, "the body came in pieces, each after a sleep")
	var total time.Duration
	for _, d := range asked {
		total += d
	}
	assert.Equal(t, 800*time.Millisecond, total)

	w = call(t, h, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "fault=slow")
	assert.Equal(t, "fault=slow", w.Header().Get("Preference-Applied"))
	total = 0
	for _, d := range s.take() {
		total += d
	}
	assert.Equal(t, double.DefaultSlowBody, total)

	w = call(t, h, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "fault=explode")
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, "Prefer: fault=explode: want reset, close or slow", errorBody(t, w).Message)
}

// Prefer: example=NAME answers the spec's named example. Our spec names none (its examples
// are the single `example`), so the preference is refused with a 400 that says so, as a
// code= the spec does not document is; with a spec that names one, it is the answer.
func TestPreferExample(t *testing.T) {
	h := newTestServer(t, reference.Config{Seed: seedOf(1), Double: double.Double{Scenarios: true}})
	w := call(t, h, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "example=two")
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, "Prefer: example=two: listPets has no example of that name; it has none: the spec names no example for it", errorBody(t, w).Message)

	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	mt := doc.Paths.Value("/pets").Get.Responses.Status(200).Value.Content.Get("application/json")
	mt.Examples = openapi3.Examples{"two": &openapi3.ExampleRef{Value: openapi3.NewExample([]any{
		map[string]any{"id": 7, "name": "Rex", "categoryId": 1},
		map[string]any{"id": 8, "name": "Tom", "categoryId": 2, "status": "sold"},
	})}}
	h = newTestServer(t, reference.Config{Spec: doc, Seed: seedOf(1), Double: double.Double{Scenarios: true}})
	w = call(t, h, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "example=two")
	require.Equal(t, http.StatusOK, w.Code, w.Body)
	assert.JSONEq(t, `[{"id":7,"name":"Rex","categoryId":1},{"id":8,"name":"Tom","categoryId":2,"status":"sold"}]`, w.Body.String())
	assert.Equal(t, "example=two", w.Header().Get("Preference-Applied"))
	w = call(t, h, "GET", "/v1/pets", "", "Authorization", authed, "Prefer", "example=three")
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, errorBody(t, w).Message, "it has two")
}

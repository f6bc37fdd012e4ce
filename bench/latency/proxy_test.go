package latency_test

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/bench/latency"
)

// seen is what the backend received of one request.
type seen struct {
	Method, RequestURI, Host string
	Header                   http.Header
	ContentLength            int64
	TransferEncoding         []string
	Body                     []byte
}

// recorder is a backend that records each request and answers by path with the odd
// responses a contract test looks at.
type recorder struct {
	mu   sync.Mutex
	last seen
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := seen{r.Method, r.RequestURI, r.Host, r.Header.Clone(), r.ContentLength, r.TransferEncoding, nil}
	if r.URL.Path == "/v1/too-large" { // answers before reading the body, as the reference does
		rec.record(s)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, `{"code":"too_large"}`)
		return
	}
	var err error
	if s.Body, err = io.ReadAll(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec.record(s)
	h := w.Header()
	switch r.URL.Path {
	case "/v1/pets":
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Location", "/v1/pets/7")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"id":7,"name":"Rex"}`)
	case "/v1/limited":
		h.Set("Content-Type", "application/problem+json")
		h.Set("Retry-After", "7")
		h["X-Multi"] = []string{"a", "b, c"}
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"code":"rate_limited"}`)
	case "/v1/gzip":
		h.Set("Content-Type", "application/json")
		h.Set("Content-Encoding", "gzip")
		_, _ = w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	case "/v1/big":
		h.Set("Content-Type", "application/octet-stream")
		chunk := bytes.Repeat([]byte{0, 1, 2, 0xfe, 0xff}, 1<<13)
		for range 5 {
			_, _ = w.Write(chunk)
			http.NewResponseController(w).Flush() // chunked, not Content-Length
		}
	case "/v1/empty":
		w.WriteHeader(http.StatusNoContent)
	default:
		// No Content-Type, and a body Go's server would sniff as HTML if asked.
		h["Content-Type"] = nil
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "<html>not here</html>")
	}
}

func (rec *recorder) record(s seen) {
	rec.mu.Lock()
	rec.last = s
	rec.mu.Unlock()
}

func (rec *recorder) lastSeen() seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.last
}

// got is what the client received.
type got struct {
	Status           int
	Header           http.Header
	ContentLength    int64
	TransferEncoding []string
	Body             []byte
}

// exchange sends the request that mk makes to base, and returns what the backend saw and
// what the client got.
func exchange(t *testing.T, rec *recorder, base string, mk func(base string) *http.Request) (seen, got) {
	t.Helper()
	// The client's transport neither asks for nor undoes compression: the bytes are the
	// bytes on the wire.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	res, err := client.Do(mk(base))
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	h := res.Header.Clone()
	h.Del("Date") // each server's own clock
	return rec.lastSeen(), got{res.StatusCode, h, res.ContentLength, res.TransferEncoding, body}
}

// chunked hides a body's length, so that the client sends it chunked.
type chunked struct{ io.Reader }

func request(method, target string, body io.Reader, header ...string) *http.Request {
	r, err := http.NewRequest(method, target, body)
	if err != nil {
		panic(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	return r
}

// TestForwardsFaithfully sends each request straight to the backend and through the proxy:
// the backend must see the same request, Host included (the upstream's), and the client
// must get the same response, byte for byte.
func TestForwardsFaithfully(t *testing.T) {
	rec := &recorder{}
	backend := httptest.NewServer(rec)
	defer backend.Close()
	p, err := latency.Start(backend.URL, latency.Options{})
	require.NoError(t, err)
	defer p.Close()

	allBytes := make([]byte, 256)
	for i := range allBytes {
		allBytes[i] = byte(i)
	}
	// Past the reference's 64 KiB cap and the 256 KiB Go's server reads of a body that its
	// handler left unread.
	oversized := bytes.Repeat([]byte(`{"name":"x"}`), 25_000)
	for name, mk := range map[string]func(base string) *http.Request{
		"bad JSON": func(b string) *http.Request {
			return request("POST", b+"/v1/pets", strings.NewReader(`{"name":`), "Content-Type", "application/json",
				"Authorization", "Bearer k", "Accept", "application/json")
		},
		"wrong media type, every byte": func(b string) *http.Request {
			return request("POST", b+"/v1/pets", bytes.NewReader(allBytes), "Content-Type", "text/plain; charset=EBCDIC")
		},
		"no media type": func(b string) *http.Request {
			return request("POST", b+"/v1/pets", strings.NewReader(`{}`))
		},
		"empty body": func(b string) *http.Request {
			return request("POST", b+"/v1/pets", strings.NewReader(""), "Content-Type", "application/json")
		},
		"oversized, with length": func(b string) *http.Request {
			return request("POST", b+"/v1/pets", bytes.NewReader(oversized), "Content-Type", "application/json")
		},
		"oversized, chunked": func(b string) *http.Request {
			return request("POST", b+"/v1/pets", chunked{bytes.NewReader(oversized)}, "Content-Type", "application/json")
		},
		"oversized, answered unread": func(b string) *http.Request {
			return request("POST", b+"/v1/too-large", bytes.NewReader(oversized), "Content-Type", "application/json")
		},
		"odd query": func(b string) *http.Request {
			return request("GET", b+"/v1/pets?limit=2&limit=x;y=%zz&&empty=&q=a+b%20c", nil)
		},
		"empty query": func(b string) *http.Request {
			return request("GET", b+"/v1/pets?", nil)
		},
		"escaped path": func(b string) *http.Request {
			return request("GET", b+"/v1/pets/a%2Fb%20c", nil)
		},
		"unknown path, sniffable body": func(b string) *http.Request {
			return request("GET", b+"/v1/nowhere", nil, "Accept", "*/*")
		},
		"rate limited, repeated headers": func(b string) *http.Request {
			return request("GET", b+"/v1/limited", nil, "X-Multi", "1", "X-Multi", "2",
				"Forwarded", "for=192.0.2.1", "X-Forwarded-For", "192.0.2.1")
		},
		"compressed answer stays compressed": func(b string) *http.Request {
			return request("GET", b+"/v1/gzip", nil, "Accept-Encoding", "gzip")
		},
		"streamed answer": func(b string) *http.Request { return request("GET", b+"/v1/big", nil) },
		"no content":      func(b string) *http.Request { return request("DELETE", b+"/v1/empty", nil) },
		"HEAD":            func(b string) *http.Request { return request("HEAD", b+"/v1/pets", nil) },
		"no user agent": func(b string) *http.Request {
			r := request("GET", b+"/v1/pets", nil)
			r.Header["User-Agent"] = nil // Go's client then sends none
			return r
		},
	} {
		t.Run(name, func(t *testing.T) {
			directSeen, directGot := exchange(t, rec, backend.URL, mk)
			proxySeen, proxyGot := exchange(t, rec, p.URL, mk)
			assert.Equal(t, directSeen, proxySeen, "what the backend saw")
			assert.Equal(t, directGot, proxyGot, "what the client got")
		})
	}
	assert.Equal(t, latency.Stats{Requests: 17, MaxInFlight: 1}, p.Stats())
}

// TestCountsInFlight holds requests in a backend until all have arrived.
func TestCountsInFlight(t *testing.T) {
	const n = 5
	arrived, release := make(chan struct{}), make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hold") != "" {
			arrived <- struct{}{}
			<-release
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer backend.Close()
	p, err := latency.Start(backend.URL, latency.Options{})
	require.NoError(t, err)
	defer p.Close()

	var wg sync.WaitGroup
	var ok atomic.Int32
	for range n {
		wg.Go(func() {
			res, err := http.Get(p.URL + "/?hold=1")
			if err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					ok.Add(1)
				}
			}
		})
	}
	for range n {
		<-arrived
	}
	assert.Equal(t, latency.Stats{Requests: n, InFlight: n, MaxInFlight: n}, p.Stats())
	close(release)
	wg.Wait()
	assert.EqualValues(t, n, ok.Load())

	for range 3 { // one at a time: the most stays n
		res, err := http.Get(p.URL + "/")
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	st := p.Stats()
	assert.EqualValues(t, n+3, st.Requests)
	assert.EqualValues(t, n, st.MaxInFlight)
}

// TestDelaysEachWay: the sleep is called with the delay once before the backend sees the
// request and once after it answered; with no delay it is not called.
func TestDelaysEachWay(t *testing.T) {
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	defer backend.Close()

	type call struct {
		d    time.Duration
		hits int32 // the backend's requests when the sleep was called
	}
	var mu sync.Mutex
	var calls []call
	fake := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, call{d, hits.Load()})
		return ctx.Err()
	}
	for _, c := range []struct {
		delay time.Duration
		want  []call
	}{
		{25 * time.Millisecond, []call{{25 * time.Millisecond, 0}, {25 * time.Millisecond, 1}, {25 * time.Millisecond, 1}, {25 * time.Millisecond, 2}}},
		{0, nil},
	} {
		hits.Store(0)
		calls = nil
		p, err := latency.Start(backend.URL, latency.Options{Delay: c.delay, Sleep: fake})
		require.NoError(t, err)
		for range 2 {
			res, err := http.Get(p.URL + "/")
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, "ok", string(body))
		}
		p.Close()
		mu.Lock()
		assert.Equal(t, c.want, calls, "delay %v", c.delay)
		mu.Unlock()
	}
}

// TestRealSleepEndsWithTheClient: a client that gives up does not leave the proxy waiting
// out its delay, and its request is not forwarded.
func TestRealSleepEndsWithTheClient(t *testing.T) {
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer backend.Close()
	entered := make(chan struct{})
	p, err := latency.New(backend.URL, latency.Options{Delay: time.Hour})
	require.NoError(t, err)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		p.ServeHTTP(w, r)
	}))
	defer front.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, "GET", front.URL+"/", nil)
	_, err = http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.Canceled)
	front.Close() // waits for the handler: it returns once its request's context ends
	assert.Zero(t, hits.Load())
	assert.Equal(t, latency.Stats{Requests: 1, MaxInFlight: 1}, p.Stats())
}

func TestUpstreamDown(t *testing.T) {
	backend := httptest.NewServer(http.NotFoundHandler())
	backend.Close()
	var logged bytes.Buffer
	p, err := latency.Start(backend.URL, latency.Options{ErrorLog: log.New(&logged, "", 0)})
	require.NoError(t, err)
	defer p.Close()
	res, err := http.Get(p.URL + "/v1/pets")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadGateway, res.StatusCode)
	assert.EqualValues(t, 1, p.Stats().UpstreamErrors)
	assert.Contains(t, logged.String(), "/v1/pets")
}

func TestNewRejects(t *testing.T) {
	for _, upstream := range []string{"", "127.0.0.1:80", "ftp://127.0.0.1", "http://", "http://h/?a=1", "http://u:p@h", "http://h/#f", "http://h/?"} {
		_, err := latency.New(upstream, latency.Options{})
		assert.Error(t, err, "%q", upstream)
	}
	_, err := latency.New("http://127.0.0.1:1", latency.Options{Delay: -time.Second})
	assert.Error(t, err)
	_, err = latency.New("http://127.0.0.1:1/base", latency.Options{})
	assert.NoError(t, err)
}

func TestUpstreamPathPrefix(t *testing.T) {
	rec := &recorder{}
	backend := httptest.NewServer(rec)
	defer backend.Close()
	p, err := latency.Start(backend.URL+"/api", latency.Options{})
	require.NoError(t, err)
	defer p.Close()
	s, _ := exchange(t, rec, p.URL, func(b string) *http.Request { return request("GET", b+"/v1/pets?x=%zz", nil) })
	assert.Equal(t, "/api/v1/pets?x=%zz", s.RequestURI)
	u, _ := url.Parse(backend.URL)
	assert.Equal(t, u.Host, s.Host)
}

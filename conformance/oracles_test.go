package conformance_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// storeThenRefuse stores every create the reference takes and then answers 400 when the
// request carries the field named: a validation step that runs after the write.
func storeThenRefuse(field string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || len(r.Header.Values(field)) == 0 || !authorized(r) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			if rec.Code/100 != 2 {
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = io.Copy(w, rec.Body)
				return
			}
			errorReply(w, http.StatusBadRequest, "invalid_request", "unexpected "+field)
		})
	}
}

// A refused write leaves nothing behind: whatever header a service refuses a create for
// after storing it, the refused-write oracle finds the animal, where a case's verdict alone
// (an open answer: 400 is allowed) would pass.
func TestRefusedWriteOracle(t *testing.T) {
	for _, field := range []string{"Accept", "Expect", "Origin", "X-Http-Method-Override", "X-Forwarded-Proto"} {
		t.Run(field, func(t *testing.T) {
			t.Parallel()
			opts := conformance.Options{Seed: 1, Only: []string{"createPet/cases-*"}}
			rep := run(t, serve(t, storeThenRefuse(field)(newReference(t, beforeSunset, reference.Config{}))), opts)
			var found []string
			for _, res := range rep.Results {
				for _, f := range res.Failures {
					if strings.HasPrefix(f.Message, "a refused create left an animal behind") {
						found = append(found, res.ID+": "+f.Case)
						require.GreaterOrEqual(t, f.Exchange, 0)
						ex := res.Exchanges[f.Exchange]
						assert.Equal(t, http.MethodPost, ex.Request.Method, "the failure shows the refused create")
						assert.Contains(t, strings.ToLower(ex.Curl), strings.ToLower(field), "the create carried the field")
					}
				}
			}
			assert.NotEmpty(t, found, "a create refused for %s after it was stored is found", field)
			assert.Equal(t, conformance.NotConforming, rep.Verdict)
		})
	}
	// The same server without the fault: nothing is found.
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{Seed: 1, Only: []string{"createPet/cases-*"}})
	assert.Equal(t, conformance.Conforming, rep.Verdict)
}

// unreadFront is a front for a conforming store that answers a request without a valid key
// 401 at once, without reading its body, and keeps the connection: the body left on it is
// read as the next request's line (Python's http.server does so, and answers that "method"
// 501). Everything else it hands to the reference.
func unreadFront(t *testing.T, store http.Handler) conformance.Target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveUnread(c, store)
		}
	}()
	return conformance.Target{BaseURL: "http://" + ln.Addr().String() + "/v1", APIKey: testKey}
}

func serveUnread(c net.Conn, store http.Handler) {
	defer c.Close()
	br := bufio.NewReader(c)
	tp := textproto.NewReader(br)
	write := func(status int, header http.Header, body []byte, head bool) {
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
		header.Set("Content-Length", strconv.Itoa(len(body)))
		_ = header.Write(c)
		fmt.Fprint(c, "\r\n")
		if !head {
			_, _ = c.Write(body)
		}
	}
	for {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 || !validMethod(parts[0]) {
			write(http.StatusNotImplemented, http.Header{"Content-Type": {"text/html"}},
				[]byte("<html><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method.</p></body></html>"), false)
			continue
		}
		h := http.Header(hdr)
		if v := h.Values("Authorization"); len(v) != 1 || v[0] != "Bearer "+testKey {
			b, _ := json.Marshal(map[string]any{"code": "unauthorized", "message": "missing or invalid API key", "status": 401})
			write(http.StatusUnauthorized, http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {"Bearer"}}, b, parts[0] == http.MethodHead)
			continue // the body, if any, stays on the connection
		}
		var body io.Reader = http.NoBody
		if te := h.Get("Transfer-Encoding"); strings.EqualFold(te, "chunked") {
			body = httputil.NewChunkedReader(br)
		} else if n, _ := strconv.Atoi(h.Get("Content-Length")); n > 0 {
			body = io.LimitReader(br, int64(n))
		}
		if h.Get("Expect") == "100-continue" {
			fmt.Fprint(c, "HTTP/1.1 100 Continue\r\n\r\n")
		}
		b, _ := io.ReadAll(body)
		if h.Get("Transfer-Encoding") != "" {
			_, _ = tp.ReadMIMEHeader() // the trailer section after the last chunk
		}
		r := httptest.NewRequest(parts[0], parts[1], bytes.NewReader(b))
		r.Header = h
		rec := httptest.NewRecorder()
		store.ServeHTTP(rec, r)
		write(rec.Code, rec.Header(), rec.Body.Bytes(), parts[0] == http.MethodHead)
	}
}

func validMethod(m string) bool {
	return m != "" && strings.IndexFunc(m, func(r rune) bool { return r < 'A' || r > 'Z' }) < 0
}

// A front that answers a keyless request without reading its body poisons the connection for
// the request after it. The finding names that request, with both requests in one curl line,
// and every failing exchange reproduces when its request is sent alone on a fresh connection.
func TestPoisonedConnectionBlamesTheRequestBefore(t *testing.T) {
	target := unreadFront(t, newReference(t, beforeSunset, reference.Config{}))
	rep := run(t, target, conformance.Options{Seed: 1, Workers: 1, Only: []string{"createPet/cases-*"}})
	var blamed int
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	for _, res := range rep.Results {
		for _, f := range res.Failures {
			if f.Exchange < 0 {
				continue
			}
			ex := res.Exchanges[f.Exchange]
			if strings.Contains(f.Message, "left its connection unusable") {
				blamed++
				assert.Contains(t, ex.Curl, " --next ", "both requests, on one connection")
				assert.Empty(t, ex.Request.Header.Values("Authorization"), "the request blamed is the one without a key")
			}
			req, err := http.NewRequest(ex.Request.Method, ex.Request.URL, strings.NewReader(ex.Request.Body))
			require.NoError(t, err)
			for k, vs := range ex.Request.Header {
				for _, v := range vs {
					req.Header.Add(k, strings.ReplaceAll(v, "$PETSTORE_API_KEY", testKey))
				}
			}
			resp, err := fresh.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, ex.Response.Status, resp.StatusCode, "%s: %s alone on a fresh connection", res.ID, f.Message)
		}
	}
	assert.Positive(t, blamed, "the request that left its body unread is named")
}

// keyOutside counts, per place outside the Authorization header and per operation, the
// requests that carry the key there: what a logging front between the harness and the
// service would record.
type keyOutside struct {
	mu    sync.Mutex
	count map[string]int
}

func (k *keyOutside) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := r.Method + " /pets"
		if strings.Count(strings.TrimPrefix(r.URL.Path, "/v1/"), "/") > 0 {
			op = r.Method + " /pets/{petId}"
		}
		var places []string
		for name, vs := range r.URL.Query() {
			if slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, testKey) }) {
				places = append(places, "query "+name)
			}
		}
		for _, c := range r.Cookies() {
			if strings.Contains(c.Value, testKey) {
				places = append(places, "cookie "+c.Name)
			}
		}
		for name, vs := range r.Header {
			if name != "Authorization" && name != "Cookie" && slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, testKey) }) {
				places = append(places, "header "+name)
			}
		}
		k.mu.Lock()
		for _, p := range places {
			k.count[p+" on "+op]++
		}
		k.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// The key outside the Authorization header goes out at most once a place and operation in a
// default run (logs on the way keep URLs), and nowhere with --no-key-elsewhere, which counts
// those cases as not sent.
func TestKeyOutsideTheHeaderOnce(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	seen := &keyOutside{count: map[string]int{}}
	rep := run(t, serve(t, seen.wrap(newReference(t, beforeSunset, reference.Config{}))), conformance.Options{Seed: 1})
	assert.Equal(t, conformance.Conforming, rep.Verdict)
	assert.True(t, rep.KeyElsewhere, "the report says the key went elsewhere")
	assert.NotEmpty(t, seen.count)
	for where, n := range seen.count {
		assert.Equal(t, 1, n, "the key %s", where)
	}

	none := &keyOutside{count: map[string]int{}}
	rep = run(t, serve(t, none.wrap(newReference(t, beforeSunset, reference.Config{}))), conformance.Options{Seed: 1, NoKeyElsewhere: true})
	assert.Empty(t, none.count)
	assert.False(t, rep.KeyElsewhere)
	res, _ := rep.Result("listPets/cases-auth")
	assert.Positive(t, res.CasesSkipped)
	assert.Contains(t, res.Reason, "--no-key-elsewhere")
}

// The poisoned-connection oracle's resend of a create counts against --max-creates: the
// animals stored stay within it, whatever the resends would have added.
func TestResentCreatesStayWithinMaxCreates(t *testing.T) {
	for _, max := range []int{8, 40} {
		var created atomic.Int64
		ref := newReference(t, beforeSunset, reference.Config{})
		counting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			ref.ServeHTTP(rec, r)
			if r.Method == http.MethodPost && rec.Code == http.StatusCreated {
				created.Add(1)
			}
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		})
		target := unreadFront(t, counting)
		rep := run(t, target, conformance.Options{Seed: 1, Workers: 1, MaxCreates: max, Only: []string{"createPet/cases-*"}})
		assert.LessOrEqual(t, created.Load(), int64(max), "--max-creates %d", max)
		assert.LessOrEqual(t, rep.AnimalsCreated, max)
	}
}

// A create refused with a 500 that stores a record the service cannot serve (zoo/FINDINGS.md
// glue-5) breaks every read of it (glue-6): the refused-write oracle names the create, by the
// listing that breaks where the store is small, and by getPet of the id before the next
// animal's whatever its size; a listing broken before the cases blames no create.
func TestRefusedCreateThatLeavesAnUnservableRecord(t *testing.T) {
	unservable := func(stored *atomic.Int64) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				bad := stored.Load()
				switch {
				case r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") && authorized(r) && bad != 0:
					errorReply(w, http.StatusInternalServerError, "internal", "name is required")
				case r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") && authorized(r):
					// The body is stored without its fields: an id is taken, nothing can serve it.
					rec := httptest.NewRecorder()
					req := httptest.NewRequest(http.MethodPost, r.URL.String(), strings.NewReader(`{"name":"unservable","categoryId":1}`))
					req.Header = r.Header.Clone()
					req.Header.Set("Content-Type", "application/json")
					next.ServeHTTP(rec, req)
					var pet struct{ ID int64 }
					_ = json.Unmarshal(rec.Body.Bytes(), &pet)
					stored.Store(pet.ID)
					errorReply(w, http.StatusInternalServerError, "internal", "name is required")
				case bad != 0 && r.Method == http.MethodGet && (strings.HasSuffix(r.URL.Path, "/pets/"+strconv.FormatInt(bad, 10)) ||
					strings.HasSuffix(r.URL.Path, "/pets") && listsID(next, r, bad)):
					errorReply(w, http.StatusInternalServerError, "internal", "name is required")
				default:
					next.ServeHTTP(w, r)
				}
			})
		}
	}
	blamed := func(rep *conformance.Report, prefix string) []string {
		res, _ := rep.Result("createPet/cases-headers")
		var out []string
		for _, f := range res.Failures {
			if strings.HasPrefix(f.Message, prefix) {
				out = append(out, f.Case)
				assert.GreaterOrEqual(t, f.Exchange, 0)
			}
		}
		return out
	}
	opts := conformance.Options{Seed: 1, Only: []string{"createPet/cases-headers"}}
	t.Run("a small store", func(t *testing.T) {
		t.Parallel()
		rep := run(t, serve(t, unservable(new(atomic.Int64))(newReference(t, beforeSunset, reference.Config{}))), opts)
		assert.Equal(t, []string{"Content-Type: text/plain"}, blamed(rep, "a refused create broke the listing"))
		assert.Equal(t, []string{"Content-Type: text/plain"}, blamed(rep, "a refused create left a record behind that the service cannot serve"))
	})
	t.Run("more animals than a listing shows", func(t *testing.T) {
		t.Parallel()
		seed := make([]reference.NewPet, 150)
		for i := range seed {
			seed[i] = reference.NewPet{Name: fmt.Sprintf("seed-%d", i), CategoryID: 1}
		}
		rep := run(t, serve(t, unservable(new(atomic.Int64))(newReference(t, beforeSunset, reference.Config{Seed: seed}))), opts)
		assert.Empty(t, blamed(rep, "a refused create broke the listing"))
		assert.Equal(t, []string{"Content-Type: text/plain"}, blamed(rep, "a refused create left a record behind that the service cannot serve"))
	})
	t.Run("getPet broken for every animal", func(t *testing.T) {
		t.Parallel()
		getFails := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/pets/") {
					errorReply(w, http.StatusInternalServerError, "internal", "broken")
					return
				}
				next.ServeHTTP(w, r)
			})
		}
		rep := run(t, serve(t, getFails(unservable(new(atomic.Int64))(newReference(t, beforeSunset, reference.Config{})))), opts)
		assert.Empty(t, blamed(rep, "a refused create left a record behind"), "getPet fails the new animal too: nothing to blame")
	})
	t.Run("a listing broken before the cases", func(t *testing.T) {
		t.Parallel()
		broken := new(atomic.Int64)
		broken.Store(1) // the first animal cannot be served, from the start
		rep := run(t, serve(t, unservable(broken)(newReference(t, beforeSunset, reference.Config{Seed: []reference.NewPet{{Name: "a", CategoryID: 1}}}))), opts)
		assert.Empty(t, blamed(rep, "a refused create broke the listing"))
		assert.Empty(t, blamed(rep, "a refused create left a record behind"))
	})
}

// listsID: the listing r asks for, as next answers it, holds the animal of id.
func listsID(next http.Handler, r *http.Request, id int64) bool {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r.Clone(r.Context()))
	var pets []struct{ ID int64 }
	_ = json.Unmarshal(rec.Body.Bytes(), &pets)
	for _, p := range pets {
		if p.ID == id {
			return true
		}
	}
	return false
}

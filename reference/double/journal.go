package double

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/internal/secret"
	"github.com/petstore/petstore/reference/internal/core"
)

// The journal: the recent requests, as a client's tests assert on them (WireMock's request
// verification, with the spec's operation and the server's verdict on each).

// Caps of what one journal entry holds, so that the journal's memory is bounded by its size.
const (
	JournalBodyBytes   = 4 << 10 // request body bytes kept
	journalValueBytes  = 512     // bytes kept of a header value, the path and the query
	journalHeaderCount = 32      // header fields kept
)

// JournalEntry is one request as the journal keeps it. Every form of every key is masked.
type JournalEntry struct {
	Seq       uint64              `json:"seq"`  // 1 for the first request the server saw
	Time      time.Time           `json:"time"` // arrival, by the server's clock
	Method    string              `json:"method"`
	Path      string              `json:"path"`
	Query     string              `json:"query,omitempty"`
	Operation string              `json:"operation,omitempty"` // operationId; "" when none matched
	Key       string              `json:"key"`                 // "valid", "invalid" or "none"
	Headers   map[string][]string `json:"headers"`
	// Body is the request body as far as the server read it, up to JournalBodyBytes; a
	// request answered before its body was read (a 401, say) shows none.
	Body          string `json:"body,omitempty"`
	BodyTruncated bool   `json:"bodyTruncated,omitempty"`
	// Status is the answer's status; 0 when there was none (Prefer: fault=reset or close).
	Status int `json:"status"`
	// Error is the Error record of the answer, when it was one: why the request was refused.
	Error *core.Error `json:"error,omitempty"`
	// Chosen says the answer was chosen (Prefer, fail rate, rate limit), not earned.
	Chosen bool `json:"chosen,omitempty"`
}

// Journal is what GET /_admin/requests answers.
type Journal struct {
	Requests []JournalEntry `json:"requests"` // oldest first
	Capacity int            `json:"capacity"`
	Dropped  uint64         `json:"dropped"` // older requests no longer kept
}

// RequestFilter selects journal entries; a zero field selects all.
type RequestFilter struct {
	Operation string    // operationId
	Status    int       // an exact status, or 1 to 5 for a class (4 is every 4xx)
	Since     time.Time // entries at or after this instant of the server's clock
}

func (f RequestFilter) match(e *JournalEntry) bool {
	return (f.Operation == "" || e.Operation == f.Operation) &&
		(f.Status == 0 || e.Status == f.Status || (f.Status < 10 && e.Status/100 == f.Status)) &&
		(f.Since.IsZero() || !e.Time.Before(f.Since))
}

// parseRequestFilter reads the query of GET /_admin/requests; ops are the spec's
// operationIds, which operation= must name one of.
func parseRequestFilter(q url.Values, ops []string) (RequestFilter, error) {
	var f RequestFilter
	for name, vs := range q {
		if len(vs) != 1 {
			return f, core.Invalid("filter %q given %d times; give it once", name, len(vs))
		}
		v := vs[0]
		switch name {
		case "operation":
			if !slices.Contains(ops, v) {
				return f, core.Invalid("operation %q is no operation of the spec; they are %s", v, strings.Join(ops, ", "))
			}
			f.Operation = v
		case "status":
			n, err := strconv.Atoi(strings.TrimSuffix(strings.ToLower(v), "xx"))
			class := strings.HasSuffix(strings.ToLower(v), "xx")
			if err != nil || (class && (n < 1 || n > 5)) || (!class && (n < 100 || n > 599)) {
				return f, core.Invalid("status must be a status code (404) or a class (4xx), got %q", v)
			}
			f.Status = n
		case "since":
			t, err := ParseTime(v)
			if err != nil {
				return f, core.Invalid("since: %v", err)
			}
			f.Since = t
		default:
			return f, core.Invalid("unknown filter %q; the filters are operation, status and since", name)
		}
	}
	return f, nil
}

// journal is a ring of the last entries, safe for concurrent use.
type journal struct {
	mu      sync.Mutex
	entries []JournalEntry // a ring once full: next is the oldest
	next    int
	full    bool
	seq     uint64
	dropped uint64
}

func newJournal(size int) *journal { return &journal{entries: make([]JournalEntry, 0, size)} }

func (j *journal) add(e JournalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.Seq = j.seq
	if !j.full {
		j.entries = append(j.entries, e)
		j.full = len(j.entries) == cap(j.entries)
		return
	}
	j.entries[j.next] = e
	j.next = (j.next + 1) % len(j.entries)
	j.dropped++
}

// snapshot returns the entries f selects, oldest first.
func (j *journal) snapshot(f RequestFilter) Journal {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := Journal{Requests: []JournalEntry{}, Capacity: cap(j.entries), Dropped: j.dropped}
	for i := range j.entries {
		e := &j.entries[(j.next+i)%len(j.entries)]
		if f.match(e) {
			out.Requests = append(out.Requests, *e)
		}
	}
	return out
}

// clear empties the journal; sequence numbers go on.
func (j *journal) clear() {
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.entries)
	j.entries, j.next, j.full, j.dropped = j.entries[:0], 0, false, 0
}

// masker replaces every form of every key a client might send or a server echo (plain, any
// letter case, percent-encoded, base64 and JSON-escaped: internal/secret's forms) with
// "<redacted>". A key of any length is masked where it is a value (a header's, a query
// parameter's, a cookie); in texts (bodies, paths, messages) one shorter than
// secret.MinTextLen is left, as internal/secret's doc says why. Authorization is masked whole.
type masker struct{ m *secret.Masker }

const masked = core.Redacted

func newMasker(keys ...string) masker { return masker{core.Masker(keys...)} }

// mask masks the keys in a text: a body, a path, a message.
func (m masker) mask(s string) string { return m.m.Text(s) }

// value masks the keys in a header's value, whatever their length.
func (m masker) value(s string) string { return m.m.Value(s) }

// query masks the keys in the values of a raw query string, whatever their length.
func (m masker) query(s string) string { return m.m.Query(s) }

// maskHeaders copies h with credentials replaced whole and every key masked, within the caps.
func (m masker) maskHeaders(h http.Header) map[string][]string {
	out := map[string][]string{}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names[:min(len(names), journalHeaderCount)] {
		for _, v := range h[name] {
			switch name {
			case "Authorization", "Proxy-Authorization", "Cookie":
				if scheme, _, ok := strings.Cut(v, " "); ok && name != "Cookie" {
					v = scheme + " " + masked
				} else {
					v = masked
				}
			default:
				v = capText(m.value(v))
			}
			out[name] = append(out[name], v)
		}
	}
	return out
}

// capText shortens a journal text to journalValueBytes, marking the cut.
func capText(s string) string {
	if len(s) <= journalValueBytes {
		return s
	}
	return core.Truncate(s, journalValueBytes)
}

// teeBody keeps the first JournalBodyBytes of what the server reads from a request body.
type teeBody struct {
	io.ReadCloser
	kept []byte
	read int64
	eof  bool // read to its end
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.read += int64(n)
	t.eof = t.eof || err == io.EOF
	if room := JournalBodyBytes - len(t.kept); room > 0 {
		t.kept = append(t.kept, p[:min(n, room)]...)
	}
	return n, err
}

// answerWriter notes the status of an answer and keeps the start of an error body.
type answerWriter struct {
	http.ResponseWriter
	status int
	body   []byte
	// clock, when set, is read as the status is written: wall is then the time the answer
	// left, before the client can have acted on it (a retry after a 429's wait), and after
	// the number of requests arrived by then (arrivals).
	clock    func() time.Time
	arrivals *atomic.Uint64
	wall     time.Time
	after    uint64
	// hijacking, when set, runs once before the connection is taken without an answer.
	hijacking func()
	hijacked  bool
}

// Hijack hands the connection over, after hijacking (the journal's entry) has run.
func (w *answerWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.status == 0 && !w.hijacked && w.hijacking != nil {
		w.hijacked = true
		w.hijacking()
	}
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// answered notes the status, and the time it was written.
func (w *answerWriter) answered(status int) {
	if w.status == 0 {
		w.status = status
		if w.clock != nil {
			w.wall, w.after = w.clock(), w.arrivals.Load()
		}
	}
}

// answerBodyBytes is enough for an Error record (its message is capped at 512 bytes).
const answerBodyBytes = 2 << 10

func (w *answerWriter) WriteHeader(status int) {
	w.answered(status)
	w.ResponseWriter.WriteHeader(status)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	w.answered(http.StatusOK)
	if w.status >= 400 && len(w.body) < answerBodyBytes {
		w.body = append(w.body, b[:min(len(b), answerBodyBytes-len(w.body))]...)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

package proxy

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/internal/words"
)

// The HAR 1.2 subset this package writes and reads
// (http://www.softwareishard.com/blog/har-12-spec/). Reading ignores the fields it does not
// know, so HAR files exported from browsers' developer tools load as they are.
type (
	harFile struct {
		Log *harLog `json:"log"`
	}
	harLog struct {
		Version string     `json:"version"`
		Creator harCreator `json:"creator"`
		Entries []harEntry `json:"entries"`
		Comment string     `json:"comment,omitempty"`
	}
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harEntry struct {
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"`
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
	}
	harRequest struct {
		Method      string       `json:"method"`
		URL         string       `json:"url"`
		HTTPVersion string       `json:"httpVersion"`
		Cookies     []harNV      `json:"cookies"`
		Headers     []harNV      `json:"headers"`
		QueryString []harNV      `json:"queryString"`
		PostData    *harPostData `json:"postData,omitempty"`
		HeadersSize int64        `json:"headersSize"`
		BodySize    int64        `json:"bodySize"`
	}
	harNV struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	harPostData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	harResponse struct {
		Status      int        `json:"status"`
		StatusText  string     `json:"statusText"`
		HTTPVersion string     `json:"httpVersion"`
		Cookies     []harNV    `json:"cookies"`
		Headers     []harNV    `json:"headers"`
		Content     harContent `json:"content"`
		RedirectURL string     `json:"redirectURL"`
		HeadersSize int64      `json:"headersSize"`
		BodySize    int64      `json:"bodySize"`
	}
	harContent struct {
		Size     int64   `json:"size"`
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text,omitempty"` // nil: the body was not recorded
		Encoding string  `json:"encoding,omitempty"`
	}
	harTimings struct {
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
	}
)

// DefaultMaxEntries caps the entries a Recorder keeps.
const DefaultMaxEntries = 10000

// Recorder keeps the exchanges a Proxy checks, as HAR 1.2 entries, with credentials masked
// and bodies capped (Config.MaxBodyBytes). It keeps at most DefaultMaxEntries entries and
// counts the rest. It is safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	entries []harEntry
	dropped int
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Len returns the number of entries kept.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// replacedComment is the comment of an entry whose response the proxy did not pass on
// (Config.FailOnViolation): the entry keeps the upstream's response, which the client did
// not get, so that check-har finds the same violations; the wait it asks for is not held
// against the client.
const replacedComment = "not passed on: the proxy answered 502 contract_violation instead (--fail-on-violation)"

// add records ex; replaced: the proxy answered 502 in its place.
func (r *Recorder) add(sec *secrets, start time.Time, took time.Duration, ex exchange, proto string, respSize int64, replaced bool) {
	in := ex.req
	scheme := "http"
	if in.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: in.Host, Path: in.URL.Path, RawPath: in.URL.RawPath, RawQuery: maskQuery(in.URL.RawQuery)}
	req := harRequest{
		Method: in.Method, URL: sec.url(u.String()), HTTPVersion: in.Proto,
		Cookies: []harNV{}, Headers: harHeaders(sec, in.Header, in.Host), QueryString: []harNV{},
		HeadersSize: -1, BodySize: int64(len(ex.reqBody)),
	}
	if !ex.reqComplete {
		req.BodySize = max(in.ContentLength, int64(len(ex.reqBody))+1)
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			req.QueryString = append(req.QueryString, harNV{Name: k, Value: sec.value(v)})
		}
	}
	sort.Slice(req.QueryString, func(i, j int) bool { return req.QueryString[i].Name < req.QueryString[j].Name })
	if len(ex.reqBody) > 0 {
		req.PostData = &harPostData{MimeType: in.Header.Get("Content-Type"), Text: sec.scrub(strings.ToValidUTF8(string(ex.reqBody), "\uFFFD"))}
	}
	content := harContent{Size: respSize, MimeType: ex.header.Get("Content-Type")}
	text := string(ex.respBody)
	if utf8.ValidString(text) {
		text = sec.scrub(text)
	} else {
		text, content.Encoding = base64.StdEncoding.EncodeToString(ex.respBody), "base64"
	}
	content.Text = &text
	ms := float64(took.Microseconds()) / 1000
	e := harEntry{
		StartedDateTime: start.UTC().Format(time.RFC3339Nano),
		Time:            ms,
		Request:         req,
		Response: harResponse{
			Status: ex.status, StatusText: http.StatusText(ex.status), HTTPVersion: proto,
			Cookies: []harNV{}, Headers: harHeaders(sec, ex.header, ""), Content: content,
			RedirectURL: ex.header.Get("Location"), HeadersSize: -1, BodySize: -1,
		},
		Timings: harTimings{Send: 0, Wait: ms, Receive: 0},
	}
	if replaced {
		e.Comment = replacedComment
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.entries) >= DefaultMaxEntries {
		r.dropped++
		return
	}
	r.entries = append(r.entries, e)
}

// harHeaders lists h (and Host, which Go keeps apart) sorted by name, credentials masked.
func harHeaders(sec *secrets, h http.Header, host string) []harNV {
	out := []harNV{}
	if host != "" {
		out = append(out, harNV{Name: "Host", Value: host})
	}
	masked := maskHeader(h)
	names := make([]string, 0, len(masked))
	for k := range masked {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range masked[k] {
			out = append(out, harNV{Name: k, Value: sec.value(v)})
		}
	}
	return out
}

// WriteTo writes the recorded traffic as a HAR 1.2 document.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	log := harLog{Version: "1.2", Creator: harCreator{Name: "conformance proxy", Version: "1"}, Entries: r.entries}
	if log.Entries == nil {
		log.Entries = []harEntry{}
	}
	if r.dropped > 0 {
		log.Comment = fmt.Sprintf("%s not recorded (limit %d entries)", words.Plural(r.dropped, "further exchange"), DefaultMaxEntries)
	}
	b, err := json.MarshalIndent(harFile{Log: &log}, "", "  ")
	r.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(append(b, '\n'))
	return int64(n), err
}

// HAROption adjusts CheckHAR.
type HAROption func(*harOptions)

type harOptions struct{ host string }

// OnlyHost makes CheckHAR ignore entries for other hosts than host ("api.example" or
// "api.example:8443").
func OnlyHost(host string) HAROption { return func(o *harOptions) { o.host = strings.ToLower(host) } }

// CheckHAR validates the exchanges of a HAR file against doc (nil: spec.Load()) and returns
// the same findings the proxy would have logged for that traffic. Entries outside the
// description's base path (other paths, data: URLs), CORS preflights and entries without a
// response (status 0) are ignored and counted in Summary.Ignored; entries whose body was
// not recorded whole are checked without their body and counted in Summary.Incomplete.
// The error is for a file that is not a HAR document.
//
// Each request is judged by the client rules as the proxy judges it, in the order of the
// entries' startedDateTime, which is also the clock of client/retry-after: an entry's answer
// came its time (ms) after it started, and a request that started before the end of the wait
// a 429 or 503 asked for, and after that answer came, is early (unless the proxy that
// recorded the file answered 502 in that answer's place, as the entry's comment says). When an entry has no
// startedDateTime the file has no clock: its entries are judged in their order, without
// client/retry-after.
func CheckHAR(r io.Reader, doc *openapi3.T, opts ...HAROption) (Summary, error) {
	var o harOptions
	for _, opt := range opts {
		opt(&o)
	}
	var f harFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Summary{}, fmt.Errorf("not a HAR file: %w", err)
	}
	if f.Log == nil || f.Log.Entries == nil {
		return Summary{}, errors.New("not a HAR file: no log.entries")
	}
	sec := &secrets{recorded: true}
	c, err := newChecker(doc, sec)
	if err != nil {
		return Summary{}, err
	}
	order, clock := harClock(f.Log.Entries)
	for n, i := range order {
		e := f.Log.Entries[i]
		ex, ok, err := harExchange(e, sec)
		if err != nil {
			return Summary{}, fmt.Errorf("HAR entry %d: %w", i, err)
		}
		ex.untimed = clock == nil
		if clock != nil {
			ex.wall, ex.arrived = clock[n], uint64(n+1)
			ex.answered = ex.wall.Add(time.Duration(e.Time * float64(time.Millisecond)))
			// Started by then: the first entry that started later is the count.
			ex.answeredAfter = uint64(sort.Search(len(clock), func(k int) bool { return clock[k].After(ex.answered) }))
		}
		if !ok || e.Response.Status == 0 || !c.inScope(ex.req) ||
			(o.host != "" && !strings.EqualFold(ex.req.URL.Host, o.host) && !strings.EqualFold(ex.req.URL.Hostname(), o.host)) {
			c.ignore()
			continue
		}
		c.check(ex)
		if e.Comment != replacedComment {
			c.answerSent(ex)
		}
	}
	return c.summary(), nil
}

// harClock returns the order in which to check entries, and when each of them started in
// that order: by startedDateTime (ties in the file's order), or, when an entry has none (or
// one that does not parse), the file's order and no clock.
func harClock(entries []harEntry) (order []int, clock []time.Time) {
	order = make([]int, len(entries))
	starts := make([]time.Time, len(entries))
	timed := true
	for i, e := range entries {
		order[i] = i
		t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		starts[i], timed = t, timed && err == nil
	}
	if !timed {
		return order, nil
	}
	sort.SliceStable(order, func(a, b int) bool { return starts[order[a]].Before(starts[order[b]]) })
	clock = make([]time.Time, len(order))
	for n, i := range order {
		clock[n] = starts[i]
	}
	return order, clock
}

// harExchange turns a HAR entry into an exchange; ok is false for a URL that is not an
// http(s) request (data:, blob:, chrome-extension:).
func harExchange(e harEntry, sec *secrets) (ex exchange, ok bool, err error) {
	u, err := url.Parse(e.Request.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ex, false, nil
	}
	req, err := http.NewRequest(e.Request.Method, u.String(), nil)
	if err != nil {
		return ex, false, nil
	}
	req.Header = headerOf(e.Request.Headers)
	sec.learn(req.Header, u.RawQuery)
	ex = exchange{req: req, reqComplete: true, status: e.Response.Status, header: headerOf(e.Response.Headers), respComplete: true}
	if pd := e.Request.PostData; pd != nil {
		ex.reqBody = []byte(pd.Text)
		if req.Header.Get("Content-Type") == "" && pd.MimeType != "" {
			req.Header.Set("Content-Type", pd.MimeType)
		}
	}
	ex.reqComplete = e.Request.BodySize <= int64(len(ex.reqBody))
	c := e.Response.Content
	if c.Text == nil {
		ex.respComplete = c.Size == 0
		return ex, true, nil
	}
	ex.respBody = []byte(*c.Text)
	if c.Encoding == "base64" {
		if ex.respBody, err = base64.StdEncoding.DecodeString(*c.Text); err != nil {
			return ex, false, fmt.Errorf("response content: %w", err)
		}
	}
	ex.respComplete = c.Size <= int64(len(ex.respBody))
	if ex.header.Get("Content-Type") == "" && c.MimeType != "" {
		ex.header.Set("Content-Type", c.MimeType)
	}
	return ex, true, nil
}

// headerOf builds a header from HAR name/value pairs, leaving out HTTP/2 pseudo-headers
// (":authority") that browsers list among the others.
func headerOf(nvs []harNV) http.Header {
	h := http.Header{}
	for _, nv := range nvs {
		if nv.Name == "" || strings.HasPrefix(nv.Name, ":") {
			continue
		}
		h.Add(nv.Name, nv.Value)
	}
	return h
}

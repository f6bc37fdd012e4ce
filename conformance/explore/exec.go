package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Target is the service a run explores.
type Target struct {
	// BaseURL ends with the version segment, e.g. http://127.0.0.1:8080/v1.
	BaseURL string
	// APIKey is sent as the bearer token; reports never show it.
	APIKey string
	// Client sends the requests (the command builds it with TLS options and a timeout);
	// nil means http.DefaultClient.
	Client *http.Client
}

// KeyPlaceholder stands for the key in curl lines and reports: the shell reads it from the
// environment.
const KeyPlaceholder = "$PETSTORE_API_KEY"

// wrongKey is the bearer token of the steps that send a wrong key.
const wrongKey = "explore-not-the-key"

// maxBody caps what is read of an answer; maxKept what a report keeps of it.
const (
	maxBody = 1 << 20
	maxKept = 2 << 10
)

// Exchange is one step as it ran: the request, the answer, and the curl line that repeats it.
type Exchange struct {
	Worker       int     `json:"worker"`
	Index        int     `json:"index"`
	Step         Step    `json:"step"`
	Method       string  `json:"method,omitempty"`
	URL          string  `json:"url,omitempty"`
	RequestBody  string  `json:"requestBody,omitempty"`
	Status       int     `json:"status,omitempty"`
	ResponseBody string  `json:"responseBody,omitempty"`
	Error        string  `json:"error,omitempty"`
	Skipped      string  `json:"skipped,omitempty"`
	Millis       float64 `json:"ms"`
	Curl         string  `json:"curl,omitempty"`
	start        time.Time
}

// errBudget ends a replay whose createPet steps would exceed the budget of creates.
var errBudget = errors.New("the budget of animals to create (--max-creates) is spent")

// budget counts the animals a phase may create.
type budget struct {
	max  int64
	used atomic.Int64
}

func (b *budget) take() bool {
	if b.used.Add(1) > b.max {
		b.used.Add(-1)
		return false
	}
	return true
}

func (b *budget) give() { b.used.Add(-1) }

// limiter spaces requests across all workers to a rate; nil sends at once.
type limiter struct {
	mu    sync.Mutex
	every time.Duration
	next  time.Time
}

func newLimiter(perSecond float64) *limiter {
	if perSecond <= 0 {
		return nil
	}
	return &limiter{every: time.Duration(float64(time.Second) / perSecond)}
}

func (l *limiter) wait(ctx context.Context) error {
	if l == nil {
		return ctx.Err()
	}
	l.mu.Lock()
	now := time.Now()
	slot := now
	if l.next.After(now) {
		slot = l.next
	}
	l.next = slot.Add(l.every)
	l.mu.Unlock()
	return sleep(ctx, slot.Sub(now))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// runner sends steps and judges the answers; it is shared by the workers and by every
// replay of a run.
type runner struct {
	t       Target
	f       *Facts
	timeout time.Duration
	limit   *limiter
	// fresh, when set, gives each replay a target of its own (see Config.Fresh).
	fresh func() (Target, func(), error)
	c     *counters
}

// counters are shared by a runner and its copies for fresh targets.
type counters struct {
	requests  atomic.Int64
	throttled atomic.Int64
}

func newRunner(t Target, f *Facts, timeout time.Duration, rate float64, fresh func() (Target, func(), error)) *runner {
	return &runner{t: t, f: f, timeout: timeout, limit: newLimiter(rate), fresh: fresh, c: &counters{}}
}

// worker is what one worker's steps refer to while a sequence runs.
type worker struct {
	n        int
	ids      map[int]string // createPet step index -> id answered with 201
	lastList []string       // ids of the latest non-empty listing
}

func newWorker(n int) *worker { return &worker{n: n, ids: map[int]string{}} }

// maxThrottled is how many 429 (or 503 with Retry-After) answers a step waits out.
const maxThrottled = 5

// exec runs step i of worker w and judges its answer. The error is set when the step could
// not be judged for a reason that is no finding (the run was cancelled, the budget is spent).
func (r *runner) exec(ctx context.Context, m *model, creates *budget, w *worker, i int, st Step) (Exchange, *Violation, error) {
	ex := Exchange{Worker: w.n, Index: i, Step: st}
	method, rel, ok := r.resolve(w, st)
	if !ok {
		ex.Skipped = "the step it refers to got no animal"
		return ex, nil, nil
	}
	ex.Method, ex.URL, ex.RequestBody = method, r.t.BaseURL+rel, st.Body
	ex.Curl = r.curl(method, ex.URL, st)
	counted := st.Op == opCreate && st.Auth == ""
	if counted && !creates.take() {
		return ex, nil, errBudget
	}
	var v *Violation
	for attempt := 0; ; attempt++ {
		ex.start = time.Now()
		status, header, body, err := r.send(ctx, method, ex.URL, st)
		if ctx.Err() != nil {
			return ex, nil, ctx.Err()
		}
		ex.Millis = float64(time.Since(ex.start).Microseconds()) / 1000
		if err != nil {
			ex.Error = r.redact(err.Error())
			return ex, violation("no-answer", "%s %s: no answer: %s", method, rel, ex.Error), nil
		}
		ex.Status, ex.ResponseBody = status, r.redact(keep(body))
		if wait, again := throttledFor(status, header); again && attempt < maxThrottled {
			r.c.throttled.Add(1)
			if err := sleep(ctx, wait); err != nil {
				return ex, nil, err
			}
			continue
		}
		if v = r.basic(method, rel, status, header, body); v != nil {
			break
		}
		var recheck time.Duration
		recheck, v = r.judge(m, w, i, st, rel, ex.start, status, body)
		if recheck <= 0 || v != nil || attempt >= maxThrottled {
			break
		}
		// A 404 for an animal stored within the allowed lag: ask again once it has passed.
		if err := sleep(ctx, recheck); err != nil {
			return ex, nil, err
		}
	}
	if counted && ex.Status/100 != 2 {
		creates.give()
	}
	return ex, v, nil
}

// throttledFor says whether an answer asks the client to come back later (a 429, or a 503
// with Retry-After), and when: the document shows no rate limits, so it is no finding.
func throttledFor(status int, h http.Header) (time.Duration, bool) {
	ra := h.Get("Retry-After")
	if status != http.StatusTooManyRequests && (status != http.StatusServiceUnavailable || ra == "") {
		return 0, false
	}
	d := 100 * time.Millisecond
	if n, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	}
	return min(d, time.Second), true
}

// resolve gives the method and the path (with query) relative to the base URL.
func (r *runner) resolve(w *worker, st Step) (method, rel string, ok bool) {
	switch st.Op {
	case opList:
		var q []string
		if st.Limit != nil {
			q = append(q, paramLimit+"="+queryEscape(*st.Limit))
		}
		if st.Status != nil {
			q = append(q, paramStatus+"="+queryEscape(*st.Status))
		}
		rel = "/pets"
		if len(q) > 0 {
			rel += "?" + strings.Join(q, "&")
		}
		return http.MethodGet, rel, true
	case opCreate:
		return http.MethodPost, "/pets", true
	}
	id := st.ID
	switch {
	case st.Ref != nil:
		id, ok = w.ids[*st.Ref]
		if !ok {
			return "", "", false
		}
	case st.Listed != nil:
		if len(w.lastList) == 0 {
			return "", "", false
		}
		id = w.lastList[*st.Listed%len(w.lastList)]
	}
	return http.MethodGet, "/pets/" + pathEscape(id), true
}

// send sends a step's request: its body for a POST, the key its Auth says.
func (r *runner) send(ctx context.Context, method, url string, st Step) (int, http.Header, []byte, error) {
	var body *string
	if method == http.MethodPost {
		body = &st.Body
	}
	auth := ""
	switch st.Auth {
	case "":
		auth = "Bearer " + r.t.APIKey
	case authWrong:
		auth = "Bearer " + wrongKey
	}
	return r.do(ctx, method, url, body, auth)
}

// do sends one request (a JSON body when body is set, auth as its Authorization header when
// not empty), paced and bounded as every request of the run, and reads the answer, capped.
func (r *runner) do(ctx context.Context, method, url string, body *string, auth string) (int, http.Header, []byte, error) {
	if err := r.limit.wait(ctx); err != nil {
		return 0, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(*body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	client := r.t.Client
	if client == nil {
		client = http.DefaultClient
	}
	r.c.requests.Add(1)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(b) > maxBody {
		return 0, nil, nil, fmt.Errorf("answer body longer than %d bytes", maxBody)
	}
	return resp.StatusCode, resp.Header, b, nil
}

// resetPath is the reference server's reset, beside the base path: it empties the store.
const resetPath = "/_admin/reset"

// reset asks the target to start again from an empty store (POST /_admin/reset with the
// admin key, as the reference server offers it); the error says why it did not.
func (r *runner) reset(ctx context.Context, adminKey string) error {
	root := strings.TrimSuffix(strings.TrimRight(r.t.BaseURL, "/"), r.f.Base)
	status, _, _, err := r.do(ctx, http.MethodPost, root+resetPath, nil, "Bearer "+adminKey)
	switch {
	case err != nil:
		return fmt.Errorf("POST %s got no answer: %s", resetPath, r.redact(err.Error()))
	case status/100 != 2:
		return fmt.Errorf("POST %s answered %d", resetPath, status)
	}
	return nil
}

// basic holds every answer to what holds whatever the step: no 5xx, every 4xx an Error
// record whose status repeats the HTTP status, and the answer valid against the description
// (an undocumented 4xx, allowed where the document is silent, only needs the Error record).
func (r *runner) basic(method, rel string, status int, header http.Header, body []byte) *Violation {
	if status >= 500 {
		return violation("no-5xx", "%s %s answered %d: %s", method, pathOnly(rel), status, r.redact(keep(body)))
	}
	vreq, _ := http.NewRequest(method, "http://spec"+r.f.Base+rel, nil)
	vreq.Header.Set("Authorization", "Bearer present")
	if status >= 400 {
		if v := r.errorRecord(method, rel, status, header, body); v != nil {
			return v
		}
		if route, _, err := r.f.Validator.Route(vreq); err == nil && route.Operation.Responses.Status(status) == nil {
			return nil
		}
	}
	if vs := r.f.Validator.ValidateResponse(vreq, status, header, body); len(vs) > 0 {
		return violation("spec", "%s %s answered %d, which breaks the description: %s", method, pathOnly(rel), status, vs[0])
	}
	return nil
}

func (r *runner) errorRecord(method, rel string, status int, header http.Header, body []byte) *Violation {
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if mt != "application/json" {
		return violation("error-record", "%s %s answered %d with media type %q, not an application/json Error record",
			method, pathOnly(rel), status, header.Get("Content-Type"))
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return violation("error-record", "%s %s answered %d with a body that is not JSON: %v", method, pathOnly(rel), status, err)
	}
	if err := r.f.ErrSchema.VisitJSON(v); err != nil {
		return violation("error-record", "%s %s answered %d with a body that is not an Error record: %s", method, pathOnly(rel), status, firstLine(err.Error()))
	}
	if s, _ := v.(map[string]any)["status"].(float64); int(s) != status {
		return violation("error-record", "%s %s answered %d with an Error record whose status is %v", method, pathOnly(rel), status, s)
	}
	return nil
}

// judge checks an answer against the model. recheck > 0 asks for the request again after
// that long (a 404 within the allowed lag).
func (r *runner) judge(m *model, w *worker, i int, st Step, rel string, sent time.Time, status int, body []byte) (recheck time.Duration, v *Violation) {
	where := fmt.Sprintf("worker %d step #%d", w.n, i)
	if st.Auth != "" {
		if status != http.StatusUnauthorized {
			return 0, violation("unauthorized", "%s with %s answered %d, not 401", st.Op, authText(st.Auth), status)
		}
		return 0, nil
	}
	at := time.Now()
	switch st.Op {
	case opCreate:
		verdict := r.f.classify(st.Body)
		switch {
		case verdict == accept && status != http.StatusCreated:
			return 0, violation("create-accepted", "createPet with a valid body answered %d, not 201: %s", status, r.redact(keep(body)))
		case verdict == reject && status != http.StatusBadRequest:
			return 0, violation("create-rejected", "createPet with an invalid body answered %d, not 400", status)
		case status != http.StatusCreated:
			return 0, nil
		}
		obj, _ := decodeObject(body)
		got, _ := fromObject(obj)
		sent, sentOK := parseSent(st.Body)
		if v := m.created(sent, got, sentOK, at, where); v != nil {
			return 0, v
		}
		w.ids[i] = got.id
	case opList:
		if status != http.StatusOK {
			if (st.Limit == nil || r.f.effectiveLimit(st.Limit) == mustInt(*st.Limit)) && (st.Status == nil || r.f.isStatus(*st.Status)) {
				return 0, violation("list-ok", "listPets with valid parameters answered %d, not 200", status)
			}
			return 0, nil
		}
		var objs []map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		_ = dec.Decode(&objs) // the spec validation checked the shape
		pets := make([]pet, 0, len(objs))
		for _, o := range objs {
			p, _ := fromObject(o)
			pets = append(pets, p)
		}
		if v := m.listed(pets, r.f.effectiveLimit(st.Limit), st.Status, at, where); v != nil {
			return 0, v
		}
		if len(pets) > 0 {
			w.lastList = w.lastList[:0]
			for _, p := range pets {
				w.lastList = append(w.lastList, p.id)
			}
		}
	case opGet:
		id := strings.TrimPrefix(pathOnly(rel), "/pets/")
		if _, err := strconv.ParseInt(id, 10, 64); err != nil || canonicalInt(id) != id {
			if status/100 == 2 {
				return 0, violation("get-id", "getPet %q, which is no int64 id, answered %d", id, status)
			}
			return 0, nil
		}
		switch status {
		case http.StatusOK:
			obj, _ := decodeObject(body)
			got, _ := fromObject(obj)
			if got.id != id {
				return 0, violation("get-id", "getPet %s answered the animal with id %s", id, got.id)
			}
			return 0, m.seen(got, at, where)
		case http.StatusNotFound:
			return m.missing(id, sent)
		default:
			return 0, violation("get-id", "getPet %s answered %d, neither 200 nor 404", id, status)
		}
	}
	return 0, nil
}

func mustInt(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != s {
		return -1 << 63
	}
	return n
}

func authText(a string) string {
	if a == authNone {
		return "no Authorization header"
	}
	return "a wrong bearer token"
}

// redact replaces the key wherever a target echoed it.
func (r *runner) redact(s string) string {
	if len(r.t.APIKey) < 4 {
		return s
	}
	return strings.ReplaceAll(s, r.t.APIKey, KeyPlaceholder)
}

func keep(b []byte) string {
	s := strings.TrimRight(string(b), "\n")
	if len(s) > maxKept {
		return s[:maxKept] + "... (cut)"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func pathOnly(rel string) string {
	p, _, _ := strings.Cut(rel, "?")
	return p
}

// queryEscape and pathEscape keep what the step says readable in URLs and curl lines.
func queryEscape(s string) string {
	return strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", "+", "%2B", " ", "%20").Replace(s)
}

func pathEscape(s string) string {
	return strings.NewReplacer("%", "%25", "/", "%2F", "?", "%3F", "#", "%23", " ", "%20").Replace(s)
}

// curl is a command that repeats the step; the key comes from the environment.
func (r *runner) curl(method, url string, st Step) string {
	var b strings.Builder
	b.WriteString("curl -sS -i " + shellQuote(url))
	switch st.Auth {
	case "":
		b.WriteString(` -H "Authorization: Bearer ` + KeyPlaceholder + `"`)
	case authWrong:
		b.WriteString(" -H " + shellQuote("Authorization: Bearer "+wrongKey))
	}
	if method == http.MethodPost {
		b.WriteString(" -H 'Content-Type: application/json' --data-raw " + shellQuote(st.Body))
		if st.Body == "" {
			b.WriteString(" -X POST")
		}
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

package reference

import (
	"context"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/petstore/petstore/spec"
)

// Chosen answers (Config.Double.Scenarios): a request picks its answer with the Prefer
// header (RFC 7240), with Prism's preference names. code=NNN asks for a status the spec
// documents for the operation; an error status gets an Error record with the code for it,
// and no handler runs (nothing is created). delay=MS waits before answering. Both are
// applied after the key and the request were checked, so a client's own mistakes are
// still answered for what they are.

// MaxPreferDelay is the longest Prefer: delay=MS a request may ask for.
const MaxPreferDelay = 10 * time.Second

// scenarios applies the preferences of a request.
type scenarios struct {
	sleep func(context.Context, time.Duration)
	ew    *errorWriter
}

// preference is what a request's Prefer fields ask for; zero values ask nothing.
type preference struct {
	code  int
	delay time.Duration
}

// parsePrefer reads every Prefer field. Preferences other than code and delay are ignored,
// as RFC 7240 section 2 asks; code and delay with a bad value are refused.
func parsePrefer(fields []string) (preference, error) {
	var p preference
	for _, field := range fields {
		for _, item := range strings.Split(field, ",") {
			item, _, _ = strings.Cut(item, ";") // parameters of a preference
			name, value, _ := strings.Cut(strings.TrimSpace(item), "=")
			value = strings.Trim(strings.TrimSpace(value), `"`)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "code":
				n, err := strconv.Atoi(value)
				if err != nil || n < 100 || n > 599 {
					return p, invalid("Prefer: code=%s: want a status code from 100 to 599", value)
				}
				p.code = n
			case "delay":
				ms, err := strconv.ParseInt(value, 10, 64)
				if err != nil || ms < 0 || ms > MaxPreferDelay.Milliseconds() {
					return p, invalid("Prefer: delay=%s: want milliseconds from 0 to %d", value, MaxPreferDelay.Milliseconds())
				}
				p.delay = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return p, nil
}

// apply returns the handler that answers r: h, or one that writes the chosen Error. w is
// where Preference-Applied goes; delays are waited here.
func (sc *scenarios) apply(w http.ResponseWriter, r *http.Request, op spec.Operation, h http.Handler) (http.Handler, error) {
	fields := r.Header.Values("Prefer")
	if len(fields) == 0 {
		return h, nil
	}
	p, err := parsePrefer(fields)
	if err != nil {
		return nil, err
	}
	if p.code != 0 && !op.HasStatus(p.code) {
		return nil, invalid("Prefer: code=%d: %s does not document that status; it documents %s",
			p.code, op.ID, joinInts(op.Statuses))
	}
	var applied []string
	if p.delay > 0 {
		sc.sleep(r.Context(), p.delay)
		applied = append(applied, "delay="+strconv.FormatInt(p.delay.Milliseconds(), 10))
	}
	if p.code >= 400 {
		chosen := newError(p.code, codeFor(p.code), "%s (the answer the request chose with Prefer: code=%d)",
			http.StatusText(p.code), p.code)
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sc.ew.writeError(w, r, chosen) })
		applied = append(applied, "code="+strconv.Itoa(p.code))
	}
	if p.code > 0 && p.code < 400 {
		// A success or redirect is the operation's own answer: the preference was applied
		// when that is the status it gives (a getPet of an unknown id still gets its 404).
		inner, before := h, applied
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inner.ServeHTTP(&appliedOnStatus{ResponseWriter: w, code: p.code, applied: before}, r)
		})
		return h, nil
	}
	if len(applied) > 0 {
		w.Header().Set("Preference-Applied", strings.Join(applied, ", "))
	}
	return h, nil
}

// appliedOnStatus sets Preference-Applied when the answer's status is written: the
// preferences applied so far, and code=N when the status is the one the request chose.
type appliedOnStatus struct {
	http.ResponseWriter
	code    int
	applied []string
	written bool
}

func (a *appliedOnStatus) WriteHeader(status int) {
	if !a.written {
		a.written = true
		applied := a.applied
		if status == a.code {
			applied = append(applied[:len(applied):len(applied)], "code="+strconv.Itoa(a.code))
		}
		if len(applied) > 0 {
			a.Header().Set("Preference-Applied", strings.Join(applied, ", "))
		}
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *appliedOnStatus) Write(b []byte) (int, error) {
	if !a.written {
		a.WriteHeader(http.StatusOK)
	}
	return a.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (a *appliedOnStatus) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// codeFor returns the Error code of a status the server chooses to answer (Prefer: code=NNN).
func codeFor(status int) string {
	switch status {
	case http.StatusBadRequest:
		return CodeInvalidRequest
	case http.StatusUnauthorized:
		return CodeUnauthorized
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return CodePayloadTooLarge
	case http.StatusUnsupportedMediaType:
		return CodeUnsupportedMediaType
	case http.StatusTooManyRequests:
		return CodeRateLimited
	case http.StatusInsufficientStorage:
		return CodeStoreFull
	case http.StatusServiceUnavailable:
		return CodeUnavailable
	case http.StatusInternalServerError:
		return CodeInternal
	}
	// Any other status a spec documents: its reason phrase in snake case.
	words := strings.FieldsFunc(strings.ToLower(http.StatusText(status)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return "status_" + strconv.Itoa(status)
	}
	return strings.Join(words, "_")
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// preferIgnored is the chooser of a server without scenarios: every answer is its own, and
// the first request that asks for another (Prefer: code= or delay=) gets a line in the log
// saying how to turn scenarios on, so a client developer is not left to wonder.
func preferIgnored(logger *log.Logger) chooser {
	var once sync.Once
	return func(w http.ResponseWriter, r *http.Request, op spec.Operation, h http.Handler) (http.Handler, error) {
		if p := strings.ToLower(strings.Join(r.Header.Values("Prefer"), ",")); logger != nil && (strings.Contains(p, "code=") || strings.Contains(p, "delay=")) {
			once.Do(func() {
				logger.Printf("a request asks for %q in Prefer, which this server ignores: start it with --scenarios (Config.Double.Scenarios) to choose answers", p)
			})
		}
		return h, nil
	}
}

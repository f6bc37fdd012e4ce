package double

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// Chosen answers (Config.Double.Scenarios): a request picks its answer with the Prefer
// header (RFC 7240), with Prism's preference names. code=NNN asks for a status the spec
// documents for the operation, or 429 or 503 (which a gateway may answer before any
// operation, with Retry-After); an error status gets an Error record with the code for it,
// and no handler runs (nothing is created). delay=MS waits before answering. fault=reset
// resets the connection, fault=close closes it without an answer, fault=slow trickles the
// body over the delay (delay=MS, else DefaultSlowBody). example=NAME answers the spec's
// named example of that name. All are applied after the key and the request were checked,
// so a client's own mistakes are still answered for what they are.

// MaxPreferDelay is the longest Prefer: delay=MS a request may ask for.
const MaxPreferDelay = 10 * time.Second

// scenarios applies the preferences of a request.
type scenarios struct {
	sleep func(context.Context, time.Duration)
	ew    *core.ErrorWriter
}

// ChosenRetryAfter is the Retry-After, in seconds, of a 429 or 503 chosen with Prefer: code=.
const ChosenRetryAfter = 1

// DefaultSlowBody is how long Prefer: fault=slow trickles a body without delay=MS.
const DefaultSlowBody = time.Second

// The faults Prefer: fault= may ask for.
const (
	FaultReset = "reset" // the connection is reset (TCP RST), no answer
	FaultClose = "close" // the connection is closed (FIN), no answer
	FaultSlow  = "slow"  // the answer's body comes in pieces, over the delay
)

// preference is what a request's Prefer fields ask for; zero values ask nothing.
type preference struct {
	code    int
	delay   time.Duration
	fault   string
	example string
}

// parsePrefer reads every Prefer field. Preferences other than code, delay, fault and
// example are ignored, as RFC 7240 section 2 asks; those with a bad value are refused.
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
					return p, core.Invalid("Prefer: code=%s: want a status code from 100 to 599", value)
				}
				p.code = n
			case "delay":
				ms, err := strconv.ParseInt(value, 10, 64)
				if err != nil || ms < 0 || ms > MaxPreferDelay.Milliseconds() {
					return p, core.Invalid("Prefer: delay=%s: want milliseconds from 0 to %d", value, MaxPreferDelay.Milliseconds())
				}
				p.delay = time.Duration(ms) * time.Millisecond
			case "fault":
				if value != FaultReset && value != FaultClose && value != FaultSlow {
					return p, core.Invalid("Prefer: fault=%s: want %s, %s or %s", value, FaultReset, FaultClose, FaultSlow)
				}
				p.fault = value
			case "example":
				if value == "" {
					return p, core.Invalid("Prefer: example=: want the name of one of the spec's named examples")
				}
				p.example = value
			}
		}
	}
	return p, nil
}

// apply returns the handler that answers r: h, or one that writes the chosen answer. w is
// where Preference-Applied goes; delays are waited here, and a fault on the connection is
// made here (it does not return).
func (sc *scenarios) apply(w http.ResponseWriter, r *http.Request, op spec.Operation, h core.Handler) (core.Handler, error) {
	fields := r.Header.Values("Prefer")
	if len(fields) == 0 {
		return h, nil
	}
	p, err := parsePrefer(fields)
	if err != nil {
		return nil, err
	}
	if p.code != 0 && !op.HasStatus(p.code) && !gatewayStatus(p.code) {
		return nil, core.Invalid("Prefer: code=%d: %s does not document that status; it documents %s (and 429 or 503 may always be chosen)",
			p.code, op.ID, joinInts(op.Statuses))
	}
	var example *chosenExample
	if p.example != "" {
		if example, err = exampleOf(op, p.example, p.code); err != nil {
			return nil, err
		}
	}
	if p.fault == FaultReset || p.fault == FaultClose {
		breakConnection(w, p.fault == FaultReset) // does not return
	}
	var applied []string
	switch {
	case p.fault == FaultSlow:
		over := p.delay
		if over == 0 {
			over = DefaultSlowBody
		}
		if slow, ok := r.Context().Value(slowKey{}).(*slowBody); ok {
			slow.start(sc.sleep, r.Context(), over)
			applied = append(applied, "fault=slow")
			if p.delay > 0 {
				applied = append(applied, "delay="+strconv.FormatInt(p.delay.Milliseconds(), 10))
			}
		}
	case p.delay > 0:
		sc.sleep(r.Context(), p.delay)
		applied = append(applied, "delay="+strconv.FormatInt(p.delay.Milliseconds(), 10))
	}
	if example != nil {
		h = example.answer
		applied = append(applied, "example="+p.example)
		if p.code != 0 {
			applied = append(applied, "code="+strconv.Itoa(p.code))
		}
	}
	if p.code >= 400 && example == nil {
		chosen := core.NewError(p.code, codeFor(p.code), "%s (the answer the request chose with Prefer: code=%d)",
			http.StatusText(p.code), p.code)
		outside := !op.HasStatus(p.code)
		h = func(rec *core.Recorder, r *http.Request) {
			if gatewayStatus(p.code) {
				rec.Header().Set("Retry-After", strconv.Itoa(ChosenRetryAfter))
			}
			sc.ew.Fail(rec, r, chosen)
			if outside {
				rec.OutsideSpec = true // a gateway's answer, which the spec need not document
			}
		}
		applied = append(applied, "code="+strconv.Itoa(p.code))
	}
	if p.code > 0 && p.code < 400 && example == nil {
		// A success or redirect is the operation's own answer: the preference was applied
		// when that is the status it gives (a getPet of an unknown id still gets its 404).
		inner, before := h, applied
		return func(rec *core.Recorder, r *http.Request) {
			inner(rec, r)
			if rec.Status == 0 {
				return // nothing answered yet: the status is the recorder's own 200
			}
			applied := before
			if rec.Status == p.code {
				applied = append(applied[:len(applied):len(applied)], "code="+strconv.Itoa(p.code))
			}
			if len(applied) > 0 {
				rec.Header().Set("Preference-Applied", strings.Join(applied, ", "))
			}
		}, nil
	}
	if len(applied) > 0 {
		w.Header().Set("Preference-Applied", strings.Join(applied, ", "))
	}
	return h, nil
}

// gatewayStatus says a status may be chosen for any operation: 429 and 503 are what a
// gateway or a loaded service answers before an operation runs (the document does not show
// rate limits, section 8).
func gatewayStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable
}

// codeFor returns the Error code of a status the server chooses to answer (Prefer: code=NNN).
func codeFor(status int) string {
	switch status {
	case http.StatusBadRequest:
		return core.CodeInvalidRequest
	case http.StatusUnauthorized:
		return core.CodeUnauthorized
	case http.StatusNotFound:
		return core.CodeNotFound
	case http.StatusMethodNotAllowed:
		return core.CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return core.CodePayloadTooLarge
	case http.StatusUnsupportedMediaType:
		return core.CodeUnsupportedMediaType
	case http.StatusTooManyRequests:
		return CodeRateLimited
	case http.StatusInsufficientStorage:
		return core.CodeStoreFull
	case http.StatusServiceUnavailable:
		return CodeUnavailable
	case http.StatusInternalServerError:
		return core.CodeInternal
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

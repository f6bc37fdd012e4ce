package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
)

// Servers the interface document allows: every run against them conforms.

const snowflake = int64(1) << 60

var idField = regexp.MustCompile(`"id":(\d+)`)

// bigIDs shifts every id by 2^60 both ways, as a service with snowflake ids looks.
func bigIDs(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if i := strings.LastIndex(r.URL.Path, "/"); i >= 0 {
			if n, err := strconv.ParseInt(r.URL.Path[i+1:], 10, 64); err == nil {
				// Every id the server gives is at least snowflake: a smaller one (+1, say,
				// which the reference reads as 1) names no animal of this server.
				inner := int64(0)
				if n >= snowflake {
					inner = n - snowflake
				}
				r.URL.Path = r.URL.Path[:i+1] + strconv.FormatInt(inner, 10)
				r.URL.RawPath = ""
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := idField.ReplaceAllFunc(rec.Body.Bytes(), func(m []byte) []byte {
			n, _ := strconv.ParseInt(string(idField.FindSubmatch(m)[1]), 10, 64)
			return []byte(`"id":` + strconv.FormatInt(n+snowflake, 10))
		})
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		for _, k := range []string{"Deprecation", "Sunset", "Www-Authenticate"} {
			if v := rec.Header().Get(k); v != "" {
				w.Header().Set(k, v)
			}
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// rateLimited answers every other request 429 with a Retry-After, as a gateway would.
func rateLimited(h http.Handler) http.Handler {
	var mu sync.Mutex
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		limited := n%2 == 0
		mu.Unlock()
		if limited {
			w.Header().Set("Retry-After", "3")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"code":"rate_limited","message":"slow down","status":429}`))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// lagging hides from listings the animals created in the last lag requests, as a store
// whose index refreshes now and then: a listing shows the store as it was a little before,
// never less than that.
func lagging(lag int) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		var mu sync.Mutex
		requests := 0
		createdAt := map[string]int{} // id -> the request that created it
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			requests++
			now := requests
			mu.Unlock()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			switch {
			case r.Method == http.MethodPost && rec.Code == http.StatusCreated:
				var pet map[string]any
				if json.Unmarshal(body, &pet) == nil {
					mu.Lock()
					createdAt[fmt.Sprint(pet["id"])] = now
					mu.Unlock()
				}
			case r.Method == http.MethodGet && rec.Code == http.StatusOK && strings.HasSuffix(r.URL.Path, "/pets"):
				var pets []map[string]any
				if json.Unmarshal(body, &pets) == nil {
					mu.Lock()
					shown := pets[:0]
					for _, p := range pets {
						if at, ok := createdAt[fmt.Sprint(p["id"])]; !ok || now-at > lag {
							shown = append(shown, p)
						}
					}
					mu.Unlock()
					body, _ = json.Marshal(shown)
				}
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
}

func TestAllowedServersConform(t *testing.T) {
	for _, tt := range []struct {
		name string
		wrap func(http.Handler) http.Handler
	}{
		{"ids above 2^53", bigIDs},
		{"429 with Retry-After", rateLimited},
		{"listings lag behind writes", lagging(6)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // whole runs, each against a server of its own
			// Every other request waits 3 s: far more than --max-wait's minute in all, which a
			// run would then stop at; this one waits (in no time) as long as the target asks.
			opts := conformance.Options{Strict: true, MaxWait: 24 * time.Hour}
			var waited time.Duration
			conformance.NoWait(&opts, &waited)
			rep := run(t, serve(t, tt.wrap(newReference(t, beforeSunset, reference.Config{}))), opts)
			assert.Empty(t, notPassed(rep))
			assert.Equal(t, conformance.Conforming, rep.Verdict)
		})
	}
}

// A limit that persists is no verdict: the run stops when its waits add up to --max-wait,
// says the target is unavailable, and keeps what it judged; it does not sleep.
func TestPersistentRateLimitCannotBeJudged(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/pets/abc") {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		ref.ServeHTTP(w, r)
	}))
	opts := conformance.Options{Only: []string{"getPet/non-integer-id"}, Now: beforeSunset}
	var waited time.Duration
	conformance.NoWait(&opts, &waited)
	rep, err := conformance.Run(context.Background(), target, opts)
	require.ErrorIs(t, err, conformance.ErrCannotJudge)
	assert.Equal(t, conformance.CannotJudge, rep.Verdict)
	res, _ := rep.Result("getPet/non-integer-id")
	assert.Equal(t, conformance.Skip, res.Status)
	assert.Contains(t, res.Reason, "unavailable: it answered 503 Service Unavailable")
	assert.LessOrEqual(t, waited, time.Minute, "each wait capped at 5 s, --max-wait in all")
}

// A store that never shows what it stored makes the rules that need animals Error.
func TestInvisibleAnimalsAreAnError(t *testing.T) {
	opts := conformance.Options{Only: []string{"listPets/default-limit"}}
	conformance.NoWait(&opts, nil)
	rep := run(t, serve(t, lagging(1000)(newReference(t, beforeSunset, reference.Config{}))), opts)
	res, _ := rep.Result("listPets/default-limit")
	assert.Equal(t, conformance.Error, res.Status)
	assert.Contains(t, res.Reason, "not visible in the listing after 10s")
}

// A cancelled run (Ctrl-C, SIGTERM) is no verdict: Run says so.
func TestCancelledRunIsAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := conformance.Options{Now: beforeSunset, Progress: func(n, _ int, _ string) {
		if n == 3 {
			cancel()
		}
	}}
	_, err := conformance.Run(ctx, serve(t, newReference(t, beforeSunset, reference.Config{})), opts)
	require.ErrorIs(t, err, conformance.ErrCancelled)
	assert.Equal(t, "run cancelled", err.Error())
}

// A create refused in preparation (a store with unique names, a name limit...) makes the
// rules that needed animals Error with the reason.
func TestRefusedFixtureCreateIsAnError(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"code":"conflict","message":"name taken","status":409}`))
			return
		}
		ref.ServeHTTP(w, r)
	}))
	rep := run(t, target, conformance.Options{Only: []string{"listPets/default-limit"}})
	res, _ := rep.Result("listPets/default-limit")
	assert.Equal(t, conformance.Error, res.Status)
	assert.Contains(t, res.Reason, "want 201 Created, got 409 Conflict")
}

// acceptNonUTF8 takes a body holding bytes that are not UTF-8, as a lenient parser does
// (RFC 8259 9), storing U+FFFD for each.
func acceptNonUTF8(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			b, _ := io.ReadAll(r.Body)
			b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
		h.ServeHTTP(w, r)
	})
}

// noDeprecationHeaders answers without Deprecation and Sunset: the document names neither.
var noDeprecationHeaders = kit.Respond(kit.AnyRequest, func(_ *http.Request, rp *kit.Reply) {
	rp.Header.Del("Deprecation")
	rp.Header.Del("Sunset")
})

// Readings below MUST (READINGS.md): a name that is not UTF-8, accepted, is SHOULD (a
// warning; a failure when strict); no Deprecation or Sunset header is ADVISORY (a warning,
// strict or not). The case is still sent and judged: only its weight changes.
func TestReadingsBelowMust(t *testing.T) {
	for _, tt := range []struct {
		name  string
		wrap  func(http.Handler) http.Handler
		rule  string
		level conformance.Severity
	}{
		{"a name that is not UTF-8 accepted", acceptNonUTF8, "createPet/cases-body", conformance.Should},
		{"no Deprecation or Sunset header", noDeprecationHeaders, "getPet/deprecation-headers-sent", conformance.Advisory},
	} {
		for _, strict := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, strict=%t", tt.name, strict), func(t *testing.T) {
				t.Parallel() // whole runs, each against a server of its own
				opts := conformance.Options{Strict: strict}
				conformance.NoWait(&opts, nil)
				rep := run(t, serve(t, tt.wrap(newReference(t, beforeSunset, reference.Config{}))), opts)
				status, verdict := conformance.Warn, conformance.Conforming
				if strict && tt.level == conformance.Should {
					status, verdict = conformance.Fail, conformance.NotConforming
				}
				res, _ := rep.Result(tt.rule)
				assert.Equal(t, []string{tt.rule}, slices.Collect(maps.Keys(notPassed(rep))), "only the rule of the reading does not pass")
				assert.Equal(t, status, res.Status, res.Reason)
				assert.Equal(t, verdict, rep.Verdict)
				require.NotEmpty(t, res.Failures)
				assert.Equal(t, tt.level, res.Level)
				for _, f := range res.Failures {
					assert.Equal(t, tt.level, f.Level, f.Message)
				}
				require.NotEmpty(t, rep.Causes)
				assert.Equal(t, tt.level, rep.Causes[0].Level)
			})
		}
	}
}

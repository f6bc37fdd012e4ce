package conformance_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// The document's open choices, made the other way round from the reference server. The
// reference ignores unknown properties, refuses empty and control-character names, takes a
// charset parameter, answers 400 to an out-of-range limit and to unknown query parameters
// nothing; each wrapper below decides the opposite. Every run, strict, must conform: the
// generated cases judge none of these choices.

func errorReply(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"code": code, "message": msg, "status": status})
	_, _ = w.Write(b)
}

// authorized reports whether r presents the key in the one form 5.2 fixes: the doubles
// below make their choices only past authentication, as 5.3 requires (a missing or invalid
// key gets 401 whatever else is wrong).
func authorized(r *http.Request) bool {
	v := r.Header.Values("Authorization")
	return len(v) == 1 && v[0] == "Bearer "+testKey
}

// refuseUnknownProperties answers 400 to a body with a property NewPet does not have.
func refuseUnknownProperties(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && authorized(r) {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil {
				for k := range m {
					if k != "name" && k != "categoryId" && k != "status" {
						errorReply(w, http.StatusBadRequest, "invalid_request", "unknown property "+k)
						return
					}
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// refuseMediaParameters answers 415 to a Content-Type with parameters (a charset).
func refuseMediaParameters(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && len(params) > 0 && authorized(r) {
			errorReply(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "no parameters, please")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refuseAtTheHTTPLayer makes the other open choices of the values a front server or an HTTP
// layer answers on its own (docs/anatomy.md): a method it does not know gets 501 whatever the
// key; with a valid key, more than 100 header fields get 431, a bad percent-escape or more than
// 1000 query parameters 400, and an If-Match no animal matches 412, each as an Error record.
func refuseAtTheHTTPLayer(h http.Handler) http.Handler {
	known := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, badQuery := url.ParseQuery(r.URL.RawQuery)
		ifMatch := r.Header.Get("If-Match")
		switch {
		case !slices.Contains(known, r.Method):
			errorReply(w, http.StatusNotImplemented, "not_implemented", "unknown method")
		case !authorized(r):
			h.ServeHTTP(w, r)
		case len(r.Header) > 100:
			errorReply(w, http.StatusRequestHeaderFieldsTooLarge, "too_many_fields", "at most 100 header fields")
		case badQuery != nil, strings.Count(r.URL.RawQuery, "&") >= 1000:
			errorReply(w, http.StatusBadRequest, "bad_query", "the query cannot be read")
		case r.Method == http.MethodGet && ifMatch != "" && ifMatch != "*":
			errorReply(w, http.StatusPreconditionFailed, "precondition_failed", "no animal matches")
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// clampLimit answers an out-of-range or malformed limit with the nearest bound or the
// default, instead of 400.
func clampLimit(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/pets") {
			q := r.URL.Query()
			if vs, ok := q["limit"]; ok {
				n, err := strconv.ParseInt(strings.TrimSpace(vs[0]), 10, 64)
				switch {
				case err != nil:
					q.Del("limit")
				case n < 1:
					q.Set("limit", "1")
				case n > shipped.Limit.Max:
					q.Set("limit", maxLimit)
				default:
					q.Set("limit", strconv.FormatInt(n, 10))
				}
			}
			if vs, ok := q["status"]; ok && len(vs) > 1 {
				q.Set("status", vs[0])
			}
			r = r.Clone(r.Context())
			r.URL.RawQuery = q.Encode()
		}
		h.ServeHTTP(w, r)
	})
}

// anyName accepts every string as a name (empty, blank, control characters, any length):
// the reference stores a stand-in, and the wrapper answers with the name as sent.
func anyName(h http.Handler) http.Handler {
	var mu sync.Mutex
	names := map[string]string{} // stand-in -> name as sent
	n := 0
	restore := func(b []byte) []byte {
		mu.Lock()
		defer mu.Unlock()
		for stand, name := range names {
			q, _ := json.Marshal(name)
			b = bytes.ReplaceAll(b, []byte(`"`+stand+`"`), q)
		}
		return b
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			var m map[string]any
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber() // through float64, categoryId 2^53+1 would come back rounded: the harness says so
			// A body that is not UTF-8 goes through untouched: decoding would repair it.
			if utf8.Valid(b) && dec.Decode(&m) == nil && !dec.More() {
				if name, ok := m["name"].(string); ok {
					mu.Lock()
					n++
					stand := "conformance-stand-in-" + strconv.Itoa(n)
					names[stand] = name
					mu.Unlock()
					m["name"] = stand
					b, _ = json.Marshal(m)
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(restore(rec.Body.Bytes()))
	})
}

// refuseCategory answers 400 to a create whose categoryId refused(value, parse error)
// says no to, as a service that checks its categories (or their range) would.
func refuseCategory(refused func(n int64, err error) bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && authorized(r) {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				var m struct {
					CategoryID json.Number `json:"categoryId"`
				}
				if json.Unmarshal(b, &m) == nil && m.CategoryID != "" && refused(m.CategoryID.Int64()) {
					errorReply(w, http.StatusBadRequest, "unknown_category", "no such category")
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// knownCategories takes the categories 1 to 5 only: the document shows no category records.
var knownCategories = refuseCategory(func(n int64, err error) bool { return err != nil || n < 1 || n > 5 })

// knownCategoriesTable takes the categories 0 and below as "uncategorised" and 1 to 5, and
// refuses larger ones: the reviewer's example of a real table, which must pass.
var knownCategoriesTable = refuseCategory(func(n int64, err error) bool { return err != nil || n > 5 })

func TestOpenChoicesBothWays(t *testing.T) {
	for _, tt := range []struct {
		name string
		wrap func(http.Handler) http.Handler
	}{
		{"the reference's choices", func(h http.Handler) http.Handler { return h }},
		{"unknown properties refused", refuseUnknownProperties},
		{"a charset parameter refused", refuseMediaParameters},
		{"an out-of-range limit clamped", clampLimit},
		{"the HTTP layer's refusals as Error records", refuseAtTheHTTPLayer},
		{"empty, blank, control-character and long names accepted", anyName},
		{"unknown categories refused", knownCategories},
		{"categories up to 5 and 0 and below taken, larger ones refused", knownCategoriesTable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // whole runs, each against a server of its own
			// The random combinations are what this test fuzzes; the key's triples (--fuzz's
			// strength) are TestAuthCombinationsCoverEveryPair's, and every pair stays.
			opts := conformance.Options{Strict: true, Now: beforeSunset, Fuzz: 60, Strength: 2, Seed: 3}
			conformance.NoWait(&opts, nil)
			rep := run(t, serve(t, tt.wrap(newReference(t, beforeSunset, reference.Config{MaxBodyBytes: 4 << 20}))), opts)
			assert.Empty(t, notPassed(rep))
			assert.Equal(t, conformance.Conforming, rep.Verdict)
		})
	}
}

// A service that takes made-up categoryIds but refuses those beyond 2^53 (a validator that
// stops at JavaScript's safe integers) is refusing valid int64 values, not unknown records.
func TestRangeRefusalIsAFault(t *testing.T) {
	safeOnly := refuseCategory(func(n int64, err error) bool { return err == nil && (n > 1<<53 || n < -(1<<53)) })
	opts := conformance.Options{Now: beforeSunset, Only: []string{"createPet/cases-fields"}, Seed: 3}
	rep := run(t, serve(t, safeOnly(newReference(t, beforeSunset, reference.Config{}))), opts)
	res, _ := rep.Result("createPet/cases-fields")
	assert.Equal(t, conformance.Fail, res.Status)
	var refused []string
	for _, f := range res.Failures {
		if f.Message == "a valid int64 is refused while a smaller made-up value of at least 2^31 was accepted" {
			refused = append(refused, f.Case)
			assert.GreaterOrEqual(t, f.Exchange, 0)
			assert.Contains(t, res.Exchanges[f.Exchange].Request.Body, f.Case[len("categoryId = "):strings.Index(f.Case, ",")])
		}
	}
	assert.Len(t, refused, 4, "2^53+1, -2^53-1, 2^63-1 and -2^63: %v", refused)
}

// --max-creates caps what the cases create: the rest are counted as not sent, never sent.
func TestMaxCreates(t *testing.T) {
	opts := conformance.Options{Now: beforeSunset, Seed: 3, MaxCreates: 30}
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), opts)
	assert.Equal(t, conformance.Conforming, rep.Verdict)
	assert.LessOrEqual(t, rep.AnimalsCreated, 30)
	res, _ := rep.Result("createPet/cases-fields")
	assert.Positive(t, res.CasesSkipped)
	assert.Contains(t, res.Reason, "--max-creates")
	assert.Equal(t, 30, rep.MaxCreates)
}

// A failing random combination is shrunk to the variant that fails alone.
func TestFuzzShrinks(t *testing.T) {
	crashOnCharset := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.Header.Get("Content-Type"), "charset") {
				errorReply(w, http.StatusInternalServerError, "internal", "boom")
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	opts := conformance.Options{Now: beforeSunset, Seed: 11, Fuzz: 150, Only: []string{"createPet/cases-fuzz"}}
	rep := run(t, serve(t, crashOnCharset(newReference(t, beforeSunset, reference.Config{}))), opts)
	res, _ := rep.Result("createPet/cases-fuzz")
	require.Equal(t, conformance.Fail, res.Status)
	shrunk := 0
	for _, f := range res.Failures {
		assert.True(t, strings.HasPrefix(f.Case, "Content-Type: application/json; charset=utf-8"), f.Case)
		if strings.Contains(f.Case, "(shrunk from ") {
			shrunk++
		}
	}
	assert.Positive(t, shrunk, "some failing combination had more than the charset in it")
	share := 150 / len(shipped.Ops) // the fuzz budget is shared out over the operations in order
	if slices.IndexFunc(shipped.Ops, func(o spec.Operation) bool { return o.ID == spec.OpCreate }) < 150%len(shipped.Ops) {
		share++
	}
	assert.Equal(t, share, res.Cases)
}

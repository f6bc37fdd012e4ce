package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
)

// seen is what a varied server answered, as its clients saw it.
type seen struct {
	mu                      sync.Mutex
	beyond53, notAscending  bool
	faults, short, requests int
}

// watch passes every answer of h on and notes what the test asserts about the varied
// choices: ids above 2^53, listings whose ids do not ascend, 429 and 503 answers.
func (s *seen) watch(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())

		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests++
		if rec.Code == http.StatusTooManyRequests || rec.Code == http.StatusServiceUnavailable {
			s.faults++
		}
		var pets []struct{ ID json.Number }
		if rec.Code != http.StatusOK || r.URL.Path != "/v1/pets" || json.Unmarshal(rec.Body.Bytes(), &pets) != nil {
			var one struct{ ID json.Number }
			dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
			dec.UseNumber()
			if dec.Decode(&one) == nil && one.ID != "" {
				pets = append(pets[:0], one)
			}
		}
		var prev int64
		for i, p := range pets {
			id, err := strconv.ParseInt(string(p.ID), 10, 64)
			if err != nil {
				continue
			}
			if id > 1<<53 {
				s.beyond53 = true
			}
			if i > 0 && id < prev {
				s.notAscending = true
			}
			prev = id
		}
	})
}

// For seeds 1 to 10, the harness finds a varied reference conforming (exit 0): every
// choice the varied server takes is one the document leaves open. Across the seeds, the
// choices that naive clients get wrong all occur. The run waits out each 429 and 503 at
// once (Options.Wait) and the server's latency jitter is not slept, so the test is fast;
// each seed's choices and requests are the seed's, whatever the machine.
func TestVariedReferenceIsConformingForSeeds1To10(t *testing.T) {
	t.Parallel() // whole runs against servers of their own
	var (
		mu  sync.Mutex
		all seen
	)
	t.Run("seeds", func(t *testing.T) {
		for seed := uint64(1); seed <= 10; seed++ {
			t.Run("seed "+strconv.FormatUint(seed, 10), func(t *testing.T) {
				t.Parallel()
				ref, err := reference.New(reference.Config{
					APIKeys: []string{testKey},
					Now:     func() time.Time { return beforeSunset },
					Double:  double.Double{Vary: seed, Sleep: func(context.Context, time.Duration) {}},
				})
				require.NoError(t, err)
				var s seen
				target := serve(t, s.watch(ref))
				rep, err := conformance.Run(context.Background(), target, conformance.Options{
					// Strength 1: every variant of every family is sent; the auth variants'
					// pairs meet nothing a varied server does differently.
					Now: beforeSunset, Seed: seed, Strength: 1,
					Wait: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
				})
				require.NoError(t, err, double.ChooseVariations(seed).String())
				for _, res := range rep.Results {
					if res.Status == conformance.Fail || res.Status == conformance.Error {
						t.Errorf("%s: %s: %v", res.ID, res.Status, res.Failures)
					}
				}
				assert.True(t, rep.Conforming(), "exit 0 with %s", double.ChooseVariations(seed))
				mu.Lock()
				defer mu.Unlock()
				all.beyond53 = all.beyond53 || s.beyond53
				all.notAscending = all.notAscending || s.notAscending
				all.faults += s.faults
				all.short += int(ref.Varied().Short.Load())
			})
		}
	})
	assert.True(t, all.beyond53, "some seed answers ids above 2^53")
	assert.True(t, all.notAscending, "some seed answers a listing whose ids do not ascend")
	assert.NotZero(t, all.short, "some seed cuts a page below what the store returned")
	assert.NotZero(t, all.faults, "some seed answers 429 or 503 with Retry-After")
}

package conformance_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// notPassed lists the rules of rep that did not pass or skip, with their reasons.
func notPassed(rep *conformance.Report) map[string]string {
	out := map[string]string{}
	for _, r := range rep.Results {
		if r.Status != conformance.Pass && r.Status != conformance.Skip {
			out[r.ID] = string(r.Status) + ": " + r.Reason
		}
	}
	return out
}

func statuses(rep *conformance.Report, want conformance.Status) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Status == want {
			out = append(out, r.ID)
		}
	}
	return out
}

// Every Must and Should rule passes against the reference, before and after getPet's
// removal date (the server and the run share the clock), strict or not.
func TestReferencePassesAll(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	afterSunset := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		now     time.Time
		strict  bool
		skipped []string
	}{
		// Not strict: no run creates 100 animals for a SHOULD rule.
		{"before removal", beforeSunset, false, []string{"listPets/limit-max-full", "getPet/gone-after-sunset"}},
		{"before removal, strict", beforeSunset, true, []string{"getPet/gone-after-sunset"}},
		{"after removal", afterSunset, true, []string{
			"auth/getPet-missing", "auth/getPet-wrong-key", "auth/getPet-not-bearer", "auth/getPet-basic", "auth/getPet-near-key",
			"auth/getPet-empty-token", "auth/getPet-www-authenticate", "auth/getPet-scheme-case", "errors/not-found", "errors/machine-readable-code",
			"getPet/created-returned", "getPet/listed-returned", "getPet/unknown-id", "getPet/non-integer-id",
			"getPet/deprecation-headers", "getPet/deprecation-headers-sent", "getPet/cases-headers", "getPet/cases-path", "getPet/cases-auth",
			"getPet/cases-anatomy"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := run(t, serve(t, newReference(t, tt.now, reference.Config{})), conformance.Options{Now: tt.now, Strict: tt.strict})
			assert.Empty(t, notPassed(rep))
			assert.Equal(t, tt.skipped, statuses(rep, conformance.Skip))
			assert.Equal(t, conformance.Conforming, rep.Verdict)
			all, err := conformance.All(spec.MustLoad())
			require.NoError(t, err)
			assert.Equal(t, len(all), rep.Counts.Total)
		})
	}
}

// A second run reuses the animals the first prepared and creates only what its create
// rules create; a read-only run creates nothing and skips those rules. Against the
// document's spec: with a DELETE (a spec author's), runs remove what they created.
func TestReuseAndReadOnly(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	doc, err := spec.Parse(document.Spec)
	require.NoError(t, err)
	target := serve(t, newReference(t, beforeSunset, reference.Config{Spec: doc}))
	all, err := conformance.All(doc)
	require.NoError(t, err)
	// An empty store: preparation creates what the neediest MUST rules need: default + 1
	// animals of the first status (status-default-limit, which default-limit's need folds
	// into) and two of each other status (status-and-limit).
	prepared := 21 + 2*2

	first := run(t, target, conformance.Options{Spec: doc})
	assert.Zero(t, first.AnimalsFound)
	byRules := first.AnimalsCreated - prepared
	assert.Positive(t, byRules)

	second := run(t, target, conformance.Options{Spec: doc})
	// A listing shows at most the limit's maximum and the interface has no further pages,
	// so that is all a run can find of a bigger store.
	assert.Equal(t, min(first.AnimalsCreated, 100), second.AnimalsFound)
	assert.Equal(t, byRules, second.AnimalsCreated, "the second run creates only what its rules create")
	assert.Empty(t, notPassed(second))

	ro := run(t, target, conformance.Options{Spec: doc, ReadOnly: true})
	assert.Zero(t, ro.AnimalsCreated)
	assert.Empty(t, notPassed(ro))
	for _, r := range all {
		if res, _ := ro.Result(r.ID); r.Creates {
			assert.Equal(t, conformance.Skip, res.Status, r.ID)
			assert.Contains(t, res.Reason, "read-only", r.ID)
		}
	}
}

// Against an empty store, a read-only run skips the rules that need animals and says why.
func TestReadOnlyEmptyStore(t *testing.T) {
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{ReadOnly: true})
	assert.Zero(t, rep.AnimalsCreated)
	res, ok := rep.Result("listPets/default-limit")
	require.True(t, ok)
	assert.Equal(t, conformance.Skip, res.Status)
	assert.Equal(t, "needs 21 animals, the target has 0 and the run is read-only", res.Reason)
	assert.Equal(t, conformance.Conforming, rep.Verdict)
}

func TestOnlySkip(t *testing.T) {
	target := serve(t, newReference(t, beforeSunset, reference.Config{}))
	rep := run(t, target, conformance.Options{Only: []string{"auth/listPets-*", "errors"}, Skip: []string{"*-www-*"}})
	var ids []string
	for _, r := range rep.Results {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"auth/listPets-missing", "auth/listPets-wrong-key", "auth/listPets-not-bearer",
		"auth/listPets-basic", "auth/listPets-near-key", "auth/listPets-empty-token", "auth/listPets-scheme-case", "errors/unauthorized", "errors/bad-request",
		"errors/not-found", "errors/machine-readable-code", "errors/cases-routes"}, ids)
	assert.Zero(t, rep.AnimalsCreated, "no selected rule needs animals, and a conforming target creates none on a bad body")
}

// Rules about an operation marked experimental or beta only warn, labelled with the
// marking, unless the run is strict.
func TestStabilityMarking(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	text := strings.Replace(string(spec.Bytes()), "      operationId: listPets\n",
		"      operationId: listPets\n      x-stability: experimental\n", 1)
	doc, err := spec.Parse([]byte(text))
	require.NoError(t, err)
	target := serve(t, noDefaultLimit(newReference(t, beforeSunset, reference.Config{Spec: doc})))

	rep := run(t, target, conformance.Options{Spec: doc})
	res, ok := rep.Result("listPets/default-limit")
	require.True(t, ok)
	assert.Equal(t, conformance.Warn, res.Status)
	assert.Equal(t, "experimental", res.Stability)
	assert.True(t, strings.HasPrefix(res.Reason, "experimental: "), res.Reason)
	assert.Equal(t, conformance.Conforming, rep.Verdict)

	strict := run(t, target, conformance.Options{Spec: doc, Strict: true})
	res, _ = strict.Result("listPets/default-limit")
	assert.Equal(t, conformance.Fail, res.Status)
	assert.Equal(t, conformance.NotConforming, strict.Verdict)
}

// A hostile target can neither hang the harness nor make it read without bound.
func TestHostileTarget(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	hang := &kit.Hang{}
	hostile := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/pets/abc"):
			hang.Here(r) // never answers; the client gives up at once, as on a timeout
		case r.URL.Query().Get("status") == "conformance-unknown-status":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("[" + strings.Repeat(" ", 9<<20) + "]"))
		default:
			ref.ServeHTTP(w, r)
		}
	})
	target := serve(t, hostile)
	hung := target
	hung.Client = hang.Client(target.Client)
	rep := run(t, hung, conformance.Options{Only: []string{"getPet/non-integer-id"}})
	res, _ := rep.Result("getPet/non-integer-id")
	// No answer is inconclusive, not a failure; the run still does not conform.
	assert.Equal(t, conformance.Error, res.Status)
	assert.Contains(t, res.Reason, "no answer from the target")
	assert.Equal(t, conformance.NotConforming, rep.Verdict)
	require.NotEmpty(t, res.Exchanges)
	assert.Contains(t, res.Exchanges[0].Error, "deadline exceeded")
	rep = run(t, target, conformance.Options{Timeout: time.Minute, Only: []string{"listPets/status-unknown"}})
	big, _ := rep.Result("listPets/status-unknown")
	assert.Equal(t, conformance.Fail, big.Status)
	require.NotEmpty(t, big.Failures)
	assert.Contains(t, big.Failures[0].Message, "response body exceeds")
}

func TestUnreachable(t *testing.T) {
	_, err := conformance.Run(context.Background(), conformance.Target{BaseURL: "http://127.0.0.1:1/v1", APIKey: testKey}, conformance.Options{})
	assert.ErrorIs(t, err, conformance.ErrUnreachable)
	_, err = conformance.Run(context.Background(), conformance.Target{BaseURL: "ftp://127.0.0.1/v1"}, conformance.Options{})
	assert.ErrorContains(t, err, "base URL")
}

func TestRunT(t *testing.T) {
	rep := conformance.RunT(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{Now: beforeSunset})
	assert.Equal(t, conformance.Conforming, rep.Verdict)
}

// A rule about an operation's removal does not apply before the removal date: skipped, it
// is not a MUST rule the run failed to judge. A run whose every rule was skipped judged
// nothing, and the library says so (no verdict, a "run" gate), as the command does.
func TestInapplicableAndNothingJudged(t *testing.T) {
	target := serve(t, newReference(t, beforeSunset, reference.Config{}))
	rep := run(t, target, conformance.Options{Only: []string{"getPet/gone-after-sunset", "errors/not-found"}})
	res, _ := rep.Result("getPet/gone-after-sunset")
	assert.True(t, res.Inapplicable)
	assert.Equal(t, 1, rep.MustTotal)
	assert.Zero(t, rep.MustUnjudged)
	assert.Equal(t, conformance.Conforming, rep.Verdict)

	rep = run(t, target, conformance.Options{Only: []string{"getPet/gone-after-sunset"}})
	assert.Equal(t, conformance.NotRun, rep.Verdict)
	require.Len(t, rep.GateFailures, 1)
	assert.Equal(t, "run", rep.GateFailures[0].Gate)
	assert.Contains(t, rep.GateFailures[0].Message, "no rule could be judged: the 1 selected rule was skipped")
	assert.False(t, rep.Conforming())
}

package explore

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/spec"
)

// Every distinct finding: the run goes on after a finding, counts a cause met again on its
// finding, and shrinks each new one. One worker and a deterministic server make the run the
// same every time.

// withFresh is cfg against servers of wrap, a new one for each run of shrinking and the
// replays, on a store that starts empty.
func withFresh(t *testing.T, wrap func(http.Handler) http.Handler, seed uint64, workers, steps int) Config {
	cfg := config(serve(t, wrap), seed, workers, steps)
	cfg.Fresh = func() (exchange.Target, func(), error) { return serve(t, wrap), func() {}, nil }
	cfg.EmptyStore = true
	return cfg
}

func both(a, b func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler { return a(b(next)) }
}

func ruleList(rep *Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Rule)
	}
	return out
}

// Two faults: both are reported, each shrunk and replayed, each once although both recur;
// the second's replay file passes over the first's cause, and replays to its own finding.
func TestTwoFaultsTwoFindings(t *testing.T) {
	f := facts(t)
	// A filter ignored for one status, and an animal created with another stored with a third.
	wrap := both(filterIgnored(f.Statuses[1]), wrongStatus(f.Statuses[0], f.Statuses[2]))
	cfg := withFresh(t, wrap, 1, 1, 1500)
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{ruleListStatus(f.Statuses[1]).id, ruleCreateValid.id}, ruleList(rep))
	assert.Equal(t, StopSteps, rep.StoppedBy)
	assert.Equal(t, 1500, rep.Steps)
	assert.Equal(t, 3, rep.Phases, "one phase before each finding, one after the last")
	for _, fd := range rep.Findings {
		assert.Greater(t, fd.Seen, int64(1), "%s recurs while exploring", fd.Rule)
		assert.LessOrEqual(t, fd.Shrunk.Len(), 2, "%s: %s", fd.Rule, fd.Original)
		assert.Equal(t, Deterministic, fd.Class, fd.Rule)
		assert.Equal(t, fd.Rule, fd.ShrunkViolation.Rule)
	}
	assert.NotEqual(t, rep.Findings[0].Cause, rep.Findings[1].Cause)

	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	assert.Contains(t, text.String(), "in 3 phases (stopped by steps): 1500 steps")
	assert.Contains(t, text.String(), "\n2 findings: NOT CONFORMING\n")
	assert.Equal(t, 2, strings.Count(text.String(), "\nFINDING "))
	assert.Contains(t, text.String(), "its cause: "+rep.Findings[1].Cause+"\n")

	assert.Empty(t, NewReplayFile(rep, rep.Findings[0]).PassOver)
	path := filepath.Join(t.TempDir(), "second.json")
	require.NoError(t, WriteReplayFile(path, NewReplayFile(rep, rep.Findings[1])))
	rf, err := ReadReplayFile(path)
	require.NoError(t, err)
	assert.Equal(t, []string{rep.Findings[0].Cause}, rf.PassOver)
	rr, err := Replay(context.Background(), ReplayConfig{Target: cfg.Target, Doc: spec.MustLoad(), Times: 2, MaxCreates: 100, Fresh: cfg.Fresh}, rf)
	require.NoError(t, err)
	assert.Equal(t, 2, rr.Failed)
	require.NotNil(t, rr.Violation)
	assert.Equal(t, rep.Findings[1].Rule, rr.Violation.Rule)
	text.Reset()
	require.NoError(t, WriteReplayText(&text, rr))
	assert.Contains(t, text.String(), "\n  passes over the fault of an earlier finding of the run: "+rep.Findings[0].Cause+"\n")
}

// One fault met again and again is one finding, with its count; --max-findings stops the run.
func TestOneFaultOneFinding(t *testing.T) {
	f := facts(t)
	rep, err := Run(context.Background(), withFresh(t, filterIgnored(f.Statuses[1]), 1, 1, 1500))
	require.NoError(t, err)
	require.Equal(t, []string{ruleListStatus(f.Statuses[1]).id}, ruleList(rep))
	assert.Greater(t, rep.Findings[0].Seen, int64(10))
	assert.Equal(t, StopSteps, rep.StoppedBy)
	assert.Equal(t, 1500, rep.Steps)

	cfg := withFresh(t, both(filterIgnored(f.Statuses[1]), wrongStatus(f.Statuses[0], f.Statuses[2])), 1, 1, 1500)
	cfg.MaxFindings = 1
	rep, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Len(t, rep.Findings, 1)
	assert.Equal(t, StopMaxFindings, rep.StoppedBy)
	assert.Less(t, rep.Steps, 1500)
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	assert.Contains(t, text.String(), "(stopped by max findings: 1 distinct findings (--max-findings))")
}

// A server that answers 500 to everything: a finding per operation, then nothing but faults
// already found, and the run stops rather than spend its budget on them.
func TestOnlyKnownFaultsStopTheRun(t *testing.T) {
	broken := func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			kit.Fail(w, http.StatusInternalServerError, "internal", "broken")
		})
	}
	cfg := withFresh(t, broken, 1, 1, 5000)
	cfg.Replays = 1
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{ruleNo5xx.id, ruleNo5xx.id, ruleNo5xx.id}, ruleList(rep), "one per operation")
	assert.Equal(t, StopRecurring, rep.StoppedBy)
	assert.Less(t, rep.Steps, 1000)
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	assert.Contains(t, text.String(), "(stopped by recurring: the last 200 steps met only faults already found)")
}

// nullForEmpty answers an empty listing as null, not [] (only the filtered ones when
// filtered is set).
func nullForEmpty(filtered bool) func(http.Handler) http.Handler {
	return kit.Respond(kit.IsList, func(r *http.Request, rp *kit.Reply) {
		if rp.Status == http.StatusOK && string(bytes.TrimSpace(rp.Body)) == "[]" && (!filtered || r.URL.Query().Has("status")) {
			rp.Body = []byte("null")
		}
	})
}

// On a store that starts empty, the first listing comes before any create: a null for an
// empty listing is the first step's finding, shrunk to that one listing.
func TestNullForAnEmptyListingIsTheFirstStep(t *testing.T) {
	_, fd := onlyFinding(t, withFresh(t, nullForEmpty(false), 1, 4, 400))
	assert.Equal(t, ruleSpec.id, fd.Rule)
	assert.Contains(t, fd.Message, "GET /pets answered 200")
	assert.Equal(t, [2]int{0, 0}, [2]int{fd.Worker, fd.Step})
	assert.Equal(t, Sequence{Workers: [][]Step{{{Op: opList}}}}, fd.Shrunk)
	assert.Equal(t, Deterministic, fd.Class)
}

// While the model knows every animal of a store that started empty, a listing filtered by a
// status none has is asked for: its answer must be empty, and a null for it is found.
func TestEmptyFilteredListingIsAsked(t *testing.T) {
	_, fd := onlyFinding(t, withFresh(t, nullForEmpty(true), 1, 1, 300))
	assert.Equal(t, ruleSpec.id, fd.Rule)
	require.Equal(t, 1, fd.Shrunk.Len())
	st := fd.Shrunk.Workers[0][0]
	assert.Equal(t, opList, st.Op)
	assert.NotNil(t, st.Status)
}

// The generator asks for a status no animal has only when given the model's list of them
// (on a store not known to start empty it is not: TestAbsentStatuses): the first listing
// filtered by a status of the spec asks for it, once, and every other step is the one drawn
// without the list. Whether a listing the generator draws anyway finds a status empty is
// chance, so a run does not tell the two apart.
func TestGeneratorAsksForAnAbsentStatusOnce(t *testing.T) {
	f := facts(t)
	absent := f.Statuses[len(f.Statuses)-1]
	plain, asking := newGenerator(f, operationsOf(f), 1, 0), newGenerator(f, operationsOf(f), 1, 0)
	asking.absent = func() []string { return []string{absent} }
	asked := -1
	for i := range 500 {
		p, a := plain.next(true), asking.next(true)
		if asked < 0 && p.Op == opList && p.Status != nil && slices.Contains(f.Statuses, *p.Status) {
			asked = i
			require.NotNil(t, a.Status)
			assert.Equal(t, absent, *a.Status, "step %d", i)
			a.Status = p.Status
		}
		require.Equal(t, p, a, "step %d", i)
	}
	assert.GreaterOrEqual(t, asked, 0, "no listing filtered by a status in 500 steps")
}

// Asking for the empty listings finds nothing in the reference.
func TestReferenceOnAnEmptyStoreHasNoFindings(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		rep, err := Run(context.Background(), withFresh(t, nil, seed, 4, 1000))
		require.NoError(t, err)
		assert.Empty(t, rep.Findings, "seed %d", seed)
		assert.Equal(t, 1, rep.Phases)
	}
}

// The model knows which statuses no animal has only while it knows every animal.
func TestAbsentStatuses(t *testing.T) {
	f := facts(t)
	m := newModel(f, time.Second)
	assert.Nil(t, m.absent(), "not known to know every animal")
	m.all = true
	assert.Equal(t, f.Statuses, m.absent())
	require.Nil(t, m.created(pet{id: "1", name: "a", category: "1", status: f.Statuses[1], hasStatus: true}, time.Now(), "w0 #0"))
	others := slices.Delete(slices.Clone(f.Statuses), 1, 2)
	assert.Equal(t, others, m.absent())
	_, v := m.seen(pet{id: "2", name: "b", category: "1"}, judgingAt(time.Now()))
	require.Nil(t, v)
	assert.Equal(t, others, m.absent(), "an animal without a status matches no filter")
}

// The cause leaves out what differs from one meeting of a fault to the next, and keeps what
// tells two faults apart.
func TestCauseOf(t *testing.T) {
	list := Step{Op: opList, Limit: ptr("5")}
	v := violation(rulePersist, "animal 7 has name=%q, but had name=%q when worker 1 step #3", "x", "y")
	w := violation(rulePersist, "animal 12 has name=%q, but had name=%q when worker 0 step #40", "p", "q")
	assert.Equal(t, causeOf(v, list, 200), causeOf(w, Step{Op: opList, Auth: authNone}, 200))
	assert.NotEqual(t, causeOf(v, list, 200), causeOf(v, Step{Op: opGet, ID: "7"}, 200))
	assert.NotEqual(t, causeOf(v, list, 200), causeOf(v, list, 0))
	get := Step{Op: opGet, ID: "abc"}
	assert.NotEqual(t, causeOf(violation(ruleGetNotID, "x"), get, 200), causeOf(violation(ruleGetUnknown, "x"), get, 200))
	s1, s2 := violation(ruleSpec, "a"), violation(ruleSpec, "b")
	s1.detail, s2.detail = "property … is missing (#/a)", "property … is missing (#/b)"
	assert.NotEqual(t, causeOf(s1, list, 200), causeOf(s2, list, 200))
	assert.Equal(t, "listPets/status-sold: listPets answered 200", causeOf(violation(ruleListStatus("sold"), "m"), list, 200))
}

package explore

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// With a spec grown by DELETE /pets/{petId}, served by the reference (which serves it by its
// shape), explore sends the DELETE without code of its own for it, only to animals the run
// created (never to the store's first ones), and judges what follows against the model: the
// reference, which removes them, meets no finding; a server that keeps a removed animal
// visible is seqmutants' deleted-visible.
func TestExploreDeletesItsOwnAnimalsInAGrownSpec(t *testing.T) {
	doc := deleteSpec(t).Doc
	h, err := reference.NewServer(reference.Config{Spec: doc, APIKeys: []string{testKey},
		Seed: []reference.NewPet{{Name: "Rex", CategoryID: 1, Status: "available"}, {Name: "Tom", CategoryID: 2}}})
	require.NoError(t, err)
	base, err := spec.BasePath(doc)
	require.NoError(t, err)

	first := httptest.NewRecorder() // the store's first animals
	req := httptest.NewRequest(http.MethodGet, base+"/pets?limit=100", nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	h.ServeHTTP(first, req)
	var seeded []struct{ ID json.Number }
	require.NoError(t, json.Unmarshal(first.Body.Bytes(), &seeded))
	require.NotEmpty(t, seeded)

	var mu sync.Mutex
	removed := map[string]int{} // the ids of the DELETEs answered 204
	rec := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete {
			h.ServeHTTP(w, r)
			return
		}
		rw := httptest.NewRecorder()
		h.ServeHTTP(rw, r)
		mu.Lock()
		if rw.Code == http.StatusNoContent {
			removed[path.Base(r.URL.Path)]++
		}
		mu.Unlock()
		for k, v := range rw.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rw.Code)
		_, _ = w.Write(rw.Body.Bytes())
	})
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	cfg := config(exchange.Target{BaseURL: srv.URL + base, APIKey: testKey, Client: srv.Client()}, 3, 4, 1500)
	cfg.Doc = doc
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	for _, f := range rep.Findings {
		t.Errorf("%s: %s", f.Rule, f.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Greater(t, len(removed), 10, "explore removed animals it created")
	for _, p := range seeded {
		assert.Zero(t, removed[p.ID.String()], "animal %s is the store's, not the run's", p.ID)
	}
	for _, op := range rep.Coverage.Operations {
		if op.Method == http.MethodDelete {
			assert.Positive(t, op.Requests, op.Operation)
		}
	}
}

// A replay file's DELETE step names an animal the run created (a ref), never one by id or
// by listing; against a spec without the DELETE it is no step explore sends.
func TestReplayedDeleteGoesOnlyToOwnAnimals(t *testing.T) {
	grown := deleteSpec(t)
	create := Step{Op: opCreate, Body: `{"name":"a","categoryId":1}`}
	seq := func(del Step) Sequence { return Sequence{Workers: [][]Step{{create, del}}} }
	assert.NoError(t, checkSteps(grown, seq(Step{Op: "deletePet", Ref: ptr(0)})))
	assert.Error(t, checkSteps(grown, seq(Step{Op: "deletePet", ID: "1"})))
	assert.Error(t, checkSteps(grown, seq(Step{Op: "deletePet", Listed: ptr(0)})))
	assert.Error(t, checkSteps(facts(t), seq(Step{Op: "deletePet", Ref: ptr(0)})))
}

// With a spec that removes animals, a 404 for another client's animal is no finding (it may
// have removed it), nor for one of the run's own that a DELETE was sent for (but by that
// DELETE itself); the run's own animal that nothing removed must still be there.
func TestModelOfAStoreThatRemoves(t *testing.T) {
	f := deleteSpec(t)
	m, now := newModel(f, time.Second), time.Now()
	require.True(t, m.removable)
	require.Nil(t, m.created(pet{id: "1", name: "a", category: "1"}, now, "w0 #0"))
	require.Nil(t, m.created(pet{id: "2", name: "b", category: "1"}, now, "w0 #1"))
	_, v := m.seen(pet{id: "3", name: "c", category: "1"}, judgingAt(now))
	require.Nil(t, v)
	m.removed("2", time.Time{}) // a DELETE is sent
	later := now.Add(2 * time.Second)
	for id, want := range map[string]bool{"1": true, "2": false, "3": false} {
		_, why := m.missing(id, later, 0)
		assert.Equal(t, want, why != "", id)
	}
	_, why := m.missing("2", later, 1)
	assert.NotEmpty(t, why, "the DELETE itself answered 404 for an animal nothing else changes")
	m.removed("2", now) // its success
	_, v = m.seen(pet{id: "2", name: "b", category: "1"}, judgingAt(later))
	require.NotNil(t, v)
	assert.Equal(t, ruleDeletedGone.id, v.Rule)
	assert.False(t, newModel(facts(t), time.Second).removable)
}

// deleteSpec is the facts of the spec grown by DELETE /pets/{petId}.
func deleteSpec(t *testing.T) *spec.Facts {
	text, err := grownspec.Text(grownspec.Delete)
	require.NoError(t, err)
	doc, err := spec.Parse(text)
	require.NoError(t, err)
	f, err := factsOf(doc, nil)
	require.NoError(t, err)
	return f
}

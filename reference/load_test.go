package reference

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
)

// loadPet is the animal a writer creates; its name says which, so a reader can check any
// animal it sees against what was sent without sharing state with the writers.
func loadPet(worker, i int) core.NewPet {
	return core.NewPet{Name: fmt.Sprintf("w%d-%d", worker, i), CategoryID: int64(worker*1000 + i), Status: someStatuses[i%4]}
}

// checkLoadPet reports what is wrong with an animal a reader saw, or "".
func checkLoadPet(p core.Pet) string {
	var worker, i int
	if _, err := fmt.Sscanf(p.Name, "w%d-%d", &worker, &i); err != nil {
		return fmt.Sprintf("name %q was never sent", p.Name)
	}
	want := loadPet(worker, i)
	if p.ID < 1 || p.CategoryID != want.CategoryID || p.Status != want.Status {
		return fmt.Sprintf("%+v is not what was sent (%+v)", p, want)
	}
	return ""
}

// Writers create animals while readers list (with and without a filter) and get them: every
// create gets a unique id, none is lost, and a listing never shows an animal that is not
// exactly what a writer sent, nor one twice, nor out of id order.
func TestLoadCreateAndList(t *testing.T) {
	const writers, each, readers = 8, 40, 4
	h := newTestServer(t, Config{})
	var wg, readersWG sync.WaitGroup
	stop := make(chan struct{})
	ids := make([][]int64, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p := loadPet(w, i)
				body, _ := json.Marshal(p)
				rec := serve(h, newRequest(t, "POST", "/v1/pets", strings.NewReader(string(body))))
				var got core.Pet
				if !assert.Equal(t, http.StatusCreated, rec.Code, "body: %s", rec.Body) ||
					!assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got)) {
					return
				}
				assert.Equal(t, core.Pet{ID: got.ID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}, got)
				ids[w] = append(ids[w], got.ID)
			}
		}()
	}
	var listings atomic.Int64
	for r := range readers {
		readersWG.Add(1)
		go func() {
			defer readersWG.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				path := "/v1/pets?" + limitMax
				if s := someStatuses[(r+n)%4]; s != "" {
					path += "&status=" + s
				}
				rec := serve(h, newRequest(t, "GET", path, nil))
				if !assert.Equal(t, http.StatusOK, rec.Code, "body: %s", rec.Body) {
					return
				}
				var list []core.Pet
				if !assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list)) {
					return
				}
				for k, p := range list {
					assert.Empty(t, checkLoadPet(p))
					if k > 0 {
						assert.Less(t, list[k-1].ID, p.ID, "ascending ids, no repeats")
					}
				}
				listings.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	readersWG.Wait()
	assert.Positive(t, listings.Load())

	seen := map[int64]bool{}
	for w := range writers {
		require.Len(t, ids[w], each, "writer %d", w)
		for i, id := range ids[w] {
			require.False(t, seen[id], "id %d given twice", id)
			seen[id] = true
			rec := serve(h, newRequest(t, "GET", fmt.Sprintf("/v1/pets/%d", id), nil))
			var p core.Pet
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p), "body: %s", rec.Body)
			want := loadPet(w, i)
			assert.Equal(t, core.Pet{ID: id, Name: want.Name, CategoryID: want.CategoryID, Status: want.Status}, p)
		}
	}
	assert.Len(t, seen, writers*each)
	rec := serve(h, newRequest(t, "GET", fmt.Sprintf("/v1/pets/%d", writers*each+1), nil))
	assert.Equal(t, http.StatusNotFound, rec.Code, "no animal beyond those created")
}

// At the store cap, concurrent creates are refused with 507 store_full and an Error body,
// and never more than MaxPets animals are stored.
func TestLoadStoreCap(t *testing.T) {
	const max, seed, workers, each = 50, 10, 16, 10
	h := newTestServer(t, Config{Seed: seedOf(seed), MaxPets: max})
	var created atomic.Int64
	var mu sync.Mutex
	var refused []*httptest.ResponseRecorder // checked after the run: require needs the test goroutine
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				body, _ := json.Marshal(loadPet(w, i))
				rec := serve(h, newRequest(t, "POST", "/v1/pets", strings.NewReader(string(body))))
				switch rec.Code {
				case http.StatusCreated:
					created.Add(1)
				case http.StatusInsufficientStorage:
					mu.Lock()
					refused = append(refused, rec)
					mu.Unlock()
				default:
					t.Errorf("status %d: %s", rec.Code, rec.Body)
				}
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, max-seed, created.Load())
	assert.Len(t, refused, workers*each-(max-seed))
	for _, rec := range refused {
		assert.Equal(t, core.CodeStoreFull, errorBody(t, rec).Code)
	}
	for id, want := range map[int]int{max: http.StatusOK, max + 1: http.StatusNotFound} {
		rec := serve(h, newRequest(t, "GET", fmt.Sprintf("/v1/pets/%d", id), nil))
		assert.Equal(t, want, rec.Code, "pet %d", id)
	}
}

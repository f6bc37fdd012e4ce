package double_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/internal/core"
)

// POST /_admin/reset while clients create, read and list: no answer is a 5xx, every listing
// is in id order and honours its filter (never a mix of old and new content half-applied),
// and after the last reset the store is exactly the seed again.
func TestResetUnderLoad(t *testing.T) {
	const admin = "admin-key-for-reset"
	seed := seedOf(30)
	h := newTestServer(t, reference.Config{AdminKey: admin, Seed: seed})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var r *http.Request
				switch i % 3 {
				case 0:
					r = newRequest(t, "POST", "/v1/pets", strings.NewReader(fmt.Sprintf(`{"name":"w%d-%d","categoryId":2,"status":"sold"}`, w, i)))
				case 1:
					r = newRequest(t, "GET", fmt.Sprintf("/v1/pets/%d", 1+i%40), nil)
				default:
					r = newRequest(t, "GET", "/v1/pets?"+limitMax+"&status=sold", nil)
				}
				rec := serve(h, r)
				if !assert.Less(t, rec.Code, 500, "%s %s: %s", r.Method, r.URL, rec.Body) {
					return
				}
				if i%3 == 2 {
					var pets []core.Pet
					if !assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), &pets)) {
						return // assert, not require: this is not the test's goroutine
					}
					for j, p := range pets {
						assert.Equal(t, "sold", p.Status)
						if j > 0 {
							assert.Less(t, pets[j-1].ID, p.ID, "listing out of order")
						}
					}
				}
			}
		}(w)
	}
	reset := func() {
		r := newRequest(t, "POST", "/_admin/reset", nil)
		r.Header.Set("Authorization", "Bearer "+admin)
		require.Equal(t, http.StatusNoContent, serve(h, r).Code)
	}
	for i := 0; i < 300; i++ {
		reset()
	}
	close(stop)
	wg.Wait()
	reset()
	var pets []core.Pet
	require.NoError(t, json.Unmarshal(serve(h, newRequest(t, "GET", "/v1/pets?"+limitMax, nil)).Body.Bytes(), &pets))
	require.Len(t, pets, len(seed))
	for i, p := range pets {
		assert.Equal(t, int64(i+1), p.ID)
		assert.Equal(t, seed[i].Name, p.Name)
		assert.Equal(t, seed[i].Status, p.Status)
	}
}

// Ids are never reused: after a reset the seed has its ids again, and the next animal
// created gets an id above every id assigned before the reset.
func TestResetNeverReusesIDs(t *testing.T) {
	const admin = "admin-key-for-reset"
	h := newTestServer(t, reference.Config{AdminKey: admin, Seed: seedOf(2)})
	create := func() core.Pet {
		w := serve(h, newRequest(t, "POST", "/v1/pets", strings.NewReader(`{"name":"Rex","categoryId":1,"status":"available"}`)))
		require.Equal(t, http.StatusCreated, w.Code, "body: %s", w.Body)
		var p core.Pet
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p))
		assert.Equal(t, fmt.Sprintf("/v1/pets/%d", p.ID), w.Header().Get("Location"))
		return p
	}
	reset := func() {
		r := newRequest(t, "POST", "/_admin/reset", nil)
		r.Header.Set("Authorization", "Bearer "+admin)
		require.Equal(t, http.StatusNoContent, serve(h, r).Code)
	}
	assert.Equal(t, int64(3), create().ID)
	assert.Equal(t, int64(4), create().ID)
	reset()
	assert.Equal(t, http.StatusNotFound, serve(h, newRequest(t, "GET", "/v1/pets/3", nil)).Code, "gone with the reset")
	rex := create()
	assert.Equal(t, int64(5), rex.ID, "above every id assigned before the reset")
	reset()
	reset()
	assert.Equal(t, int64(6), create().ID)
	got := pets(t, serve(h, newRequest(t, "GET", "/v1/pets", nil)))
	ids := make([]int64, len(got))
	for i, p := range got {
		ids[i] = p.ID
	}
	assert.Equal(t, []int64{1, 2, 6}, ids, "the seed keeps its ids; listing in id order")
	w := serve(h, newRequest(t, "GET", "/v1/pets/6", nil))
	assert.Equal(t, http.StatusOK, w.Code)
	for _, id := range []string{"0", "3", "5", "7"} {
		assert.Equal(t, http.StatusNotFound, serve(h, newRequest(t, "GET", "/v1/pets/"+id, nil)).Code, id)
	}
}

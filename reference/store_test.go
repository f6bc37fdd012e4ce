package reference

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Many parallel creates: every one succeeds, ids are unique and dense, none is lost.
func TestConcurrentCreates(t *testing.T) {
	const workers, each = 16, 25
	h := newTestServer(t, Config{Seed: seedOf(5)})
	ids := make(chan int64, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				body := fmt.Sprintf(`{"name":"w%d-%d","categoryId":%d,"status":"sold"}`, w, i, w)
				rec := serve(h, newRequest(t, "POST", "/v1/pets", strings.NewReader(body)))
				if !assert.Equal(t, http.StatusCreated, rec.Code, "body: %s", rec.Body) {
					return
				}
				var p Pet
				if assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p)) {
					ids <- p.ID
				}
				// Reads run alongside the writes.
				serve(h, newRequest(t, "GET", "/v1/pets?status=sold&limit=100", nil))
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		assert.False(t, seen[id], "id %d assigned twice", id)
		seen[id] = true
	}
	require.Len(t, seen, workers*each)
	for id := int64(6); id <= 5+workers*each; id++ {
		assert.True(t, seen[id], "id %d missing", id)
	}
}

// benchServers caches the servers by size so that building 1,000,000 animals happens once
// per run, outside the timed part, and only when benchmarks run.
var benchServers = struct {
	sync.Mutex
	m map[int]http.Handler
}{m: map[int]http.Handler{}}

func benchServer(b *testing.B, n int) http.Handler {
	benchServers.Lock()
	defer benchServers.Unlock()
	if h, ok := benchServers.m[n]; ok {
		return h
	}
	h := newTestServer(b, Config{Seed: seedOf(n), MaxPets: n + 1})
	benchServers.m[n] = h
	return h
}

// BenchmarkList shows that a list with limit=20 costs the same on 100 animals as on
// 1,000,000, with and without a status filter (the store keeps an index per status).
func BenchmarkList(b *testing.B) {
	for _, query := range []string{"limit=20", "limit=20&status=sold"} {
		for _, n := range []int{100, 1_000_000} {
			b.Run(fmt.Sprintf("%s/animals=%d", query, n), func(b *testing.B) {
				h := benchServer(b, n)
				r := newRequest(b, "GET", "/v1/pets?"+query, nil)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					w := serve(h, r.Clone(r.Context()))
					if w.Code != http.StatusOK {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}

// BenchmarkServe compares each operation with and without validation (the later target is
// at least 70% of the unvalidated throughput).
func BenchmarkServe(b *testing.B) {
	for _, mode := range []struct {
		name string
		off  bool
	}{{"validated", false}, {"no-validation", true}} {
		for _, op := range []struct{ name, method, path, body string }{
			{"listPets", "GET", "/v1/pets", ""},
			{"createPet", "POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"sold"}`},
			{"getPet", "GET", "/v1/pets/7", ""},
		} {
			b.Run(mode.name+"/"+op.name, func(b *testing.B) {
				h := newTestServer(b, Config{Seed: seedOf(100), NoValidation: mode.off, MaxPets: 1 << 30})
				b.ReportAllocs()
				for b.Loop() {
					w := serve(h, newRequest(b, op.method, op.path, strings.NewReader(op.body)))
					if w.Code >= 300 {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}

// A name of printable ASCII is stored as it is between quotes, any other through
// json.Marshal: either way the encoding is json.Marshal's, for every ASCII character.
func TestRecordEncodesNamesAsEncodingJSON(t *testing.T) {
	s := newStore([]string{"sold"}, 1000)
	for c := range 128 {
		name := "a" + string(rune(c)) + "b"
		got, id, err := s.add(nil, NewPet{Name: name, CategoryID: 1})
		require.NoError(t, err)
		want, err := json.Marshal(Pet{ID: id, Name: name, CategoryID: 1})
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "character %#x", c)
	}
}

// A full page is served from the page cache: whatever the adds and resets, every listing is
// json.Marshal of the animals a plain list holds, before and after the page is cached, and
// with readers and writers running at once.
func TestPageCacheListsWhatIsStored(t *testing.T) {
	statuses := []string{"available", "pending", "sold"}
	s := newStore(statuses, 10_000)
	var model []Pet // what the store holds, in id order
	mu := sync.Mutex{}
	check := func(limit int, status string) {
		mu.Lock()
		want := []Pet{}
		for _, p := range model {
			if len(want) < limit && (status == "" || p.Status == status) {
				want = append(want, p)
			}
		}
		mu.Unlock()
		enc, err := json.Marshal(want)
		require.NoError(t, err)
		for range 2 { // the second may come from the cache
			require.Equal(t, string(enc), string(s.appendList(nil, limit, status)), "limit %d, status %q", limit, status)
		}
	}
	add := func(i int) {
		p := NewPet{Name: fmt.Sprintf("p%d", i), CategoryID: int64(i), Status: statuses[i%len(statuses)]}
		if i%7 == 0 {
			p.Status = "" // an animal without a status is listed only without a filter
		}
		mu.Lock()
		defer mu.Unlock()
		_, id, err := s.add(nil, p)
		require.NoError(t, err)
		model = append(model, Pet{ID: id, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status})
	}
	for round := range 3 {
		for i := range 40 {
			add(i)
			for _, limit := range []int{1, 3, 10, 20} {
				for _, status := range append([]string{""}, statuses...) {
					check(limit, status)
				}
			}
		}
		// A reset replaces the content, and the pages cached from it go too.
		seed := []NewPet{{Name: "seed", CategoryID: int64(round), Status: "sold"}}
		require.NoError(t, s.reset(seed))
		mu.Lock()
		model = []Pet{{ID: 1, Name: "seed", CategoryID: int64(round), Status: "sold"}}
		mu.Unlock()
		check(1, "sold")
		check(1, "")
		check(3, "")
	}
	// Writers and readers at once (under -race): a full page read meanwhile is still exact.
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if w == 0 {
					add(1000 + i)
				} else {
					got := s.appendList(nil, 5, "sold")
					var pets []Pet
					require.NoError(t, json.Unmarshal(got, &pets))
					require.LessOrEqual(t, len(pets), 5)
					for j := 1; j < len(pets); j++ {
						require.Less(t, pets[j-1].ID, pets[j].ID)
					}
				}
			}
		})
	}
	wg.Wait()
	check(5, "sold")
	check(40, "")
}

// The cache holds at most pageCacheBytes: past it, pages are encoded each time, and correct.
func TestPageCacheIsBounded(t *testing.T) {
	s := newStore([]string{"sold"}, 10_000)
	name := strings.Repeat("n", 60_000)
	for range 80 {
		_, _, err := s.add(nil, NewPet{Name: name, CategoryID: 1, Status: "sold"})
		require.NoError(t, err)
	}
	for _, limit := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 80} { // 1 to 11 fill it
		page := s.appendList(nil, limit, "")
		require.Equal(t, limit, strings.Count(string(page), `"id":`))
	}
	assert.LessOrEqual(t, s.c.pages.bytes.Load(), int64(pageCacheBytes))
	assert.Greater(t, s.c.pages.bytes.Load(), int64(pageCacheBytes/2), "the cache was used up to its bound")
	_, cached := s.c.pages.get(pageKey{-1, 80})
	assert.False(t, cached, "the page of 80 animals (4.8 MB) is above the bound")
}

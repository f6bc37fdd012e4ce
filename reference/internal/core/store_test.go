package core

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A name of printable ASCII is stored as it is between quotes, any other through
// json.Marshal: either way the encoding is json.Marshal's, for every ASCII character.
func TestRecordEncodesNamesAsEncodingJSON(t *testing.T) {
	s := NewStore([]string{"sold"}, 1000)
	for c := range 128 {
		name := "a" + string(rune(c)) + "b"
		got, id, err := s.Add(nil, NewPet{Name: name, CategoryID: 1})
		require.NoError(t, err)
		want, err := json.Marshal(Pet{ID: id, Name: name, CategoryID: 1})
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "character %#x", c)
	}
}

// storeModel is what a store should hold, kept plainly: the animals in id order.
type storeModel struct {
	mu     sync.Mutex
	pets   []Pet
	seed   []NewPet
	nextID int64 // the id the next add gets
}

// page is json.Marshal of the first limit animals with the status ("" for any).
func (m *storeModel) page(t *testing.T, limit int, status string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	want := []Pet{}
	for _, p := range m.pets {
		if len(want) < limit && (status == "" || p.Status == status) {
			want = append(want, p)
		}
	}
	enc, err := json.Marshal(want)
	require.NoError(t, err)
	return string(enc)
}

func (m *storeModel) find(id int64) int {
	for i, p := range m.pets {
		if p.ID == id {
			return i
		}
	}
	return -1
}

func (m *storeModel) restore() {
	m.pets = m.pets[:0]
	for i, p := range m.seed {
		m.pets = append(m.pets, Pet{ID: int64(i) + 1, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status})
	}
	m.nextID = max(m.nextID, int64(len(m.seed))+1)
}

// A store driven by adds, removes, replaces, resets and restores lists what a plain model
// of it holds, in id order and without the removed animals, before and after each page is
// cached, and finds exactly the animals the model holds; so it does with writers and readers
// running at once (under -race). The operations are drawn from a fixed seed.
func TestStoreListsWhatAModelHolds(t *testing.T) {
	statuses := []string{"available", "pending", "sold"}
	s := NewStore(statuses, 10_000)
	m := &storeModel{nextID: 1}
	rnd, rmu := rand.New(rand.NewPCG(28, 24)), sync.Mutex{} // the writers below share it
	intN := func(n int) int { rmu.Lock(); defer rmu.Unlock(); return rnd.IntN(n) }
	newPet := func() NewPet {
		// Names of 1 to 40 bytes, so that a replace sometimes fits in the old record and
		// sometimes not; some need escaping; an animal without a status is listed only
		// without a filter.
		p := NewPet{Name: strings.Repeat("n", 1+intN(40)), CategoryID: int64(intN(9)) - 2}
		if intN(5) == 0 {
			p.Name += "<&é"
		}
		if k := intN(len(statuses) + 1); k < len(statuses) {
			p.Status = statuses[k]
		}
		return p
	}
	pet := func(id int64, p NewPet) Pet {
		return Pet{ID: id, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
	}
	encoding := func(p Pet) string {
		enc, err := json.Marshal(p)
		require.NoError(t, err)
		return string(enc)
	}
	// someID is an id the model holds, most of the time, or one it does not.
	someID := func() int64 {
		m.mu.Lock()
		defer m.mu.Unlock()
		if len(m.pets) == 0 || intN(6) == 0 {
			return int64(intN(int(m.nextID) + 2))
		}
		return m.pets[intN(len(m.pets))].ID
	}
	add := func() {
		p := newPet()
		m.mu.Lock()
		defer m.mu.Unlock()
		got, id, err := s.Add(nil, p)
		require.NoError(t, err)
		require.Equal(t, m.nextID, id, "ids are assigned in order and never reused")
		require.Equal(t, encoding(pet(id, p)), string(got))
		m.pets = append(m.pets, pet(id, p))
		m.nextID++
	}
	remove := func(id int64) {
		m.mu.Lock()
		defer m.mu.Unlock()
		i := m.find(id)
		require.Equal(t, i >= 0, s.remove(id), "remove(%d)", id)
		if i >= 0 {
			m.pets = slices.Delete(m.pets, i, i+1)
		}
	}
	replace := func(id int64, p NewPet) {
		m.mu.Lock()
		defer m.mu.Unlock()
		i := m.find(id)
		got, ok, err := s.replace([]byte("x"), id, p)
		require.NoError(t, err)
		require.Equal(t, i >= 0, ok, "replace(%d)", id)
		if i >= 0 {
			require.Equal(t, "x"+encoding(pet(id, p)), string(got))
			m.pets[i] = pet(id, p)
		} else {
			require.Equal(t, "x", string(got), "nothing is appended when there is no animal")
		}
	}
	check := func() {
		for _, limit := range []int{1, 3, 10, 50} {
			for _, status := range append([]string{""}, statuses...) {
				want := m.page(t, limit, status)
				for range 2 { // the second may come from the cache
					require.Equal(t, want, string(s.AppendList(nil, limit, status)), "limit %d, status %q", limit, status)
				}
			}
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		held := map[int64]bool{}
		for _, p := range m.pets {
			held[p.ID] = true
			got, ok := s.AppendPet(nil, p.ID)
			require.True(t, ok, "id %d", p.ID)
			require.Equal(t, encoding(p), string(got))
		}
		for id := int64(-1); id <= m.nextID+1; id++ {
			if !held[id] {
				_, ok := s.AppendPet(nil, id)
				require.False(t, ok, "id %d is not held", id)
			}
		}
	}
	for round := range 6 {
		switch round % 3 {
		case 0: // a new seed
			m.seed = m.seed[:0]
			for range intN(30) {
				m.seed = append(m.seed, newPet())
			}
			require.NoError(t, s.Reset(m.seed))
			m.restore()
		default: // back to the seed, whatever replaced or removed its animals
			s.Restore()
			m.restore()
		}
		check()
		for range 150 {
			switch k := intN(10); {
			case k < 5:
				add()
			case k < 7:
				remove(someID())
			default:
				replace(someID(), newPet())
			}
			check()
		}
	}
	// Writers and readers at once: a page read meanwhile is in id order, of the status asked
	// for, and no longer than asked; afterwards the store is the model again.
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range 60 {
				switch w {
				case 0:
					add()
				case 1:
					remove(someID())
				case 2:
					replace(someID(), newPet())
				default:
					got := s.AppendList(nil, 5, "sold")
					var pets []Pet
					require.NoError(t, json.Unmarshal(got, &pets))
					require.LessOrEqual(t, len(pets), 5)
					for j, p := range pets {
						require.Equal(t, "sold", p.Status)
						if j > 0 {
							require.Less(t, pets[j-1].ID, p.ID)
						}
					}
				}
			}
		})
	}
	wg.Wait()
	check()
}

// The sets of positions find the next member as a plain scan does, across the summary's
// words (4096 positions each), whatever was set and cleared.
func TestBitsetNext(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var b bitset
	in := map[int]bool{}
	const size = 3 * 4096 * 64 / 10
	for range 400 {
		i := rnd.IntN(size)
		if rnd.IntN(3) == 0 {
			b.clear(i)
			delete(in, i)
		} else {
			b.set(i)
			in[i] = true
		}
	}
	require.Equal(t, len(in), b.n)
	for i := range size + 70 {
		want := -1
		for j := i; j < size; j++ {
			if in[j] {
				want = j
				break
			}
		}
		require.Equal(t, want, b.next(i), "next(%d)", i)
		require.Equal(t, in[i], b.has(i))
	}
}

// A replace that check refuses, or of an animal that is not there, changes nothing.
func TestReplaceRefused(t *testing.T) {
	s := NewStore([]string{"sold"}, 10)
	require.NoError(t, s.Reset([]NewPet{{Name: "Rex", CategoryID: 1, Status: "sold"}}))
	before := string(s.AppendList(nil, 10, ""))
	s.Check = func(enc []byte) error {
		if strings.Contains(string(enc), "Tom") {
			return errors.New("no Tom")
		}
		return nil
	}
	got, ok, err := s.replace([]byte("x"), 1, NewPet{Name: "Tom", CategoryID: 2})
	assert.EqualError(t, err, "no Tom")
	assert.True(t, ok, "there is an animal 1")
	assert.Equal(t, "x", string(got))
	_, ok, err = s.replace(nil, 2, NewPet{Name: "Max", CategoryID: 2})
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, before, string(s.AppendList(nil, 10, "")))
	assert.False(t, s.remove(2))
	assert.True(t, s.remove(1))
	assert.False(t, s.remove(1), "removed already")
}

// The cache holds at most pageCacheBytes: past it, pages are encoded each time, and correct.
func TestPageCacheIsBounded(t *testing.T) {
	s := NewStore([]string{"sold"}, 10_000)
	name := strings.Repeat("n", 60_000)
	for range 80 {
		_, _, err := s.Add(nil, NewPet{Name: name, CategoryID: 1, Status: "sold"})
		require.NoError(t, err)
	}
	for _, limit := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 80} { // 1 to 11 fill it
		page := s.AppendList(nil, limit, "")
		require.Equal(t, limit, strings.Count(string(page), `"id":`))
	}
	assert.LessOrEqual(t, s.c.pages.bytes.Load(), int64(pageCacheBytes))
	assert.Greater(t, s.c.pages.bytes.Load(), int64(pageCacheBytes/2), "the cache was used up to its bound")
	_, cached := s.c.pages.get(pageKey{-1, 80})
	assert.False(t, cached, "the page of 80 animals (4.8 MB) is above the bound")
}

// The store's encoding is byte for byte encoding/json's, for one animal and for a list.
func TestStoredEncodingIsEncodingJSON(t *testing.T) {
	names := []string{"Rex", `say "hi"\`, "<b>&amp;</b>", "é日本🐕", "line\u2028sep\u2029", "tab\there", "\ufffd"}
	s := NewStore([]string{"available", "pending", "sold"}, 100)
	var want []Pet
	for i, name := range names {
		p := NewPet{Name: name, CategoryID: int64(i*1_000_003) - 3, Status: []string{"", "available", "pending", "sold"}[i%4]}
		got, id, err := s.Add(nil, p)
		require.NoError(t, err)
		pet := Pet{ID: id, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
		enc, err := json.Marshal(pet)
		require.NoError(t, err)
		assert.Equal(t, string(enc), string(got))
		again, ok := s.AppendPet(nil, id)
		require.True(t, ok)
		assert.Equal(t, string(enc), string(again))
		want = append(want, pet)
	}
	enc, err := json.Marshal(want)
	require.NoError(t, err)
	assert.Equal(t, string(enc), string(s.AppendList(nil, 100, "")))
	assert.Equal(t, "[]", string(s.AppendList(nil, 100, "lost")))
	_, ok := s.AppendPet(nil, int64(len(names)+1))
	assert.False(t, ok)
}

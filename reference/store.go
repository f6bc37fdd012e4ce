package reference

import (
	"sync"
)

// record is one animal as kept in memory. The id is implicit (index+1) and the status is an
// index into store.statuses (0 = none), which keeps an animal to a few dozen bytes plus its
// name.
type record struct {
	name     string
	category int64
	status   uint8
}

// store is the in-memory catalogue, safe for concurrent use. Ids are assigned from 1 upwards
// and never reused; listing is in insertion (= id) order. Each status has an index of ids, so a
// list with a limit costs O(limit) with or without a status filter.
type store struct {
	mu       sync.RWMutex
	pets     []record  // pets[id-1]
	byStatus [][]int32 // byStatus[s] lists the indexes into pets having status s, ascending
	statuses []string  // statuses[0] is "" (no status), then the spec's values
	max      int
}

func newStore(statusValues []string, max int) *store {
	s := &store{statuses: append([]string{""}, statusValues...), max: max}
	s.byStatus = make([][]int32, len(s.statuses))
	return s
}

// statusIndex returns the index of a status value, or false when the spec does not define it.
func (s *store) statusIndex(v string) (uint8, bool) {
	for i, st := range s.statuses {
		if st == v {
			return uint8(i), true
		}
	}
	return 0, false
}

// add stores p, whose status must be valid, and returns it with its id.
func (s *store) add(p NewPet) (Pet, error) {
	st, _ := s.statusIndex(p.Status)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pets) >= s.max {
		return Pet{}, errStoreFull
	}
	id := s.addLocked(p.Name, p.CategoryID, st)
	return Pet{ID: id, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}, nil
}

func (s *store) addLocked(name string, category int64, st uint8) int64 {
	i := len(s.pets)
	s.pets = append(s.pets, record{name: name, category: category, status: st})
	s.byStatus[st] = append(s.byStatus[st], int32(i))
	return int64(i) + 1
}

// get returns the animal with the given id.
func (s *store) get(id int64) (Pet, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if id < 1 || id > int64(len(s.pets)) {
		return Pet{}, false
	}
	return s.pet(int32(id - 1)), true
}

// list returns the first limit animals in id order; status "" means every animal.
func (s *store) list(limit int, status string) []Pet {
	out := make([]Pet, 0, limit)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if status == "" {
		for i := 0; i < limit && i < len(s.pets); i++ {
			out = append(out, s.pet(int32(i)))
		}
		return out
	}
	st, ok := s.statusIndex(status)
	if !ok || st == 0 {
		return out
	}
	idx := s.byStatus[st]
	for i := 0; i < limit && i < len(idx); i++ {
		out = append(out, s.pet(idx[i]))
	}
	return out
}

func (s *store) pet(i int32) Pet {
	r := s.pets[i]
	return Pet{ID: int64(i) + 1, Name: r.name, CategoryID: r.category, Status: s.statuses[r.status]}
}

// len returns the number of animals.
func (s *store) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.pets)
}

// reset replaces the content with seed, whose entries must be valid, in one step: a
// concurrent reader sees the old content or the new one, never a mix.
func (s *store) reset(seed []NewPet) error {
	if len(seed) > s.max {
		return errStoreFull
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pets = make([]record, 0, len(seed))
	for i := range s.byStatus {
		s.byStatus[i] = nil
	}
	for _, p := range seed {
		st, _ := s.statusIndex(p.Status)
		s.addLocked(p.Name, p.CategoryID, st)
	}
	return nil
}

package reference

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
)

// The store grows in fixed-size blocks: appending never copies what is stored, so filling it
// leaves no garbage behind and the memory it holds follows its content (a doubling slice
// holds up to twice its content, plus the old copies until the GC returns them).
const (
	indexBlock = 1 << 12  // entries per block of an index
	arenaBlock = 64 << 10 // bytes per block of records
)

// blocks is an append-only list kept in blocks of indexBlock entries.
type blocks[T any] struct {
	b [][]T
	n int
}

func (l *blocks[T]) add(v T) {
	if l.n%indexBlock == 0 {
		l.b = append(l.b, make([]T, 0, indexBlock))
	}
	last := len(l.b) - 1
	l.b[last] = append(l.b[last], v)
	l.n++
}

func (l *blocks[T]) at(i int) T { return l.b[i/indexBlock][i%indexBlock] }

// content is what reset replaces in one step. An animal is a record in the arena: its
// status index (1 byte, 0 = none), its category (varint), and its name already encoded as a
// JSON string (uvarint length, bytes). Its id follows from its position (see id). That is
// about 15 bytes plus the name, and 8 bytes of index (4 more in the index of its status).
type content struct {
	arena    [][]byte       // records, in blocks of at least arenaBlock bytes
	pets     blocks[uint64] // by position: block<<32 | offset of the record in arena
	byStatus []blocks[int32]
	// The seed has ids 1..seeded; the animals created since the last reset follow from
	// firstID, which is above every id assigned before, so that no id is ever reused.
	seeded  int
	firstID int64
	epoch   uint64 // counts resets, so that add notices one between its two locks
	pages   *pageCache
}

// pageCacheBytes bounds the encoded pages a content keeps (see pageCache).
const pageCacheBytes = 4 << 20

// pageCache keeps the encoding of full pages. Animals are only ever added, in id order, so
// once the store (or one status) holds at least limit animals, its page of that limit is the
// same bytes until a reset, which replaces the content and its cache with it. Encoding 100
// animals was 8% of the server's CPU under GET /v1/pets?status=sold&limit=100 (issue 14).
type pageCache struct {
	m     sync.Map // pageKey → []byte, the JSON array
	bytes atomic.Int64
}

// pageKey is a page: a status index, or -1 for every animal, and a limit.
type pageKey struct {
	status int16
	limit  int32
}

func (p *pageCache) get(k pageKey) ([]byte, bool) {
	v, ok := p.m.Load(k)
	if !ok {
		return nil, false
	}
	return v.([]byte), true
}

// put keeps a copy of page, unless the cache is full.
func (p *pageCache) put(k pageKey, page []byte) {
	if p.bytes.Load()+int64(len(page)) > pageCacheBytes {
		return
	}
	if _, loaded := p.m.LoadOrStore(k, append([]byte(nil), page...)); !loaded {
		p.bytes.Add(int64(len(page)))
	}
}

// id returns the id of the animal at position i (or of the next one, at i = pets.n).
func (c *content) id(i int) int64 {
	if i < c.seeded {
		return int64(i) + 1
	}
	return c.firstID + int64(i-c.seeded)
}

// position returns the position of the animal with the given id, if there is one.
func (c *content) position(id int64) (int, bool) {
	switch {
	case id >= 1 && id <= int64(c.seeded):
		return int(id - 1), true
	case id >= c.firstID && id-c.firstID < int64(c.pets.n-c.seeded):
		return c.seeded + int(id-c.firstID), true
	}
	return 0, false
}

// store is the in-memory catalogue, safe for concurrent use. Ids are assigned from 1 upwards
// and never reused, not even after a reset; listing is in insertion (= id) order. Each status has an index of
// positions, so a list with a limit costs O(limit) with or without a status filter.
//
// Animals are immutable, and the store serves them as JSON, encoded by appendPetJSON: the
// same bytes as json.Marshal(Pet). check, when set, validates that encoding once, before an
// animal is stored; the encoding is a function of the record alone, so every later encoding
// of that animal is the validated one.
type store struct {
	mu       sync.RWMutex
	c        content
	statuses []string // statuses[0] is "" (no status), then the spec's values
	quoted   []string // statuses as JSON strings
	max      int
	check    func(petJSON []byte) error // nil: no validation
}

func newStore(statusValues []string, max int) *store {
	s := &store{statuses: append([]string{""}, statusValues...), max: max}
	for _, st := range s.statuses {
		q, _ := json.Marshal(st) // a string always marshals
		s.quoted = append(s.quoted, string(q))
	}
	s.c = s.empty()
	return s
}

func (s *store) empty() content {
	return content{byStatus: make([]blocks[int32], len(s.statuses)), firstID: 1, pages: &pageCache{}}
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

// record appends the record of p, whose status must be valid, to dst.
func (s *store) record(dst []byte, p NewPet) []byte {
	st, _ := s.statusIndex(p.Status)
	dst = append(dst, st)
	dst = binary.AppendVarint(dst, p.CategoryID)
	if plainJSONString(p.Name) {
		dst = binary.AppendUvarint(dst, uint64(len(p.Name)+2))
		dst = append(dst, '"')
		dst = append(dst, p.Name...)
		return append(dst, '"')
	}
	name, _ := json.Marshal(p.Name) // a string always marshals
	dst = binary.AppendUvarint(dst, uint64(len(name)))
	return append(dst, name...)
}

// plainJSONString reports whether json.Marshal writes s as it is between quotes: printable
// ASCII without the characters it escapes (", \, and <, >, & for HTML).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// add stores p, whose status must be valid, and appends its JSON encoding to dst. It fails
// when the store is full or when check refuses the encoding (nothing is stored then).
//
// The check runs outside the lock (a few microseconds that would stall every reader and
// writer), on the encoding with the next id; if another animal took that id meanwhile, the
// encoding is made and checked again with the id after it.
func (s *store) add(dst []byte, p NewPet) ([]byte, int64, error) {
	var small [64]byte // a usual record fits: no allocation (put copies it into the arena)
	rec := s.record(small[:0], p)
	start := len(dst)
	for {
		s.mu.RLock()
		n, id, epoch := s.c.pets.n, s.c.id(s.c.pets.n), s.c.epoch
		s.mu.RUnlock()
		if n >= s.max {
			return dst, 0, errStoreFull
		}
		dst = s.appendPetJSON(dst[:start], id, rec)
		if s.check != nil {
			if err := s.check(dst[start:]); err != nil {
				return dst[:start], 0, err
			}
		}
		s.mu.Lock()
		if s.c.pets.n == n && s.c.epoch == epoch {
			s.c.put(rec)
			s.mu.Unlock()
			return dst, id, nil
		}
		s.mu.Unlock()
	}
}

func (c *content) put(rec []byte) {
	last := len(c.arena) - 1
	if last < 0 || cap(c.arena[last])-len(c.arena[last]) < len(rec) {
		c.arena = append(c.arena, make([]byte, 0, max(arenaBlock, len(rec))))
		last++
	}
	off := len(c.arena[last])
	c.arena[last] = append(c.arena[last], rec...)
	c.byStatus[rec[0]].add(int32(c.pets.n))
	c.pets.add(uint64(last)<<32 | uint64(off))
}

// appendPetJSON appends the encoding of the record with the given id: byte for byte what
// json.Marshal(Pet) gives (a test holds it to that).
func (s *store) appendPetJSON(dst []byte, id int64, rec []byte) []byte {
	st := rec[0]
	category, n := binary.Varint(rec[1:])
	rec = rec[1+n:]
	size, n := binary.Uvarint(rec)
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"name":`...)
	dst = append(dst, rec[n:n+int(size)]...)
	dst = append(dst, `,"categoryId":`...)
	dst = strconv.AppendInt(dst, category, 10)
	if st != 0 {
		dst = append(dst, `,"status":`...)
		dst = append(dst, s.quoted[st]...)
	}
	return append(dst, '}')
}

// appendAt appends the encoding of the animal at position i; the caller holds the lock.
func (s *store) appendAt(dst []byte, i int) []byte {
	loc := s.c.pets.at(i)
	return s.appendPetJSON(dst, s.c.id(i), s.c.arena[loc>>32][uint32(loc):])
}

// appendPet appends the encoding of the animal with the given id, if there is one.
func (s *store) appendPet(dst []byte, id int64) ([]byte, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.c.position(id)
	if !ok {
		return dst, false
	}
	return s.appendAt(dst, i), true
}

// appendList appends the JSON array of the first limit animals in id order; status ""
// means every animal. The array is what json.Marshal([]Pet) gives.
func (s *store) appendList(dst []byte, limit int, status string) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var (
		key pageKey
		n   int
		at  func(i int) int
	)
	switch st, ok := s.statusIndex(status); {
	case status == "":
		key, n, at = pageKey{-1, int32(limit)}, s.c.pets.n, func(i int) int { return i }
	case ok && st != 0:
		idx := &s.c.byStatus[st]
		key, n, at = pageKey{int16(st), int32(limit)}, idx.n, func(i int) int { return int(idx.at(i)) }
	default:
		return append(dst, "[]"...)
	}
	full := n >= limit // then the page cannot change until a reset (pageCache)
	if full {
		if page, ok := s.c.pages.get(key); ok {
			return append(dst, page...)
		}
	}
	start := len(dst)
	dst = append(dst, '[')
	for i := 0; i < limit && i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = s.appendAt(dst, at(i))
	}
	dst = append(dst, ']')
	if full {
		s.c.pages.put(key, dst[start:])
	}
	return dst
}

// reset replaces the content with seed, whose entries must be valid, in one step: a
// concurrent reader sees the old content or the new one, never a mix. The seed gets ids
// 1..len(seed) again (the same animals); the next animal created gets an id above every id
// assigned before. An entry that check refuses fails the reset, which then changes nothing.
func (s *store) reset(seed []NewPet) error {
	if len(seed) > s.max {
		return errStoreFull
	}
	c := s.empty()
	var buf []byte
	for i, p := range seed {
		rec := s.record(nil, p)
		if s.check != nil {
			buf = s.appendPetJSON(buf[:0], int64(i)+1, rec)
			if err := s.check(buf); err != nil {
				return &seedError{entry: i, err: err}
			}
		}
		c.put(rec)
	}
	c.seeded = len(seed)
	s.mu.Lock()
	defer s.mu.Unlock()
	c.firstID = max(s.c.id(s.c.pets.n), int64(len(seed))+1)
	c.epoch = s.c.epoch + 1
	s.c = c
	return nil
}

// seedError says which seed entry the spec refuses.
type seedError struct {
	entry int
	err   error
}

func (e *seedError) Error() string { return "entry " + strconv.Itoa(e.entry) + ": " + e.err.Error() }
func (e *seedError) Unwrap() error { return e.err }

package core

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
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

func (l *blocks[T]) set(i int, v T) { l.b[i/indexBlock][i%indexBlock] = v }

// bitset is a set of positions. Its summary has a bit per word, set when the word is not
// zero, so that next skips 4096 absent positions per summary bit: a page of a status that
// few animals have costs O(limit + positions/4096), however many animals are removed.
type bitset struct {
	words []uint64 // position i is a member when bit i%64 of words[i/64] is set
	sum   []uint64 // bit w%64 of sum[w/64] is set when words[w] is not zero
	n     int      // members
}

func (b *bitset) set(i int) {
	w := i >> 6
	for len(b.words) <= w {
		b.words = append(b.words, 0)
	}
	for len(b.sum) <= w>>6 {
		b.sum = append(b.sum, 0)
	}
	if b.words[w]&(1<<(i&63)) == 0 {
		b.n++
		b.words[w] |= 1 << (i & 63)
		b.sum[w>>6] |= 1 << (w & 63)
	}
}

func (b *bitset) clear(i int) {
	if !b.has(i) {
		return
	}
	w := i >> 6
	b.n--
	b.words[w] &^= 1 << (i & 63)
	if b.words[w] == 0 {
		b.sum[w>>6] &^= 1 << (w & 63)
	}
}

func (b *bitset) has(i int) bool {
	w := i >> 6
	return w < len(b.words) && b.words[w]&(1<<(i&63)) != 0
}

// next returns the smallest member at or above i (i >= 0), or -1 when there is none.
func (b *bitset) next(i int) int {
	w := i >> 6
	if w >= len(b.words) {
		return -1
	}
	if x := b.words[w] >> (i & 63); x != 0 {
		return i + bits.TrailingZeros64(x)
	}
	w++ // the first non-zero word above w, from the summary
	for sw := w >> 6; sw < len(b.sum); sw++ {
		x := b.sum[sw]
		if sw == w>>6 {
			x &= ^uint64(0) << (w & 63)
		}
		if x != 0 {
			w = sw<<6 + bits.TrailingZeros64(x)
			return w<<6 + bits.TrailingZeros64(b.words[w])
		}
	}
	return -1
}

// content is what reset replaces in one step. An animal is a record in the arena: its
// status index (1 byte, 0 = none), its category (varint), and its name already encoded as a
// JSON string (uvarint length, bytes). Its id follows from its position (see id), which is
// never reused: a removed animal leaves its position out of live. That is about 5 bytes plus
// the name, 8 bytes of index and a bit in live and in the set of its status.
type content struct {
	// records, in blocks of at least arenaBlock bytes; the first sealed ones are the seed's,
	// shared with the store's seed and every content reset to it, so never written.
	arena    [][]byte
	sealed   int
	pets     blocks[uint64] // by position: block<<32 | offset of the record in arena
	live     bitset         // the positions of the animals stored (not removed)
	byStatus []bitset       // by status index: the live positions with that status (0 is unused)
	// The seed has ids 1..seeded; the animals created since the last reset follow from
	// firstID, which is above every id assigned before, so that no id is ever reused.
	seeded  int
	firstID int64
	epoch   uint64 // counts resets, so that add notices one between its two locks
	pages   *pageCache
}

// pageCacheBytes bounds the encoded pages a content keeps (see pageCache).
const pageCacheBytes = 4 << 20

// pageCache keeps the encoding of full pages. Animals are added with ids above every id
// stored, so once the store (or one status) holds at least limit animals, its page of that
// limit is the same bytes until an animal is removed or replaced (which give the content a new,
// empty cache) or a reset (which replaces the content and its cache with it). Encoding 100
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

// position returns the position of the animal with the given id, if one is stored.
func (c *content) position(id int64) (int, bool) {
	i := -1
	switch {
	case id >= 1 && id <= int64(c.seeded):
		i = int(id - 1)
	case id >= c.firstID && id-c.firstID < int64(c.pets.n-c.seeded):
		i = c.seeded + int(id-c.firstID)
	}
	return i, i >= 0 && c.live.has(i)
}

// record returns the record at position i (and what follows it in its block).
func (c *content) record(i int) []byte {
	loc := c.pets.at(i)
	return c.arena[loc>>32][uint32(loc):]
}

// recordLen is the length of the record at the start of rec.
func recordLen(rec []byte) int {
	_, n := binary.Varint(rec[1:])
	size, m := binary.Uvarint(rec[1+n:])
	return 1 + n + m + int(size)
}

// store is the in-memory catalogue, safe for concurrent use. Ids are assigned from 1 upwards
// and never reused, not even after a reset; listing is in id order. Each status has a set of
// positions, so a list with a limit costs about O(limit) with or without a status filter.
//
// Readers hold the read lock; only remove and replace change what was stored, under the
// write lock. The store serves animals as JSON, encoded by appendPetJSON: the same bytes as
// json.Marshal(Pet). check, when set, validates that encoding once, before an animal is
// stored; the encoding is a function of the record and the id alone, so every later
// encoding of that animal is the validated one.
//
// The seed is kept as its records only (about 15 bytes an animal), which every content reset
// to it shares: no copy of the seed as NewPet values stays behind (issue 28).
type Store struct {
	mu       sync.RWMutex
	c        content
	resetMu  sync.Mutex // one reset at a time: the seed and the content it makes go together
	seed     [][]byte   // the seed's records in id order, in blocks capped at their length
	seedN    int
	statuses []string // statuses[0] is "" (no status), then the spec's values
	quoted   []string // statuses as JSON strings
	max      int
	Check    func(petJSON []byte) error // nil: no validation
}

func NewStore(statusValues []string, max int) *Store {
	s := &Store{statuses: append([]string{""}, statusValues...), max: max}
	for _, st := range s.statuses {
		q, _ := json.Marshal(st) // a string always marshals
		s.quoted = append(s.quoted, string(q))
	}
	s.c = s.empty()
	return s
}

func (s *Store) empty() content {
	return content{byStatus: make([]bitset, len(s.statuses)), firstID: 1, pages: &pageCache{}}
}

// statusIndex returns the index of a status value, or false when the spec does not define it.
func (s *Store) statusIndex(v string) (uint8, bool) {
	for i, st := range s.statuses {
		if st == v {
			return uint8(i), true
		}
	}
	return 0, false
}

// record appends the record of p, whose status must be valid, to dst.
func (s *Store) record(dst []byte, p NewPet) []byte {
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
func (s *Store) Add(dst []byte, p NewPet) ([]byte, int64, error) {
	var small [64]byte // a usual record fits: no allocation (put copies it into the arena)
	rec := s.record(small[:0], p)
	start := len(dst)
	for {
		s.mu.RLock()
		n, id, epoch, stored := s.c.pets.n, s.c.id(s.c.pets.n), s.c.epoch, s.c.live.n
		s.mu.RUnlock()
		if stored >= s.max {
			return dst, 0, errStoreFull
		}
		dst = s.appendPetJSON(dst[:start], id, rec)
		if s.Check != nil {
			if err := s.Check(dst[start:]); err != nil {
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

// put stores rec at the next position.
func (c *content) put(rec []byte) {
	c.index(c.keep(rec), rec[0])
}

// keep copies rec into the arena and returns its location.
func (c *content) keep(rec []byte) uint64 {
	last := len(c.arena) - 1
	if last < c.sealed || cap(c.arena[last])-len(c.arena[last]) < len(rec) {
		c.arena = append(c.arena, make([]byte, 0, max(arenaBlock, len(rec))))
		last++
	}
	off := len(c.arena[last])
	c.arena[last] = append(c.arena[last], rec...)
	return uint64(last)<<32 | uint64(off)
}

// index makes the record at loc, of status st, the animal at the next position.
func (c *content) index(loc uint64, st uint8) {
	i := c.pets.n
	c.pets.add(loc)
	c.live.set(i)
	if st != 0 {
		c.byStatus[st].set(i)
	}
}

// appendPetJSON appends the encoding of the record with the given id: byte for byte what
// json.Marshal(Pet) gives (a test holds it to that).
func (s *Store) appendPetJSON(dst []byte, id int64, rec []byte) []byte {
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
func (s *Store) appendAt(dst []byte, i int) []byte {
	return s.appendPetJSON(dst, s.c.id(i), s.c.record(i))
}

// appendPet appends the encoding of the animal with the given id, if there is one.
func (s *Store) AppendPet(dst []byte, id int64) ([]byte, bool) {
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
func (s *Store) AppendList(dst []byte, limit int, status string) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var (
		key pageKey
		set *bitset
	)
	switch st, ok := s.statusIndex(status); {
	case status == "":
		key, set = pageKey{-1, int32(limit)}, &s.c.live
	case ok && st != 0:
		key, set = pageKey{int16(st), int32(limit)}, &s.c.byStatus[st]
	default:
		return append(dst, "[]"...)
	}
	full := set.n >= limit // then the page cannot change until a write other than add (pageCache)
	if full {
		if page, ok := s.c.pages.get(key); ok {
			return append(dst, page...)
		}
	}
	start := len(dst)
	dst = append(dst, '[')
	for i, p := 0, set.next(0); i < limit && p >= 0; i, p = i+1, set.next(p+1) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = s.appendAt(dst, p)
	}
	dst = append(dst, ']')
	if full {
		s.c.pages.put(key, dst[start:])
	}
	return dst
}

// reset makes seed the store's seed and replaces the content with it, in one step: a
// concurrent reader sees the old content or the new one, never a mix. The seed gets ids
// 1..len(seed), and the next animal created an id above every id assigned before. seed's
// entries must be valid; one that check refuses fails the reset, which then changes nothing.
func (s *Store) Reset(seed []NewPet) error {
	if len(seed) > s.max {
		return errStoreFull
	}
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	c := s.empty()
	var buf []byte
	for i, p := range seed {
		var small [64]byte
		rec := s.record(small[:0], p)
		if s.Check != nil {
			buf = s.appendPetJSON(buf[:0], int64(i)+1, rec)
			if err := s.Check(buf); err != nil {
				return &SeedError{Entry: i, Name: p.Name, Err: err}
			}
		}
		c.put(rec)
	}
	// Sealed, the blocks are the seed's: an add or a replace writes into blocks of its own.
	for b := range c.arena {
		c.arena[b] = c.arena[b][:len(c.arena[b]):len(c.arena[b])]
	}
	c.arena = c.arena[:len(c.arena):len(c.arena)]
	c.sealed = len(c.arena)
	s.install(c, len(seed), func() { s.seed, s.seedN = c.arena, len(seed) })
	return nil
}

// restore replaces the content with the seed, as reset did; see reset.
func (s *Store) Restore() {
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	c := s.empty()
	c.arena, c.sealed = s.seed, len(s.seed)
	for b, block := range s.seed {
		for off := 0; off < len(block); off += recordLen(block[off:]) {
			c.index(uint64(b)<<32|uint64(off), block[off])
		}
	}
	s.install(c, s.seedN, nil)
}

// install makes c, whose first seeded positions are the seed's, the content, and runs also
// under the write lock.
func (s *Store) install(c content, seeded int, also func()) {
	c.seeded = seeded
	s.mu.Lock()
	defer s.mu.Unlock()
	c.firstID = max(s.c.id(s.c.pets.n), int64(seeded)+1)
	c.epoch = s.c.epoch + 1
	s.c = c
	if also != nil {
		also()
	}
}

// remove removes the animal with the given id, and reports whether there was one. Its id is
// not reused; a reset brings it back if it came from the seed.
func (s *Store) remove(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.c.position(id)
	if !ok {
		return false
	}
	s.c.live.clear(i)
	s.c.byStatus[s.c.record(i)[0]].clear(i)
	s.c.pages = &pageCache{} // the pages that listed it would list it still
	return true
}

// replace makes p, whose status must be valid, the animal with the given id, keeping the id
// and its place in id order, and appends its JSON encoding to dst. It reports whether there
// was an animal with that id; when there was none or check refuses the encoding, nothing
// changes. The old record's bytes are reused when it is not the seed's and p's fits in them.
func (s *Store) replace(dst []byte, id int64, p NewPet) ([]byte, bool, error) {
	var small [64]byte
	rec := s.record(small[:0], p)
	start := len(dst)
	s.mu.RLock()
	_, ok := s.c.position(id)
	s.mu.RUnlock()
	if !ok {
		return dst, false, nil
	}
	dst = s.appendPetJSON(dst, id, rec) // a function of id and rec: checked outside the lock
	if s.Check != nil {
		if err := s.Check(dst[start:]); err != nil {
			return dst[:start], true, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.c.position(id) // a reset or a remove may have come in between
	if !ok {
		return dst[:start], false, nil
	}
	old, loc := s.c.record(i), s.c.pets.at(i)
	s.c.byStatus[old[0]].clear(i)
	if int(loc>>32) >= s.c.sealed && len(rec) <= recordLen(old) {
		copy(old, rec)
	} else {
		s.c.pets.set(i, s.c.keep(rec))
	}
	if rec[0] != 0 {
		s.c.byStatus[rec[0]].set(i)
	}
	s.c.pages = &pageCache{}
	return dst, true, nil
}

// SeedError says which animal of the seed the server refuses, and why: a seed animal is held
// to the spec as a createPet body is.
type SeedError struct {
	Entry int    // its position in the seed, from 0
	Name  string // its name
	Err   error
}

func (e *SeedError) Error() string {
	return "entry " + strconv.Itoa(e.Entry) + " (" + strconv.Quote(e.Name) + "): " + e.Err.Error()
}
func (e *SeedError) Unwrap() error { return e.Err }

package core

import (
	"bytes"
	"encoding/binary"
)

// petMatch keeps the animals whose fields equal the ones it holds; a nil field keeps any.
type petMatch struct {
	id, categoryID *int64
	name           []byte // the name as a record holds it: encoded as a JSON string
}

// encodedName is name as store.record encodes it, so that equal names are equal bytes.
func encodedName(name string) []byte {
	var s Store
	rec := s.record(nil, NewPet{Name: name})
	_, n := binary.Varint(rec[1:])
	_, m := binary.Uvarint(rec[1+n:])
	return rec[1+n+m:]
}

// keeps reports whether the animal with the given id and record matches.
func (m *petMatch) keeps(id int64, rec []byte) bool {
	if m.id != nil && *m.id != id {
		return false
	}
	category, n := binary.Varint(rec[1:])
	if m.categoryID != nil && *m.categoryID != category {
		return false
	}
	if m.name != nil {
		size, k := binary.Uvarint(rec[1+n:])
		if !bytes.Equal(rec[1+n+k:1+n+k+int(size)], m.name) {
			return false
		}
	}
	return true
}

// appendWhere is appendList of the animals match keeps; a nil match keeps every one. It
// visits the animals of the status (or every one) in id order until the page is full: a
// filter that few animals pass costs a walk of the whole store.
func (s *Store) appendWhere(dst []byte, limit int, status string, match *petMatch) []byte {
	if match == nil {
		return s.AppendList(dst, limit, status)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	set := &s.c.live
	if status != "" {
		st, ok := s.statusIndex(status)
		if !ok || st == 0 {
			return append(dst, "[]"...)
		}
		set = &s.c.byStatus[st]
	}
	dst = append(dst, '[')
	n := 0
	for p := set.next(0); n < limit && p >= 0; p = set.next(p + 1) {
		if !match.keeps(s.c.id(p), s.c.record(p)) {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = s.appendAt(dst, p)
		n++
	}
	return append(dst, ']')
}

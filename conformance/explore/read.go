package explore

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/petstore/petstore/internal/jsonscan"
)

// Reading the animals of an answer. Most answers are listings, and decoding them into maps
// of interfaces (decodeObject, fromObject) was the largest part of judging them. readListing
// and readAnimal read the JSON text in place when every animal is plain: an object whose
// keys are written without escapes, each of id, name, categoryId and status given at most
// once, with the name a string, the numbers numbers and the status (if any) a string. They
// then say exactly what decodeObject and fromObject would; for any other answer they say
// nothing (ok false) and the caller decodes it as before (read_test.go holds the two ways to
// the same animals).

// listing is the animals of a listing as read, and their ids as the target wrote them; a
// worker reads every listing into the same one.
type listing struct {
	pets []pet
	ids  [][]byte
}

// readListing reads into l a listing that is a JSON array of plain animals and nothing else.
func (f *Facts) readListing(l *listing, seen animals, body []byte) bool {
	l.pets, l.ids = l.pets[:0], l.ids[:0]
	if !utf8.Valid(body) {
		return false
	}
	sc := jsonscan.New(body, jsonscan.Depth)
	more, ok := sc.Open('[')
	for ok && more {
		w, read := readWritten(sc)
		if !read {
			return false
		}
		a, read := f.animal(w, seen)
		if !read {
			return false
		}
		l.pets, l.ids = append(l.pets, a), append(l.ids, w.id)
		more, ok = sc.Next(']')
	}
	return ok && sc.Done()
}

// readAnimal reads an answer that is one plain animal and nothing else.
func (f *Facts) readAnimal(seen animals, body []byte) (pet, bool) {
	if !utf8.Valid(body) {
		return pet{}, false
	}
	sc := jsonscan.New(body, jsonscan.Depth)
	w, ok := readWritten(sc)
	if !ok || !sc.Done() {
		return pet{}, false
	}
	return f.animal(w, seen)
}

// written is a plain animal's fields as written: the numbers' text, and the strings' with
// their quotes.
type written struct {
	id, name, category, status []byte
	escaped                    bool // a string holds an escape
}

// readWritten reads a plain animal's fields.
func readWritten(sc *jsonscan.Scanner) (w written, ok bool) {
	more, ok := sc.Open('{')
	for ok && more {
		key, escaped, read := sc.Key()
		if !read || escaped {
			return w, false
		}
		var field *[]byte
		switch string(key) {
		case fieldID:
			field = &w.id
		case fieldName:
			field = &w.name
		case fieldCategory:
			field = &w.category
		case fieldStatus:
			field = &w.status
		default:
			if !sc.Skip() {
				return w, false
			}
		}
		if field != nil {
			if *field != nil {
				return w, false // given twice: which one counts is the decoder's
			}
			if field == &w.name || field == &w.status {
				var esc bool
				if _, esc, ok = sc.String(); ok {
					*field, w.escaped = sc.Quoted(), w.escaped || esc
				}
			} else {
				*field, _, ok = sc.Number()
			}
			if !ok {
				return w, false
			}
		}
		more, ok = sc.Next('}')
	}
	return w, ok && w.id != nil && w.name != nil && w.category != nil
}

// animals are the animals a worker has read, by their id as written, with their category as
// written: an animal read again as it was is not made anew (most of a listing is animals
// read before).
type animals map[string]seenAnimal

type seenAnimal struct {
	pet
	category string // as written
}

// animal is the animal w writes.
func (f *Facts) animal(w written, seen animals) (pet, bool) {
	if k, ok := seen[string(w.id)]; ok && !w.escaped && k.category == string(w.category) && k.name == string(unquote(w.name)) &&
		k.hasStatus == (w.status != nil) && (w.status == nil || k.status == string(unquote(w.status))) {
		return k.pet, true
	}
	a := pet{id: canonicalInt(string(w.id)), category: canonicalInt(string(w.category))}
	var ok bool
	if a.name, ok = str(w.name, nil); !ok {
		return pet{}, false
	}
	if a.hasStatus = w.status != nil; a.hasStatus {
		if a.status, ok = str(w.status, f.Statuses); !ok {
			return pet{}, false
		}
	}
	if seen != nil && !w.escaped {
		seen[string(w.id)] = seenAnimal{a, string(w.category)}
	}
	return a, true
}

// unquote is a string as written without its quotes.
func unquote(quoted []byte) []byte { return quoted[1 : len(quoted)-1] }

// str is the value of a string as written (with its quotes): one of known when it is written
// as one (no copy is made), else decoded as encoding/json decodes it.
func str(quoted []byte, known []string) (string, bool) {
	raw := unquote(quoted)
	if bytes.IndexByte(raw, '\\') >= 0 {
		var s string
		return s, json.Unmarshal(quoted, &s) == nil
	}
	if i := slices.IndexFunc(known, func(k string) bool { return k == string(raw) }); i >= 0 {
		return known[i], true
	}
	return string(raw), true
}

// canonicalInt is s as an int64 in decimal when it is one exactly, else s itself (so that
// 9007199254740993 and 9007199254740992 stay different, and 1.0 stays "1.0").
func canonicalInt(s string) string {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if c := strconv.FormatInt(n, 10); c != s {
			return c
		}
	}
	return s
}

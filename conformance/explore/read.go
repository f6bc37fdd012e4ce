package explore

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/petstore/petstore/conformance/judge"
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
func (f *Facts) readListing(l *listing, body []byte) bool {
	l.pets, l.ids = l.pets[:0], l.ids[:0]
	if !utf8.Valid(body) {
		return false
	}
	sc := judge.NewScanner(body)
	more, ok := sc.Open('[')
	for ok && more {
		a, id, read := f.animal(sc)
		if !read {
			return false
		}
		l.pets, l.ids = append(l.pets, a), append(l.ids, id)
		more, ok = sc.Next(']')
	}
	return ok && sc.Done()
}

// readAnimal reads an answer that is one plain animal and nothing else.
func (f *Facts) readAnimal(body []byte) (pet, bool) {
	if !utf8.Valid(body) {
		return pet{}, false
	}
	sc := judge.NewScanner(body)
	a, _, ok := f.animal(sc)
	return a, ok && sc.Done()
}

// animal reads one plain animal, and its id as written.
func (f *Facts) animal(sc *judge.Scanner) (a pet, idText []byte, ok bool) {
	var has struct{ id, name, category bool }
	more, ok := sc.Open('{')
	for ok && more {
		key, escaped, read := sc.Key()
		if !read || escaped {
			return a, nil, false
		}
		switch string(key) {
		case fieldID:
			if has.id {
				return a, nil, false
			}
			if idText, ok = number(sc); !ok {
				return a, nil, false
			}
			a.id, has.id = canonicalInt(string(idText)), true
		case fieldName:
			if has.name {
				return a, nil, false
			}
			if a.name, ok = str(sc, nil); !ok {
				return a, nil, false
			}
			has.name = true
		case fieldCategory:
			if has.category {
				return a, nil, false
			}
			text, read := number(sc)
			if !read {
				return a, nil, false
			}
			a.category, has.category = canonicalInt(string(text)), true
		case fieldStatus:
			if a.hasStatus {
				return a, nil, false
			}
			if a.status, ok = str(sc, f.Statuses); !ok {
				return a, nil, false
			}
			a.hasStatus = true
		default:
			if !sc.Skip() {
				return a, nil, false
			}
		}
		more, ok = sc.Next('}')
	}
	return a, idText, ok && has.id && has.name && has.category
}

// number reads a JSON number's text.
func number(sc *judge.Scanner) ([]byte, bool) {
	text, _, ok := sc.Number()
	return text, ok
}

// str reads a string's value: one of known when it is written as one (no copy is made), else
// decoded as encoding/json decodes it.
func str(sc *judge.Scanner, known []string) (string, bool) {
	raw, escaped, ok := sc.String()
	switch {
	case !ok:
		return "", false
	case escaped:
		var s string
		return s, json.Unmarshal(sc.Quoted(), &s) == nil
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

package reference

import (
	"bytes"
	"unicode/utf8"
)

// decodeNewPetQuick is decodeNewPet, with the usual body decoded in one pass.
func decodeNewPetQuick(data []byte) (NewPet, error) {
	if p, ok := quickNewPet(data); ok {
		return p, nil
	}
	return decodeNewPet(data)
}

// quickNewPet decodes the usual body in one pass, without allocating: one object of
// distinct keys written without escapes, no value an object or an array (whose keys
// decodeNewPet would check too), valid UTF-8. ok is false for any other body, and for
// every body decodeNewPet refuses: that one then decides, and words the error. The two
// are compared on the case generator's bodies and fuzzed (schemacheck_test.go).
func quickNewPet(data []byte) (p NewPet, ok bool) {
	if !utf8.Valid(data) {
		return p, false
	}
	s := jsonScanner{data: data}
	s.space()
	if !s.consume('{') {
		return p, false
	}
	var keys [8][]byte // those seen, to refuse a repeated one
	nkeys := 0
	var name, category, status []byte
	s.space()
	for !s.consume('}') {
		if nkeys > 0 && !s.consume(',') {
			return p, false
		}
		s.space()
		key, escaped, ok := s.str()
		if !ok || escaped || nkeys == len(keys) {
			return p, false
		}
		for _, k := range keys[:nkeys] {
			if bytes.Equal(k, key) {
				return p, false
			}
		}
		keys[nkeys], nkeys = key, nkeys+1
		s.space()
		if !s.consume(':') {
			return p, false
		}
		s.space()
		start := s.i
		if start < len(data) && (data[start] == '{' || data[start] == '[') || !s.skip(0) {
			return p, false
		}
		switch string(key) {
		case "name":
			name = data[start:s.i]
		case "categoryId":
			category = data[start:s.i]
		case "status":
			status = data[start:s.i]
		}
		s.space()
	}
	s.space()
	if s.i != len(data) || name == nil || category == nil || jsonString(name, &p.Name) != nil {
		return p, false
	}
	var err error
	if p.CategoryID, err = jsonInt64(category); err != nil {
		return p, false
	}
	if status != nil && (jsonString(status, &p.Status) != nil || p.Status == "") {
		return p, false
	}
	return p, true
}

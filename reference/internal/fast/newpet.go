package fast

import (
	"bytes"
	"unicode/utf8"

	"github.com/petstore/petstore/internal/jsonscan"
	"github.com/petstore/petstore/reference/internal/core"
)

// decodeNewPetQuick is decodeNewPet, with the usual body decoded in one pass.
func DecodeNewPetQuick(data []byte) (core.NewPet, error) {
	if p, ok := quickNewPet(data); ok {
		return p, nil
	}
	return core.DecodeNewPet(data)
}

// quickNewPet decodes the usual body in one pass, without allocating: one object of
// distinct keys written without escapes, no value an object or an array (whose keys
// decodeNewPet would check too), valid UTF-8. ok is false for any other body, and for
// every body decodeNewPet refuses: that one then decides, and words the error. The two
// are compared on the case generator's bodies and fuzzed (schema_test.go).
func quickNewPet(data []byte) (p core.NewPet, ok bool) {
	if !utf8.Valid(data) {
		return p, false
	}
	s := jsonscan.New(data, 256) // nesting read at most (encoding/json's own limit is 10,000)
	more, ok := s.Open('{')
	var keys [8][]byte // those seen, to refuse a repeated one
	nkeys := 0
	var name, category, status []byte
	for ok && more {
		key, escaped, read := s.Key()
		if !read || escaped || nkeys == len(keys) {
			return p, false
		}
		for _, k := range keys[:nkeys] {
			if bytes.Equal(k, key) {
				return p, false
			}
		}
		keys[nkeys], nkeys = key, nkeys+1
		if b := s.Peek(); b == '{' || b == '[' {
			return p, false
		}
		v, read := s.Value()
		if !read {
			return p, false
		}
		switch string(key) {
		case "name":
			name = v
		case "categoryId":
			category = v
		case "status":
			status = v
		}
		more, ok = s.Next('}')
	}
	if !ok || !s.Done() || name == nil || category == nil || core.JSONString(name, &p.Name) != nil {
		return p, false
	}
	var err error
	if p.CategoryID, err = core.JSONInt64(category); err != nil {
		return p, false
	}
	if status != nil && (core.JSONString(status, &p.Status) != nil || p.Status == "") {
		return p, false
	}
	return p, true
}

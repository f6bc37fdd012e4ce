// Package jsonscan reads JSON text (RFC 8259) in place, without decoding it into values, as
// encoding/json reads it (invalid UTF-8 in strings included: encoding/json takes it and
// replaces it). The fast paths of the reference (its compiled checks of a request body and
// of a stored animal, its one-pass decoding of createPet's body) and of the harness (the
// session's check of an answer against the description, explore's reading of a listing,
// coverage's reading of a body's members) walk JSON text with it, and leave whatever it does
// not read plainly to encoding/json or kin-openapi. It imports only the standard library.
package jsonscan

import "encoding/json"

// Scanner reads one JSON text. Each method skips the white space before what it reads, and
// reports false at anything that is not well-formed JSON, leaving the position undefined.
type Scanner struct {
	data []byte
	pos  int
	// str and strEnd are where the string read last starts and ends, its quotes included.
	str, strEnd int
	// maxDepth bounds the nesting Skip and Value follow.
	maxDepth int
}

// Depth is the nesting the harness's readers follow (Skip and Value, Members): deeper text
// is left to encoding/json.
const Depth = 64

// New returns a scanner at the start of data whose Skip and Value read values nested at
// most maxDepth deep (a scalar inside maxDepth arrays, or maxDepth+1 empty ones).
func New(data []byte, maxDepth int) *Scanner { return &Scanner{data: data, maxDepth: maxDepth} }

// Space skips white space.
func (s *Scanner) Space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Done reports whether nothing but white space is left.
func (s *Scanner) Done() bool {
	s.Space()
	return s.pos == len(s.data)
}

// Peek is the next byte after white space (0 at the end).
func (s *Scanner) Peek() byte {
	s.Space()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// Byte reads c, after white space.
func (s *Scanner) Byte(c byte) bool {
	if s.Peek() != c {
		return false
	}
	s.pos++
	return true
}

// Next reads the comma between two members or elements, or the end of the object or array
// (end: '}' or ']'); more says that a member or element follows.
func (s *Scanner) Next(end byte) (more, ok bool) {
	switch s.Peek() {
	case ',':
		s.pos++
		return true, true
	case end:
		s.pos++
		return false, true
	}
	return false, false
}

// Open reads the start of an object or array (open: '{' or '['); more says that it is not
// empty.
func (s *Scanner) Open(open byte) (more, ok bool) {
	if !s.Byte(open) {
		return false, false
	}
	end := byte('}')
	if open == '[' {
		end = ']'
	}
	if s.Peek() == end {
		s.pos++
		return false, true
	}
	return true, true
}

// Key reads an object member's name and its colon: its text as written, and whether it
// holds an escape (the text is then not the name).
func (s *Scanner) Key() (raw []byte, escaped, ok bool) {
	if raw, escaped, ok = s.String(); !ok || !s.Byte(':') {
		return nil, false, false
	}
	return raw, escaped, true
}

// String reads a string: its text between the quotes as written, and whether it holds an
// escape (the text is then not the string's value).
func (s *Scanner) String() (raw []byte, escaped, ok bool) {
	if s.Peek() != '"' {
		return nil, false, false
	}
	s.str, s.strEnd = s.pos, 0
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos, s.strEnd = i+1, i+1
			return s.data[start:i], escaped, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			escaped = true
			i++
			if i >= len(s.data) {
				return nil, false, false
			}
			switch s.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.data) {
					return nil, false, false
				}
				for _, h := range s.data[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// Quoted is the string read last (String, Key) as written, with its quotes: what
// encoding/json decodes when it holds an escape. It is nil until a string was read whole.
func (s *Scanner) Quoted() []byte {
	if s.strEnd <= s.str {
		return nil
	}
	return s.data[s.str:s.strEnd]
}

// Number reads a number and returns its text as written; integer says that it is written
// without a fraction or an exponent.
func (s *Scanner) Number() (text []byte, integer, ok bool) {
	s.Space()
	d, i := s.data, s.pos
	integer = true
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i)
	default:
		return nil, false, false
	}
	if i < len(d) && d[i] == '.' {
		integer = false
		if i++; i >= len(d) || d[i] < '0' || d[i] > '9' {
			return nil, false, false
		}
		i = digits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		if i++; i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return nil, false, false
		}
		i = digits(d, i)
	}
	text, s.pos = d[s.pos:i], i
	return text, integer, true
}

func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// Literal reads word (true, false or null).
func (s *Scanner) Literal(word string) bool {
	s.Space()
	if len(s.data)-s.pos < len(word) {
		return false
	}
	for i := range len(word) {
		if s.data[s.pos+i] != word[i] {
			return false
		}
	}
	s.pos += len(word)
	return true
}

// Skip reads any one value, nested at most as deep as New was told.
func (s *Scanner) Skip() bool { return s.skip(0) }

// Value reads any one value, as Skip does, and returns its text as written.
func (s *Scanner) Value() ([]byte, bool) {
	s.Space()
	start := s.pos
	if !s.skip(0) {
		return nil, false
	}
	return s.data[start:s.pos], true
}

// Members returns the members of a JSON object as encoding/json reads them into a
// map[string]json.RawMessage (the last of a name given twice; the values alias data),
// reading the text once; nil when data is not one object. Objects nested deeper than Depth
// are left to encoding/json.
func Members(data []byte) map[string]json.RawMessage {
	s := New(data, Depth)
	more, ok := s.Open('{')
	m := map[string]json.RawMessage{}
	for ok && more {
		var raw, v []byte
		var escaped bool
		if raw, escaped, ok = s.Key(); !ok {
			break
		}
		name := string(raw)
		if escaped && json.Unmarshal(s.Quoted(), &name) != nil {
			ok = false
			break
		}
		if v, ok = s.Value(); !ok {
			break
		}
		m[name] = v
		more, ok = s.Next('}')
	}
	if ok && s.Done() {
		return m
	}
	m = nil
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

func (s *Scanner) skip(depth int) bool {
	if depth > s.maxDepth {
		return false
	}
	switch c := s.Peek(); c {
	case '{', '[':
		more, ok := s.Open(c)
		for ok && more {
			if c == '{' {
				if _, _, ok = s.Key(); !ok {
					return false
				}
			}
			if !s.skip(depth + 1) {
				return false
			}
			more, ok = s.Next(c + 2) // '}' and ']' follow '{' and '[' by two
		}
		return ok
	case '"':
		_, _, ok := s.String()
		return ok
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	}
	_, _, ok := s.Number()
	return ok
}

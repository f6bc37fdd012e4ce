package reference

// maxDepth bounds the nesting of an unknown property's value that a check walks through
// (encoding/json's own limit is 10,000).
const maxDepth = 256

// jsonScanner reads JSON text (RFC 8259) as encoding/json does, invalid UTF-8 in strings
// included (encoding/json takes it and replaces it).
type jsonScanner struct {
	data []byte
	i    int
}

func (s *jsonScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) consume(b byte) bool {
	if s.i < len(s.data) && s.data[s.i] == b {
		s.i++
		return true
	}
	return false
}

// str reads a string and returns what is between its quotes, and whether it holds escapes.
func (s *jsonScanner) str() (raw []byte, escaped, ok bool) {
	if !s.consume('"') {
		return nil, false, false
	}
	start := s.i
	for s.i < len(s.data) {
		switch b := s.data[s.i]; {
		case b == '"':
			s.i++
			return s.data[start : s.i-1], escaped, true
		case b < 0x20:
			return nil, false, false
		case b == '\\':
			escaped = true
			if s.i+1 >= len(s.data) {
				return nil, false, false
			}
			switch s.data[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.data) {
					return nil, false, false
				}
				for _, h := range s.data[s.i+2 : s.i+6] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				s.i += 6
			default:
				return nil, false, false
			}
		default:
			s.i++
		}
	}
	return nil, false, false
}

func isHex(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? and returns its text.
func (s *jsonScanner) number() ([]byte, bool) {
	start := s.i
	s.consume('-')
	switch {
	case s.consume('0'):
	case s.i < len(s.data) && s.data[s.i] >= '1' && s.data[s.i] <= '9':
		s.digits()
	default:
		return nil, false
	}
	if s.consume('.') && !s.digits() {
		return nil, false
	}
	if s.consume('e') || s.consume('E') {
		if !s.consume('+') {
			s.consume('-')
		}
		if !s.digits() {
			return nil, false
		}
	}
	return s.data[start:s.i], true
}

// digits reads one digit or more.
func (s *jsonScanner) digits() bool {
	start := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// skip reads any value, nested at most maxDepth deep below depth.
func (s *jsonScanner) skip(depth int) bool {
	if s.i >= len(s.data) || depth > maxDepth {
		return false
	}
	switch b := s.data[s.i]; b {
	case '"':
		_, _, ok := s.str()
		return ok
	case '{', '[':
		s.i++
		end := byte('}')
		if b == '[' {
			end = ']'
		}
		s.space()
		if s.consume(end) {
			return true
		}
		for {
			s.space()
			if b == '{' {
				if _, _, ok := s.str(); !ok {
					return false
				}
				s.space()
				if !s.consume(':') {
					return false
				}
				s.space()
			}
			if !s.skip(depth + 1) {
				return false
			}
			s.space()
			if s.consume(end) {
				return true
			}
			if !s.consume(',') {
				return false
			}
		}
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}

func (s *jsonScanner) literal(word string) bool {
	if len(s.data)-s.i >= len(word) && string(s.data[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

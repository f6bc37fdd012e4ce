package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/petstore/petstore/spec"
)

// Pet is an animal as the store keeps it and as the interface returns it.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// NewPet is the body of createPet, and the form of each entry of a seed file.
type NewPet struct {
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// Name rules the interface document leaves open; these are the reference server's choices.
const (
	nameMinRunes = 1
	nameMaxRunes = 200
)

// decodeNewPet parses a createPet body (or one seed entry) with the reference server's
// choices: duplicate keys are refused, unknown fields ignored, field names matched exactly
// (encoding/json alone would match "NAME" to name and keep the last of two "name" keys). The
// error says what is wrong.
func DecodeNewPet(data []byte) (NewPet, error) {
	// JSON text is UTF-8 (RFC 8259 section 8.1); encoding/json would silently turn stray bytes
	// into U+FFFD, and the client would get back a name it never sent.
	if !utf8.Valid(data) {
		return NewPet{}, Invalid("request body: not valid UTF-8")
	}
	if err := checkDuplicateKeys(data); err != nil {
		return NewPet{}, Invalid("request body: %v", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return NewPet{}, Invalid("request body: want a JSON object")
	}
	var p NewPet
	raw, ok := fields["name"]
	if !ok {
		return p, Invalid("request body: property %q is missing", "name")
	}
	if err := JSONString(raw, &p.Name); err != nil {
		return p, Invalid("request body: property %q: %v", "name", err)
	}
	if raw, ok = fields["categoryId"]; !ok {
		return p, Invalid("request body: property %q is missing", "categoryId")
	}
	n, err := JSONInt64(raw)
	if err != nil {
		return p, Invalid("request body: property %q: %v", "categoryId", err)
	}
	p.CategoryID = n
	if raw, ok = fields["status"]; ok {
		if err := JSONString(raw, &p.Status); err != nil {
			return p, Invalid("request body: property %q: %v", "status", err)
		}
		if p.Status == "" {
			return p, Invalid("request body: property %q: empty value", "status")
		}
	}
	return p, nil
}

// validateNewPet applies the value rules: name length and characters, status among values,
// and present when the spec requires it (statusRequired).
func ValidateNewPet(p NewPet, statusValues []string, statusRequired bool) error {
	n := utf8.RuneCountInString(p.Name)
	if n < nameMinRunes || n > nameMaxRunes {
		return Invalid("name must be %d to %d characters long, got %d", nameMinRunes, nameMaxRunes, n)
	}
	for _, c := range p.Name {
		if unicode.IsControl(c) {
			return Invalid("name must not contain control characters (found %U)", c)
		}
	}
	if p.Status != "" && !slices.Contains(statusValues, p.Status) {
		return Invalid("status must be one of %v, got %q", statusValues, p.Status)
	}
	if p.Status == "" && statusRequired {
		return Invalid("property %q is missing: the spec's NewPet requires it", "status")
	}
	return nil
}

// statusRequired says whether the spec's NewPet requires a status (name and categoryId
// decodeNewPet requires itself).
func StatusRequired(f *spec.Facts) bool { return spec.IsRequired(f.NewPet, "status") }

func JSONString(raw json.RawMessage, dst *string) error {
	if len(raw) == 0 || raw[0] != '"' {
		return errors.New("want a string")
	}
	// Without escapes, the text between the quotes is the string (raw is a JSON string).
	if len(raw) >= 2 {
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			*dst = string(inner)
			return nil
		}
	}
	// encoding/json turns an unpaired surrogate escape (\ud800) into U+FFFD: the client would
	// get back a name it never sent, as with invalid UTF-8 bytes.
	if err := checkSurrogates(raw); err != nil {
		return err
	}
	return json.Unmarshal(raw, dst)
}

// checkSurrogates fails on a \uD800-\uDFFF escape that is not a high surrogate followed by a
// low one (RFC 8259 section 8.2: such a string cannot be turned into Unicode characters).
func checkSurrogates(raw []byte) error {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // a two-character escape such as \\ or \"
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11
				continue
			}
			return errors.New("an unpaired surrogate escape (\\u" + string(raw[i+2:i+6]) + ")")
		case r >= 0xDC00 && r <= 0xDFFF:
			return errors.New("an unpaired surrogate escape (\\u" + string(raw[i+2:i+6]) + ")")
		}
		i += 5
	}
	return nil
}

// jsonInt64 accepts a JSON number with no fractional part that fits int64 (1.0 and 1e3 are
// integers to JSON Schema, so they are to the server too). The decimal text is read exactly:
// a float64 cannot tell 9007199254740993.0 from 9007199254740992, and the server must not
// store a number the client did not send.
func JSONInt64(raw json.RawMessage) (int64, error) {
	if n, ok := CanonicalInt(raw); ok {
		return n, nil // the usual case, read without a copy
	}
	n, ok := exactInt64(string(raw))
	if !ok {
		return 0, errors.New("want an integer in the int64 range")
	}
	return n, nil
}

// exactInt64 reads a JSON number (-?int(.frac)?([eE][+-]?exp)?) as an exact decimal and
// returns it when it is an integer within int64.
func exactInt64(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := s[i+1:]
		eneg := strings.HasPrefix(e, "-")
		if eneg || strings.HasPrefix(e, "+") {
			e = e[1:]
		}
		if e == "" || strings.Trim(e, "0123456789") != "" {
			return 0, false
		}
		if e = strings.TrimLeft(e, "0"); len(e) > 6 {
			e = "999999" // beyond it a nonzero number is a fraction or out of range anyway
		}
		exp, _ = strconv.Atoi(e) // "" (all zeros) gives 0
		if eneg {
			exp = -exp
		}
		mant = s[:i]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return 0, false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	if digits == "" {
		return 0, true // zero, however written
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	digits = trimmed
	if exp < 0 || len(digits)+exp > 19 {
		return 0, false // a fraction, or more digits than any int64 has
	}
	text := digits + strings.Repeat("0", exp)
	if neg {
		text = "-" + text
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// checkDuplicateKeys walks the whole document and fails on an object with a repeated key.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One entry per open container: the keys seen so far (object) or nil (array).
	var stack []map[string]bool
	inObject := func() bool { return len(stack) > 0 && stack[len(stack)-1] != nil }
	wantKey := false // whether the next token is a key of the innermost object
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			if d == '{' {
				stack = append(stack, map[string]bool{})
			} else {
				stack = append(stack, nil)
			}
			wantKey = d == '{'
			continue
		} else if ok {
			stack = stack[:len(stack)-1]
		} else if key, isString := tok.(string); isString && wantKey {
			if seen := stack[len(stack)-1]; seen[key] {
				return fmt.Errorf("duplicate key %q", key)
			} else {
				seen[key] = true
			}
			wantKey = false
			continue
		}
		// A value ended: inside an object a key comes next.
		wantKey = inObject()
	}
}

// LoadSeed reads a seed file: a JSON array of NewPet records (see testdata/pets.json). An
// entry with an "id" is refused: the animals get ids 1, 2, 3 ... in file order. The values
// are checked against the spec when NewServer starts. The file is read one entry at a time,
// so that a large seed costs its animals and not also its text (issue 28).
func LoadSeed(path string) ([]NewPet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	defer f.Close()
	notArray := func(err error) error { return fmt.Errorf("seed %s: want a JSON array of animals: %w", path, err) }
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	if tok, err := dec.Token(); err != nil {
		return nil, notArray(err)
	} else if tok != json.Delim('[') {
		return nil, notArray(fmt.Errorf("the file starts with %v", tok))
	}
	var pets []NewPet
	statuses := map[string]string{} // one copy of each status, not one per animal
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, notArray(err)
		}
		// An id in a seed would be silently replaced by the one the store assigns, and a
		// client test written against it would fail far from the cause: refuse it here. A key
		// "id" is written with the letters id or with an escape; without either, there is none
		// (decoding each entry once more for it was a fifth of the time of loading a seed).
		var fields map[string]json.RawMessage
		if (bytes.Contains(raw, []byte("id")) || bytes.Contains(raw, []byte(`\u`))) &&
			json.Unmarshal(raw, &fields) == nil && fields["id"] != nil {
			return nil, fmt.Errorf(`seed %s: entry %d: "id" is not accepted: the server numbers the animals 1, 2, 3 ... in file order; remove the field`, path, i)
		}
		p, err := DecodeNewPet(raw)
		if err != nil {
			return nil, fmt.Errorf("seed %s: entry %d: %s", path, i, err.(*Error).Message)
		}
		if st, ok := statuses[p.Status]; ok {
			p.Status = st
		} else if len(statuses) < 64 {
			statuses[p.Status] = p.Status
		}
		pets = append(pets, p)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, notArray(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notArray(errors.New("text after the array"))
	}
	return pets, nil
}

// canonicalInt parses an integer written the one way: optional minus, no leading zero, no
// sign on zero, at most 16 digits (strconv.ParseInt and encoding/json accept all of these).
func CanonicalInt[T ~string | ~[]byte](s T) (int64, bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 16 || (digits[0] == '0' && len(s) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(digits[i]-'0')
	}
	if len(digits) < len(s) {
		n = -n
	}
	return n, true
}

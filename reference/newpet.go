package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Name rules the interface document leaves open; these are the reference server's choices.
const (
	nameMinRunes = 1
	nameMaxRunes = 200
)

// decodeNewPet parses a createPet body (or one seed entry) with the reference server's
// choices: duplicate keys are refused, unknown fields ignored, field names matched exactly
// (encoding/json alone would match "NAME" to name and keep the last of two "name" keys).
func decodeNewPet(data []byte) (NewPet, error) {
	// JSON text is UTF-8 (RFC 8259 section 8.1); encoding/json would silently turn stray bytes
	// into U+FFFD, and the client would get back a name it never sent.
	if !utf8.Valid(data) {
		return NewPet{}, invalid("request body: not valid UTF-8")
	}
	if err := checkDuplicateKeys(data); err != nil {
		return NewPet{}, invalid("request body: %v", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return NewPet{}, invalid("request body: want a JSON object")
	}
	var p NewPet
	raw, ok := fields["name"]
	if !ok {
		return p, invalid("request body: property %q is missing", "name")
	}
	if err := jsonString(raw, &p.Name); err != nil {
		return p, invalid("request body: property %q: %v", "name", err)
	}
	if raw, ok = fields["categoryId"]; !ok {
		return p, invalid("request body: property %q is missing", "categoryId")
	}
	n, err := jsonInt64(raw)
	if err != nil {
		return p, invalid("request body: property %q: %v", "categoryId", err)
	}
	p.CategoryID = n
	if raw, ok = fields["status"]; ok {
		if err := jsonString(raw, &p.Status); err != nil {
			return p, invalid("request body: property %q: %v", "status", err)
		}
		if p.Status == "" {
			return p, invalid("request body: property %q: empty value", "status")
		}
	}
	return p, nil
}

// validateNewPet applies the value rules: name length and characters, status among values.
func validateNewPet(p NewPet, statusValues []string) error {
	n := utf8.RuneCountInString(p.Name)
	if n < nameMinRunes || n > nameMaxRunes {
		return invalid("name must be %d to %d characters long, got %d", nameMinRunes, nameMaxRunes, n)
	}
	for _, c := range p.Name {
		if unicode.IsControl(c) {
			return invalid("name must not contain control characters (found %U)", c)
		}
	}
	if p.Status != "" && !slices.Contains(statusValues, p.Status) {
		return invalid("status must be one of %v, got %q", statusValues, p.Status)
	}
	return nil
}

func jsonString(raw json.RawMessage, dst *string) error {
	if len(raw) == 0 || raw[0] != '"' {
		return errors.New("want a string")
	}
	return json.Unmarshal(raw, dst)
}

// jsonInt64 accepts a JSON number with no fractional part that fits int64 (1.0 and 1e3 are
// integers to JSON Schema, so they are to the server too).
func jsonInt64(raw json.RawMessage) (int64, error) {
	s := string(raw)
	if len(s) == 0 || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, errors.New("want an integer")
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	// Beyond 2^53 a float no longer says which integer was sent; refuse rather than round.
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, errors.New("want an integer in the int64 range")
	}
	return int64(f), nil
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

// LoadSeed reads a seed file: a JSON array of NewPet records (see testdata/pets.json). The
// values are checked against the spec when NewServer starts.
func LoadSeed(path string) ([]NewPet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("seed %s: want a JSON array of animals: %w", path, err)
	}
	pets := make([]NewPet, 0, len(entries))
	for i, raw := range entries {
		p, err := decodeNewPet(raw)
		if err != nil {
			return nil, fmt.Errorf("seed %s: entry %d: %s", path, i, err.(*Error).Message)
		}
		pets = append(pets, p)
	}
	return pets, nil
}

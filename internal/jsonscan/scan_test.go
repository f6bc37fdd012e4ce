package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

var scanSeeds = []string{
	``, ` `, `0`, `-0`, `01`, `1.`, `1.5e`, `1.5E+3`, `-`, `1e400`, `true`, `tru`, `null`, `nul`, `"a"`, `"a`, `"\u00e9\"\\\/\b\f\n\r\t"`,
	`"\x"`, `"\u12"`, "\"\x01\"", `[]`, `[,]`, `[1,]`, `[1 2]`, `{}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{"a":[{"b":null}],"c":"d"}`,
	` [ 1 , { "a" : true } ] `, `[] []`, `{"a":1}}`, strings.Repeat("[", 60) + strings.Repeat("]", 60),
	`{"a":1,"a":2}`, ` { "st\u0061tus" : "x" , "b" : { } } `, `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, `{"a":1} x`,
	"\"\xff\"", "{\"\xfe\":[\"\xc3\"]}",
}

// checkScan: a value Skip reads whole is one encoding/json accepts (invalid UTF-8 in a string
// included), and one encoding/json accepts is read whole unless it nests deeper than Skip
// follows.
func checkScan(t *testing.T, data []byte) {
	sc := New(data, Depth)
	read := sc.Skip() && sc.Done()
	if read {
		assert.True(t, json.Valid(data), "Skip read what is not JSON: %q", data)
	} else if len(data) <= 2*Depth {
		assert.False(t, json.Valid(data), "Skip did not read JSON: %q", data)
	}
	// Members are what encoding/json reads (which turns bad UTF-8 in a name into U+FFFD).
	if utf8.Valid(data) {
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil {
			want = nil
		}
		assert.Equal(t, want, Members(data), "%q", data)
	}
}

func TestScannerReadsWhatEncodingJSONReads(t *testing.T) {
	for _, s := range scanSeeds {
		checkScan(t, []byte(s))
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkScan(t, data) })
}

// Quoted is the string read last, with its quotes, however it is escaped.
func TestScannerQuoted(t *testing.T) {
	sc := New([]byte(` {"k\"ey" : "v\\\"al\u00e9", "x":1}`), Depth)
	more, ok := sc.Open('{')
	assert.True(t, more && ok)
	_, escaped, ok := sc.Key()
	assert.True(t, escaped && ok)
	assert.Equal(t, `"k\"ey"`, string(sc.Quoted()))
	raw, escaped, ok := sc.String()
	assert.True(t, escaped && ok)
	assert.Equal(t, `v\\\"al\u00e9`, string(raw))
	assert.Equal(t, `"v\\\"al\u00e9"`, string(sc.Quoted()))
}

// Skip and Value follow the nesting New was told, and no deeper.
func TestScannerDepth(t *testing.T) {
	for _, depth := range []int{0, 1, Depth, 256} {
		nest := func(n int, inner string) []byte {
			return []byte(strings.Repeat("[", n) + inner + strings.Repeat("]", n))
		}
		assert.True(t, New(nest(depth+1, ""), depth).Skip(), "%d empty arrays at depth %d", depth+1, depth)
		assert.False(t, New(nest(depth+2, ""), depth).Skip(), "%d empty arrays at depth %d", depth+2, depth)
		assert.True(t, New(nest(depth, "1"), depth).Skip(), "a number in %d arrays at depth %d", depth, depth)
		_, ok := New(nest(depth+1, "1"), depth).Value()
		assert.False(t, ok, "a number in %d arrays at depth %d", depth+1, depth)
	}
}

package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/gavv/httpexpect/v2"
)

// Animals as data. Ids are int64 in the spec, and a service may assign any of them
// (snowflake ids pass 2^53): they are kept as the JSON text the target sent (json.Number),
// compared as strings and put in paths as sent, never through float64.

// nameChars make up the random part of a created animal's name.
const nameChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// newName is a short unique name: the prefix and six random characters (18 in all), so
// that a store requiring unique or short names accepts every animal the harness creates.
func newName() string {
	b := make([]byte, 6)
	for i := range b {
		b[i] = nameChars[rand.IntN(len(nameChars))]
	}
	return NamePrefix + string(b)
}

// DecodeJSON reads data keeping numbers as written.
func DecodeJSON(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(out)
}

// IDOf is p's id as the target wrote it, and whether it is an integer.
func IDOf(p map[string]any) (string, bool) {
	n, ok := p["id"].(json.Number)
	if !ok {
		return fmt.Sprint(p["id"]), false
	}
	_, err := n.Int64()
	return n.String(), err == nil
}

// sameJSON reports whether a and b encode to the same JSON (json.Number as its text).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// expectObject decodes resp's body as one JSON object, recording a failure if it is not.
func expectObject(c *Check, resp *httpexpect.Response) (map[string]any, bool) {
	if code(resp) == 0 {
		return nil, false
	}
	var m map[string]any
	if err := DecodeJSON([]byte(resp.Body().Raw()), &m); err != nil || m == nil {
		c.Expectf("a JSON object", fmt.Sprintf("%.80s", resp.Body().Raw()), "the body is not a JSON object")
		return nil, false
	}
	return m, true
}

// expectList asserts resp is 200 with a JSON array of objects whose ids are distinct (a
// listing that repeats an animal breaks "unique identifier", section 2), and returns it.
func expectList(c *Check, resp *httpexpect.Response) ([]map[string]any, bool) {
	resp.Status(http.StatusOK)
	if code(resp) != http.StatusOK {
		return nil, false
	}
	var list []map[string]any
	if err := DecodeJSON([]byte(resp.Body().Raw()), &list); err != nil {
		c.Expectf("a JSON array of Pets", fmt.Sprintf("%.80s", resp.Body().Raw()), "the listing is not an array of objects")
		return nil, false
	}
	seen := map[string]bool{}
	for _, p := range list {
		id, _ := IDOf(p)
		if seen[id] {
			c.Expectf("distinct ids", "id "+id+" twice", "the listing holds the animal %s twice (section 2: the id is a unique identifier)", id)
			return list, false
		}
		seen[id] = true
	}
	return list, true
}

// compareFields fails for every documented Pet field of want that got lacks or holds
// differently.
func compareFields(c *Check, fields []string, want, got map[string]any, what string) {
	for _, k := range fields {
		w, ok := want[k]
		if !ok {
			continue
		}
		if g, ok := got[k]; !ok || !sameJSON(w, g) {
			gs, _ := json.Marshal(got[k])
			ws, _ := json.Marshal(w)
			c.Expectf(string(ws), string(gs), "%s: %s differs", what, k)
		}
	}
}

// Bounds of waiting for a target that shows what it stores only after a while.
const (
	VisibleWithin = 10 * time.Second
	firstBackoff  = 250 * time.Millisecond
)

// Eventually calls try until it says done, backing off, for at most VisibleWithin of
// waiting; it reports whether try succeeded.
func Eventually(ctx context.Context, wait func(context.Context, time.Duration) error, try func() bool) bool {
	waited, d := time.Duration(0), firstBackoff
	for {
		if try() {
			return true
		}
		if waited >= VisibleWithin || wait(ctx, d) != nil {
			return false
		}
		waited += d
		d = min(2*d, VisibleWithin-waited+time.Millisecond)
	}
}

// IDSet is the set of the ids of pets.
func IDSet(pets []map[string]any) map[string]bool {
	out := make(map[string]bool, len(pets))
	for _, p := range pets {
		id, _ := IDOf(p)
		out[id] = true
	}
	return out
}

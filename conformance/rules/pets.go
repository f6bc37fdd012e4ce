package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"

	"github.com/gavv/httpexpect/v2"
	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/judge"
)

// Animals as data. Ids are int64 in the spec, and a service may assign any of them
// (snowflake ids pass 2^53): they are kept as the JSON text the target sent (json.Number),
// compared as strings and put in paths as sent, never through float64.

// newName is a short unique name: the prefix and six random characters (18 in all), so
// that a store requiring unique or short names accepts every animal the harness creates.
func newName() string { return cases.RandomName(rand.IntN) }

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
	if err := judge.Decode([]byte(resp.Body().Raw()), &m); err != nil || m == nil {
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
	if err := judge.Decode([]byte(resp.Body().Raw()), &list); err != nil {
		c.Expectf("a JSON array of Pets", fmt.Sprintf("%.80s", resp.Body().Raw()), "the listing is not an array of objects")
		return nil, false
	}
	seen := map[string]bool{}
	for _, p := range list {
		id, _ := judge.IDOf(p)
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

package seqmutants

import (
	"encoding/json"
	"strconv"
)

// The plumbing of a wrapper (which requests, held-back replies, Error records) is
// conformance/mutants/kit; the ids of an animal are read and written here.

func idOf(m map[string]any) (int64, bool) {
	n, ok := m["id"].(json.Number)
	if !ok {
		return 0, false
	}
	id, err := n.Int64()
	return id, err == nil
}

func setID(m map[string]any, id int64) { m["id"] = json.Number(strconv.FormatInt(id, 10)) }

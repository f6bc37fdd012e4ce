package judge

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/spec"
)

// listPets' query parameters, as section 4.1 names them.
const (
	paramLimit  = "limit"
	paramStatus = "status"
)

// The messages of a listing's findings, for a caller that sorts them into rules of its own.
const (
	OverLimit   = "the listing holds more animals than the limit allows (4.1 rule 1; 8)"
	OtherStatus = "the listing holds an animal of another status than the filter (4.1 rule 2)"
)

// Listing is what a listPets request asks of its answer (section 4.1 rules 1-2; section 8).
type Listing struct {
	// Limit is the most animals the answer may hold: the limit when the request gives one
	// valid value, the default when it gives none, else the maximum (the document leaves
	// the answer to other values open, and no answer may hold more than the maximum).
	Limit int64
	// Statuses are the statuses its animals may have; nil: any (no filter, or a filter
	// that is not valid values only, whose answer the document leaves open).
	Statuses []string
	// Valid: the request gives at most one limit, within the bounds, and only status values
	// of the enumeration, so the document requires a 200 (section 4.1).
	Valid bool
}

// ListingAsked reads what a listPets request asks, from its query string as written (without
// the "?"): the parameters' names and bounds come from the facts.
func ListingAsked(f *spec.Facts, rawQuery string) Listing {
	var limits, statuses []string
	for _, pair := range strings.Split(rawQuery, "&") {
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, _ := url.QueryUnescape(rawName)
		v, err := url.QueryUnescape(rawValue)
		if err != nil {
			v = "\x00invalid" // no value the facts allow
		}
		switch name {
		case paramLimit:
			limits = append(limits, v)
		case paramStatus:
			statuses = append(statuses, v)
		}
	}
	l := Listing{Limit: f.Limit.Max}
	switch {
	case len(limits) == 0:
		l.Limit, l.Valid = f.Limit.Default, true
	case len(limits) == 1:
		if n, err := strconv.ParseInt(limits[0], 10, 64); err == nil && strconv.FormatInt(n, 10) == limits[0] && n >= f.Limit.Min && n <= f.Limit.Max {
			l.Limit, l.Valid = n, true
		}
	}
	for _, s := range statuses {
		if !slices.Contains(f.Statuses, s) {
			l.Valid = false
			return l
		}
	}
	if len(statuses) > 0 {
		l.Statuses = statuses
	}
	return l
}

// Judge checks the animals a listing answered (JSON objects, numbers as json.Number) against
// what was asked: at most the limit, and only animals of the filtered status. An animal
// without a status does not contradict the filter: the default status of a new animal is
// not shown (section 2), and a service may omit it. Only the first animal of another status
// is named.
func (l Listing) Judge(pets []map[string]any) []report.Failure {
	return l.JudgeEach(len(pets), func(i int) (string, bool) { st, ok := pets[i]["status"].(string); return st, ok },
		func(i int) string { return idText(pets[i]) })
}

// JudgeEach is Judge for n animals read otherwise: status gives the i-th animal's status
// when it is a string, id its id as the target wrote it.
func (l Listing) JudgeEach(n int, status func(i int) (string, bool), id func(i int) string) []report.Failure {
	var out []report.Failure
	if int64(n) > l.Limit {
		out = append(out, report.Failure{Level: report.Must, Expected: "at most " + Animals(l.Limit), Actual: Animals(int64(n)),
			Message: OverLimit})
	}
	if l.Statuses == nil {
		return out
	}
	for i := range n {
		if st, ok := status(i); ok && !slices.Contains(l.Statuses, st) {
			out = append(out, report.Failure{Level: report.Must,
				Expected: "status " + strings.Join(l.Statuses, " or "), Actual: fmt.Sprintf("status %q (id %s)", st, id(i)),
				Message: OtherStatus})
			break
		}
	}
	return out
}

// Animals says "1 animal" or "n animals".
func Animals(n int64) string { return words.Plural(int(n), "animal") }

// IDOf is p's id as the target wrote it, and whether it is an integer (int64).
func IDOf(p map[string]any) (string, bool) {
	n, ok := p["id"].(json.Number)
	if !ok {
		return fmt.Sprint(p["id"]), false
	}
	_, err := n.Int64()
	return n.String(), err == nil
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

// idText is an animal's id as the target wrote it.
func idText(p map[string]any) string {
	id, _ := IDOf(p)
	return id
}

// Package cases generates the request variants of every operation the spec defines, each
// with the verdict the interface document gives it: reject (the document requires an
// error), accept (it requires success) or open (it is silent). The variants come from the
// spec's schemas and parameters, never from literals, so a changed spec changes the cases.
//
// A Family is one value: its variants, verdicts, title and section. Family.Run sends its
// cases through the Sender the runner gives it (the run's exchange.Session), judges every
// answer by its case's verdict (the Error record, a listing and a created animal by
// conformance/judge), and shrinks a failing random combination with Shrink. Env and
// Fixture are what every rule of the catalogue runs with, a family's and a hand-written
// check's alike.
package cases

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// Verdict is what the interface document says of a request.
type Verdict int

// Verdicts.
const (
	// Accept: the document requires success, and what comes back (and is later got) must
	// equal what was sent.
	Accept Verdict = iota
	// Reject: the document requires an error: one of Case.Statuses with an Error body.
	Reject
	// Open: the document is silent. Anything passes but a 5xx, a 4xx without an Error body,
	// or a 2xx that contradicts the request.
	Open
)

var verdictNames = [...]string{Accept: "accept", Reject: "reject", Open: "open"}

func (v Verdict) String() string { return verdictNames[v] }

// Mutation is one change to an operation's valid request, with what the document says of it.
type Mutation struct {
	// Part is what the mutation changes: "auth", "body", "body.<field>", "header.<name>",
	// "query.<name>", "path.<name>". Two mutations of one part do not combine.
	Part string
	// Name is a short slug, unique within the operation.
	Name string
	// Words describe the variant ("categoryId = 9007199254740993, a valid int64 beyond 2^53").
	Words   string
	Verdict Verdict
	// Status is the documented status of a Reject (400, 401, 404).
	Status int
	// Section is the part of the interface document the verdict comes from.
	Section string
	// Level is what an answer against the verdict weighs (READINGS.md): Must unless the
	// readings put the variant lower (a name that is not UTF-8, accepted, is SHOULD).
	Level report.Severity
	// lookup marks a getPet id the run never saw: a 200 with that animal passes too.
	lookup bool
	// rangeProbe marks a valid int64 sent for a reference to a record the document does not
	// show: refusing it is open alone, but not beside accepting other made-up ones.
	rangeProbe bool
	// elsewhere marks a variant that makes the request another than the operation's
	// (Case.Elsewhere).
	elsewhere bool
	// allows, on an Open mutation, are the only refusals it leaves open (Case.Statuses); on a
	// Reject, the statuses that answer it besides Status.
	allows []int
	// notImplemented marks a value the standard answers with 501 where the server does not
	// implement it (an unknown method, RFC 9110 15.6.2): 501 joins Case.Answers5xx.
	notImplemented bool
	apply          func(*Request)
}

// Case is one request of a family, with its verdict.
type Case struct {
	// Op is the operationId.
	Op string
	// Name is unique within the operation: the slugs of its mutations joined by "+"
	// ("valid" for none).
	Name string
	// Words describe the variant: its mutations' words joined by "; ".
	Words   string
	Verdict Verdict
	// Statuses are the answers a Reject allows; empty on a Reject means any 4xx. On an Open
	// case they are the only refusals it allows (a body the document accepts but for its
	// framing or size: 411, 413); empty, any 4xx with an Error body.
	Statuses []int
	// Section is where the verdict comes from; Reason says why, where statements meet.
	Section, Reason string
	// Level is what an answer of a status against the verdict weighs: a Reject's the
	// strongest of its rejected mutations' levels (the service must refuse for the
	// strongest reason), an Accept's the weakest of its mutations' (a refusal may be for the
	// weakest). A 5xx, a 4xx without an Error body, or a success that contradicts the
	// request is MUST whatever the level.
	Level   report.Severity
	Request Request
	// Creates says a conforming service may create an animal for it.
	Creates bool
	// Lookup marks a getPet Reject(404) for an id the run never saw: a 200 with the
	// animal of that id passes too (the store may hold it).
	Lookup bool
	// RangeProbe marks a case that sends one valid int64 for a reference to a record the
	// document does not show (categoryId): a service may refuse an id it does not know, but
	// one that accepts other made-up ids and refuses this one is refusing a valid int64.
	RangeProbe bool
	// Keyless marks an open case sent without a valid key: whatever else it leaves open, a
	// success is never right (section 5.3).
	Keyless bool
	// Elsewhere marks a case whose request is another than the operation's (another method,
	// another host): a success is that resource's answer, not judged as the operation's.
	Elsewhere bool
	// Answers5xx are the 5xx that answer the request as well as a 4xx (the HTTP layer's 501
	// to a transfer coding it does not understand, RFC 9112 6.1; to a method it does not
	// implement, RFC 9110 15.6.2), with an Error body.
	Answers5xx []int

	mutations []Mutation
	base      Request
}

// Mutations are the changes the case makes to its operation's valid request.
func (c Case) Mutations() []Mutation { return c.mutations }

// Combine builds the case that applies ms (of distinct parts) to base, the operation's valid
// request, and derives its verdict from theirs:
//   - a rejected key is 401 whatever else the request holds (section 5.3 states the answer
//     to a missing or invalid key without condition, and section 4 puts authentication in
//     front of every operation: nothing else of the request is judged first);
//   - else a rejected part is its status, or any 4xx when an open part may be refused in a
//     way of its own (a charset the service does not take, say);
//   - else an open part leaves the case open; with none the case is accepted.
func Combine(op string, base Request, ms ...Mutation) Case {
	// Changes to the body as a whole go last: they write the bytes of the object the field
	// changes built.
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b Mutation) int { return boolInt(a.Part == "body") - boolInt(b.Part == "body") })
	c := Case{Op: op, base: base, mutations: ms, Request: base.Clone(), Verdict: Accept}
	var names, words, sections, reasons []string
	authRejected, openParts, anyStatus, openAny := false, false, false, false
	statuses, openStatuses := []int{}, []int{}
	// The strongest level of the rejected key, of the other rejected parts; the weakest of all.
	authLevel, rejectLevel, weakest := report.Advisory, report.Advisory, report.Must
	for _, m := range ms {
		weakest = weakest.Weaker(m.Level)
		m.apply(&c.Request)
		names, words = append(names, m.Name), append(words, m.Words)
		c.Lookup = c.Lookup || m.lookup && !slices.ContainsFunc(ms, func(a Mutation) bool { return a.Part == "auth" && a.Verdict == Reject })
		c.RangeProbe = len(ms) == 1 && m.rangeProbe
		c.Elsewhere = c.Elsewhere || m.elsewhere
		if m.notImplemented && !slices.Contains(c.Answers5xx, http.StatusNotImplemented) {
			c.Answers5xx = append(c.Answers5xx, http.StatusNotImplemented)
		}
		for _, st := range m.allows {
			if st >= 500 && !slices.Contains(c.Answers5xx, st) {
				c.Answers5xx = append(c.Answers5xx, st)
			}
		}
		if !slices.Contains(sections, m.Section) {
			sections = append(sections, m.Section)
		}
		switch m.Verdict {
		case Reject:
			if m.Part == "auth" {
				authRejected, authLevel = true, min(authLevel, m.Level)
				break
			}
			rejectLevel = min(rejectLevel, m.Level)
			if m.Status == 0 {
				anyStatus = true // any 4xx with an Error body
			}
			for _, st := range append([]int{m.Status}, m.allows...) {
				if st != 0 && !slices.Contains(statuses, st) {
					statuses = append(statuses, st) // the status, and those that answer it besides (501)
				}
			}
		case Open:
			openParts, openAny = true, openAny || len(m.allows) == 0
			for _, st := range m.allows {
				if !slices.Contains(openStatuses, st) {
					openStatuses = append(openStatuses, st)
				}
			}
		}
	}
	c.Level = weakest
	switch {
	case authRejected:
		c.Verdict, c.Statuses, c.Level = Reject, []int{http.StatusUnauthorized}, authLevel
		if len(ms) > 1 {
			reasons = append(reasons, "section 5.3 answers a missing or invalid key with 401 whatever else the request holds; "+
				"the other statuses are for requests that get past authentication (section 4: every operation requires it)")
		}
	case anyStatus:
		c.Verdict, c.Level = Reject, rejectLevel
	case len(statuses) > 0 && openParts:
		c.Verdict, c.Level = Reject, rejectLevel
		reasons = append(reasons, "a part the document leaves open may be refused in its own way, so any 4xx with an Error body passes")
	case len(statuses) > 0:
		c.Verdict, c.Statuses, c.Level = Reject, statuses, rejectLevel
	case openParts:
		c.Verdict = Open
		if !openAny {
			c.Statuses = openStatuses // every open part limits its refusals
		}
	}
	if len(ms) == 0 {
		names, words, sections = []string{"valid"}, []string{"the valid request"}, []string{""}
	}
	c.Name, c.Words = strings.Join(names, "+"), strings.Join(words, "; ")
	c.Section, c.Reason = strings.Join(sections, "; "), strings.Join(reasons, "; ")
	c.Creates = c.Request.Method == http.MethodPost && c.Verdict != Reject || NeedsOwnAnimal(c.Request.Path)
	return c
}

// OwnAnimal stands in a case's path for an animal the run creates for that case alone, just
// before sending it: a request that may change or remove what it names (RFC 9110 9.2.1)
// names only animals the run created, and each case its own, so that one case's DELETE does
// not decide another's answer.
const OwnAnimal = "{conformance-own-animal}"

// WithOwnAnimal is path with the OwnAnimal placeholder, as written or percent-encoded, replaced
// by id.
func WithOwnAnimal(path, id string) string {
	return strings.NewReplacer(OwnAnimal, id, ownAnimalEncoded, pctEncode(id)).Replace(path)
}

// ownAnimalEncoded is OwnAnimal percent-encoded, as a path may hold it.
var ownAnimalEncoded = pctEncode(OwnAnimal)

// NeedsOwnAnimal reports whether path names an animal the run must create first.
func NeedsOwnAnimal(path string) bool {
	return strings.Contains(path, OwnAnimal) || strings.Contains(path, ownAnimalEncoded)
}

// ImpossibleID is an id no animal can have: one past the largest int64 (section 2: ids are
// int64). A request of a method that may change what it names, and that does not need an
// animal of the run's own (a route the spec does not have, a key check), names this one.
const ImpossibleID = "9223372036854775808"

// Unsafe reports whether a request of method may change the store (RFC 9110 9.2.1).
func Unsafe(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// Shrink returns the smallest sub-combination of c's mutations (by greedy removal, one at
// a time, until no single removal keeps it failing) for which fails still holds. fails is
// called with each candidate; c itself is assumed to fail.
func Shrink(c Case, fails func(Case) bool) Case {
	for changed := true; changed && len(c.mutations) > 1; {
		changed = false
		for i := range c.mutations {
			ms := slices.Delete(slices.Clone(c.mutations), i, i+1)
			if cand := Combine(c.Op, c.base, ms...); fails(cand) {
				c, changed = cand, true
				break
			}
		}
	}
	return c
}

// ShrinkAround is Shrink for a combination built around a rejected key (its first mutation):
// the key alone, then the key with each other mutation, are tried, so that a service that
// judges one part of the request before the key is named in as many requests as the
// combination has parts. The key stays in what it returns: "no key and a malformed body got
// 400" is the finding, and the other part alone, with a valid key, may fail for a reason of
// its own, which its own family reports. A fault that needs three parts together is reported
// as the whole combination.
func ShrinkAround(c Case, fails func(Case) bool) Case {
	ms := c.mutations
	if len(ms) < 2 || ms[0].Part != "auth" {
		return Shrink(c, fails)
	}
	if cand := Combine(c.Op, c.base, ms[0]); fails(cand) {
		return cand
	}
	if len(ms) == 2 {
		return c
	}
	for _, m := range ms[1:] {
		if cand := Combine(c.Op, c.base, ms[0], m); fails(cand) {
			return cand
		}
	}
	// No part fails beside the key alone: the combination is reported as it is, key and all.
	return c
}

// Random returns n random combinations of op's mutations drawn from rng: each applies two to
// four mutations of distinct parts, from every family.
func (g *Generator) Random(op spec.Operation, rng *rand.Rand, n int) []Case {
	byPart := map[string][]Mutation{}
	var parts []string
	for _, fam := range Families {
		for _, m := range g.Mutations(op, fam) {
			if _, ok := byPart[m.Part]; !ok {
				parts = append(parts, m.Part)
			}
			byPart[m.Part] = append(byPart[m.Part], m)
		}
	}
	if len(parts) < 2 {
		return nil
	}
	out := make([]Case, 0, n)
	for range n {
		k := min(2+rng.IntN(3), len(parts))
		var ms []Mutation
		for _, i := range rng.Perm(len(parts))[:k] {
			choices := byPart[parts[i]]
			ms = append(ms, choices[rng.IntN(len(choices))])
		}
		out = append(out, Combine(op.ID, g.Valid(op), ms...))
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

package cases

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/spec"
)

// Family is one family of generated cases as the catalogue shows it: the rule it reports
// as (ID, title, section), the operation, the animals its cases need, and how its variants
// are drawn; each case carries its verdict. Run sends and judges it.
type Family struct {
	// ID is the rule ID ("createPet/cases-fields", "errors/cases-routes").
	ID string
	// Op is the operationId the cases exercise, "" for the routes.
	Op             string
	Section, Title string
	// Animals and PerStatus are the least numbers of animals, and of animals of every
	// status value, the store must hold for the cases (the runner prepares them).
	Animals, PerStatus int
	// Unsafe says the cases send methods that may change the store (RFC 9110 9.2.1).
	Unsafe bool

	facts *spec.Facts
	// stream names the family's draws from the run's seed (names, random combinations).
	stream string
	// knownAnimal: the cases ask for an animal of the fixture.
	knownAnimal bool
	// shrink: a failing case is shrunk to its smallest failing form (random combinations);
	// around: its combinations are built around a rejected key, which shrinking keeps.
	shrink, around bool
	draw           func(g *Generator, seed uint64) []Case
}

// familyText are the families that make one rule per operation, with their sections and
// titles.
var familyText = []struct{ family, section, title string }{
	{FamilyFields, "4.2; 2; 7", "every variant of each body property (absent, null, other types, boundaries, extremes, odd strings, enumeration values) gets the answer the document gives it"},
	{FamilyBody, "4.2; 1; 7", "every variant of the body as a whole (none, null, array, scalar, malformed, trailing data, BOM, duplicate keys, nesting, size) gets the answer the document gives it"},
	{FamilyHeaders, "4; 1", "Content-Type and Accept variants get the answer the document gives them"},
	{FamilyQuery, "4.1; 7; 8", "every variant of each query parameter (bounds, out of range, wrong type, encodings, repeats, unknown, combined) gets the answer the document gives it"},
	{FamilyPath, "4.3; 7", "every variant of each path parameter (known, unknown, extremes, wrong type, encodings) gets the answer the document gives it"},
	{FamilyAuth, "5.1; 5.2; 5.3", "every way of presenting the key, alone and with a request bad in another way, gets 401 where the key is missing or invalid (whatever else is wrong), and the answer the document gives it otherwise"},
	{FamilyAnatomy, "1; 4; 5.3; 7", "every part of the request a server, framework or front server may interpret (docs/anatomy.md: method, target, query, header fields, body coding and framing) gets the answer the document gives it: a part it gives no meaning leaves the answer unchanged, and without the key the answer is 401"},
}

// Catalogue returns the case families of f: one per family and operation that has such
// cases, then the routes no operation has.
func Catalogue(f *spec.Facts) []Family {
	g := New(Base{Reference: "1", KnownID: "1", Unknown: []string{"0"}, Name: func() string { return NamePrefix }})
	var out []Family
	for _, fam := range familyText {
		for _, op := range f.Ops {
			if len(g.Mutations(op, fam.family)) == 0 {
				continue
			}
			k := Family{ID: op.ID + "/cases-" + fam.family, Op: op.ID, Section: fam.section,
				Title: fmt.Sprintf("%s: %s", op.ID, fam.title), Unsafe: Unsafe(op.Method),
				facts: f, stream: op.ID + "/" + fam.family, knownAnimal: strings.Contains(op.Path, "{"),
				draw: func(g *Generator, _ uint64) []Case { return g.Cases(op, fam.family) },
				// The key's combinations with the rest: a failing one is shrunk to the part
				// the service judged before the key.
				shrink: fam.family == FamilyAuth, around: fam.family == FamilyAuth}
			// A listing's cases need more animals than the default limit, of every status (a
			// listing that ignores the default or the filter shows it); the cases of an
			// operation with a path parameter need an animal to ask for.
			switch {
			case fam.family == FamilyQuery:
				k.Animals, k.PerStatus = int(f.Limit.Default)+1, 1
			case k.knownAnimal:
				k.Animals = 1
			}
			out = append(out, k)
		}
	}
	return append(out, Family{ID: "errors/cases-routes", Section: "7; 4", Unsafe: true,
		Title: "a path no operation has, a trailing slash, or a method the spec does not give a path: never a 5xx, and a 4xx carries an Error record",
		facts: f, stream: "errors/cases-routes",
		draw: func(g *Generator, _ uint64) []Case { return g.Routes(f.Ops) }})
}

// Fuzz returns the families of n random combinations of variants (--fuzz), spread over the
// operations; a failing combination is shrunk.
func Fuzz(f *spec.Facts, n int) []Family {
	var out []Family
	per, extra := n/len(f.Ops), n%len(f.Ops)
	for i, op := range f.Ops {
		k := per
		if i < extra {
			k++
		}
		if k == 0 {
			continue
		}
		out = append(out, Family{ID: op.ID + "/cases-fuzz", Op: op.ID, Section: "4; 5; 7", Unsafe: Unsafe(op.Method),
			Title:   fmt.Sprintf("%s: %d random combinations of variants (--fuzz, --seed) get the answer the document gives them; a failing one is shrunk", op.ID, k),
			Animals: int(f.Limit.Default) + 1, facts: f, stream: op.ID + "/cases-fuzz", shrink: true,
			draw: func(g *Generator, seed uint64) []Case {
				return g.Random(op, rand.New(rand.NewPCG(seed, hash("fuzz/"+op.ID))), k)
			}})
	}
	return out
}

// Env is what a rule runs with besides where it sends (a family's cases and a hand-written
// check alike): the run's context and clock, the target, the animals found, and the budget.
type Env struct {
	Ctx context.Context
	// Now is the run's clock (--now), which decides whether removed operations are gone.
	Now time.Time
	// BaseURL is the target's base URL, without a trailing slash.
	BaseURL string
	Key     string
	// Wait sleeps between attempts (ending with ctx).
	Wait func(context.Context, time.Duration) error
	// Fixture holds the animals present after preparation.
	Fixture *Fixture
	// Prepared says the fixture holds what the rule's needs asked for. When preparation
	// failed it is false, and a rule judges only what its requests show without the
	// fixture (at most the limit, the filter exact, Error bodies), skipping the rest.
	Prepared bool
	Budget   Budget
}

// Fixture is what the runner found (and created) before the rules ran, and what valid
// requests are built from: raw JSON objects as the target returned them (numbers as
// json.Number), in listing order.
type Fixture struct {
	// Pets is the listing with the maximum limit.
	Pets []map[string]any
	// ByStatus is the listing filtered by each status value.
	ByStatus map[string][]map[string]any
	// Empty is the first listing preparation made that held no animal, before the run
	// created any; nil when each held some.
	Empty *Listing
	// Reference is the categoryId valid bodies send, as JSON: one a listed animal has.
	Reference string
	// NewPet is a valid createPet body, for an animal a case creates to act on.
	NewPet func() map[string]any
	// Listed says preparation's unfiltered listing answered 200: a listing that answers a
	// 5xx after the cases is then something they changed.
	Listed bool
}

// Listing is a listing as preparation sent and got it.
type Listing struct {
	Request string // "GET /pets?limit=100"
	Body    []byte // as answered
}

// Budget bounds a run's cases; the runner shares one among its families.
type Budget struct {
	// Seed drives the names and the random combinations.
	Seed uint64
	// Strength is the strength of the combinations of a rejected key with the other variants
	// (0: DefaultStrength); Depth how much of the request space is sent.
	Strength int
	Depth    Depth
	// Workers is how many cases of a family may be in flight at once.
	Workers  int
	ReadOnly bool
	// NoKeyElsewhere keeps the cases that offer the key outside the Authorization header
	// (query, cookie, other fields) from the target: they are counted as not sent.
	NoKeyElsewhere bool
	// MaxCreates caps the animals the run creates; Reserve claims room for n more under it
	// while a case runs (nil release: none left).
	MaxCreates int
	Reserve    func(n int) (release func())
	// WaitedInVain: a created animal never showed up, so later cases do not wait again.
	WaitedInVain *atomic.Bool
}

// Outcome is what a family's run counts: the cases sent and those not, with why; Skip is
// why the family could not run at all, Panicked what a case's code panicked with.
type Outcome struct {
	Ran, Skipped int
	SkipWhy      string
	Skip         string
	Panicked     string
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Cost is what f sends at depth d with the default strength: its cases, and its requests
// (a case's own animal, getPet of an animal a case created, the refused-write oracle's
// listings), as a run against a store that answers as the document says would send them.
func (f *Family) Cost(d Depth) (cases, requests int) {
	g := New(Base{Reference: "1", KnownID: "1", Unknown: []string{"0"}, Name: func() string { return NamePrefix + "cost" }}).
		Combinations(1, DefaultStrength).Deep(d)
	creates := false
	for _, k := range f.draw(g, 1) {
		cases++
		requests++
		if NeedsOwnAnimal(k.Request.Path) {
			requests++
		}
		if k.Op == spec.OpCreate && k.Verdict == Accept {
			requests++ // getPet of the animal created
		}
		creates = creates || k.Op == spec.OpCreate
	}
	if creates {
		requests += 1 + len(f.facts.Statuses) // the refused-write oracle's listings, were a create refused
	}
	return cases, requests
}

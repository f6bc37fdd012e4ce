package double

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// Varied answers (Config.Double.Vary, petstore serve --vary SEED): the server takes, per
// run, the choices the interface document leaves open that naive clients get wrong, each
// answer still one the document and the spec allow. The seed picks them; the same seed
// picks the same ones. They sit above the pure reference and its store: ids are translated
// both ways by a bijection, listings are reordered and cut after the store returns them.
//
// Choices this layer does not make, because the document forbids them: an empty page while
// animals exist (limit=1 returns exactly one, 4.1; so a page is cut only from 2 animals and
// never below 1), more animals than the limit, an animal of another status than the filter,
// a stored animal that differs from what was sent, a status code the spec does not document
// for a key that is valid (only 429 and 503, which a gateway may answer before the service,
// with Retry-After). A short page while more animals exist is a SHOULD of the readings
// (listPets/default-limit-exact and limit-max-full warn), so a varied server is conforming
// and not strictly so when it cuts pages.

// VaryChoices are the open choices a seed picks.
type VaryChoices struct {
	Seed uint64
	// IDs is how ids are shown: IDsConsecutive (the store's 1, 2, 3 ...), IDsGaps (small,
	// ascending, with gaps) or IDsBeyond53 (above 2^53, scattered: a float64 cannot hold them).
	IDs string
	// Order is the order of a listing's page: OrderInsertion, OrderReversed or OrderShuffled.
	Order string
	// ShortPages cuts half of the listings of 2 animals or more to between half and all but one.
	ShortPages bool
	// Names adds animals to the seed whose names hold non-ASCII, astral and right-to-left text.
	Names bool
	// Headers adds response headers the spec does not name (X-Request-Id, Server-Timing,
	// Cache-Control).
	Headers bool
	// Chunked sends bodies in pieces with chunked transfer coding, without Content-Length.
	Chunked bool
	// Jitter is the most an answer is delayed (a random share of it each time); 0: none.
	Jitter time.Duration
	// FaultEvery answers every FaultEvery-th API request (counted from the first) 429 or
	// 503 with Retry-After: FaultRetryAfter, before the key is checked; 0: never.
	FaultEvery int
}

// The values of VaryChoices.IDs and VaryChoices.Order.
const (
	IDsConsecutive = "consecutive"
	IDsGaps        = "gaps"
	IDsBeyond53    = "beyond-2^53"

	OrderInsertion = "insertion"
	OrderReversed  = "reversed"
	OrderShuffled  = "shuffled"
)

// FaultRetryAfter is the Retry-After of the 429 and 503 answers of a varied server, in seconds.
const FaultRetryAfter = 1

// ChooseVariations returns the choices seed picks. Seed 0 picks none (the plain reference).
func ChooseVariations(seed uint64) VaryChoices {
	c := VaryChoices{Seed: seed, IDs: IDsConsecutive, Order: OrderInsertion}
	if seed == 0 {
		return c
	}
	rng := rand.New(rand.NewPCG(seed, 0x7661727920636e73)) // "vary cns"
	c.IDs = []string{IDsBeyond53, IDsBeyond53, IDsGaps, IDsConsecutive}[rng.IntN(4)]
	c.Order = []string{OrderShuffled, OrderReversed, OrderInsertion}[rng.IntN(3)]
	c.ShortPages = rng.IntN(3) > 0
	c.Names = rng.IntN(3) > 0
	c.Headers = rng.IntN(2) == 0
	c.Chunked = rng.IntN(2) == 0
	if rng.IntN(2) == 0 {
		c.Jitter = time.Duration(1+rng.IntN(20)) * time.Millisecond
	}
	if rng.IntN(3) > 0 {
		c.FaultEvery = 40 + rng.IntN(60)
	}
	return c
}

// String is the start line's account of the choices.
func (c VaryChoices) String() string {
	var parts []string
	add := func(on bool, s string) {
		if on {
			parts = append(parts, s)
		}
	}
	parts = append(parts, "ids "+c.IDs, "listing order "+c.Order)
	add(c.ShortPages, "short pages")
	add(c.Names, fmt.Sprintf("%d animals with non-ASCII, astral and right-to-left names in the seed", len(varyNames)))
	add(c.Headers, "extra response headers")
	add(c.Chunked, "chunked bodies")
	add(c.Jitter > 0, "latency jitter up to "+c.Jitter.String())
	add(c.FaultEvery > 0, fmt.Sprintf("a 429 or 503 with Retry-After: %d every %d requests", FaultRetryAfter, c.FaultEvery))
	return fmt.Sprintf("vary seed %d: %s", c.Seed, strings.Join(parts, ", "))
}

// varyNames are the seed animals of VaryChoices.Names: Latin with diacritics, Hebrew and
// Arabic (right to left), astral characters (outside the Basic Multilingual Plane, two
// UTF-16 units each) and a joined emoji sequence.
var varyNames = []core.NewPet{
	{Name: "Zoë Ångström", CategoryID: 1, Status: "available"},
	{Name: "שׁוּעָל", CategoryID: 2, Status: "pending"},
	{Name: "قطة مشمش", CategoryID: 3, Status: "sold"},
	{Name: "𝒜𝓁𝒻 🐕", CategoryID: 1, Status: "available"},
	{Name: "🐈\u200d⬛ Noir", CategoryID: 2},
}

// Seeded returns the seed a varied server starts with: the given one, then varyNames (the one
// without a status gets the spec's first value where the spec requires one).
func (c VaryChoices) Seeded(given []core.NewPet, facts *spec.Facts) []core.NewPet {
	if !c.Names {
		return given
	}
	out := append(append([]core.NewPet(nil), given...), varyNames...)
	if !core.StatusRequired(facts) {
		return out
	}
	for i := len(given); i < len(out); i++ {
		if out[i].Status == "" {
			out[i].Status = facts.Statuses[0]
		}
	}
	return out
}

// idMap shows the store's ids to clients and back: public is a bijection from the store's
// ids (1 to 2^40-1) onto the public ids it yields.
type idMap struct {
	mode   string
	base   int64  // IDsGaps: the id of store id 0; IDsBeyond53: 2^53 plus an offset
	step   int64  // IDsGaps: between two consecutive store ids
	mul    uint64 // IDsBeyond53: odd, so invertible modulo 2^40
	inv    uint64 // its inverse modulo 2^40
	xor    uint64 // below 2^40
	absent int64  // the store id no animal has, for a public id no store id maps to
}

const idBits = 40

func newIDMap(c VaryChoices) idMap {
	rng := rand.New(rand.NewPCG(c.Seed, 0x6964206d6170)) // "id map"
	m := idMap{mode: c.IDs, absent: math.MaxInt64}
	switch c.IDs {
	case IDsGaps:
		m.base, m.step = 1000+rng.Int64N(9000), 2+rng.Int64N(18)
	case IDsBeyond53:
		// Below 2^62 in all, so that a client adding to an id does not overflow int64.
		m.base = 1<<53 + rng.Int64N(1<<61)
		m.mul = rng.Uint64()&(1<<idBits-1) | 1
		m.inv = inverseOdd(m.mul)
		m.xor = rng.Uint64() & (1<<idBits - 1)
	}
	return m
}

// inverseOdd is a's inverse modulo 2^idBits (Newton's iteration; a is odd).
func inverseOdd(a uint64) uint64 {
	x := a
	for range 6 {
		x *= 2 - a*x
	}
	return x & (1<<idBits - 1)
}

// public is the id a client sees for store id n.
func (m idMap) public(n int64) int64 {
	switch m.mode {
	case IDsGaps:
		return m.base + n*m.step
	case IDsBeyond53:
		return m.base + int64((uint64(n)*m.mul)&(1<<idBits-1)^m.xor)
	}
	return n
}

// store is the store id of public id p, or absent when no store id maps to p.
func (m idMap) store(p int64) int64 {
	switch m.mode {
	case IDsGaps:
		if p <= m.base || (p-m.base)%m.step != 0 {
			return m.absent
		}
		return (p - m.base) / m.step
	case IDsBeyond53:
		x := p - m.base
		if p < m.base || x >= 1<<idBits {
			return m.absent
		}
		n := int64(((uint64(x) ^ m.xor) * m.inv) & (1<<idBits - 1))
		if n == 0 {
			return m.absent
		}
		return n
	}
	return p
}

// rewrite replaces every "id" member of the JSON objects in body (the store's encoding of
// animals) with its public id. The bytes `"id":` right after `{` or `,` are a member name:
// inside a JSON string a quote is escaped.
func (m idMap) rewrite(body []byte) []byte {
	if m.mode == IDsConsecutive {
		return body
	}
	const key = `"id":`
	out := make([]byte, 0, len(body)+len(body)/4)
	for i := 0; i < len(body); {
		j := strings.Index(string(body[i:]), key)
		if j < 0 {
			return append(out, body[i:]...)
		}
		j += i
		start := j + len(key)
		end := start
		for end < len(body) && (body[end] >= '0' && body[end] <= '9' || body[end] == '-') {
			end++
		}
		n, err := strconv.ParseInt(string(body[start:end]), 10, 64)
		out = append(out, body[i:start]...)
		if j == 0 || (body[j-1] != '{' && body[j-1] != ',') || err != nil {
			i = start
			continue
		}
		out = strconv.AppendInt(out, m.public(n), 10)
		i = end
	}
	return out
}

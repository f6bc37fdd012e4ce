package double

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The same seed picks the same choices, and seed 0 none.
func TestChooseVariationsIsTheSeeds(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		assert.Equal(t, ChooseVariations(seed), ChooseVariations(seed))
	}
	assert.Equal(t, VaryChoices{IDs: IDsConsecutive, Order: OrderInsertion}, ChooseVariations(0))
}

// Every id mode is a bijection between the store's ids and the public ones: each public id
// goes back to its store id, an id no store id maps to goes to one no animal has, and the
// public ids of IDsBeyond53 are above 2^53, not in the store's order, and below 2^62.
func TestIDMapIsABijection(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		c := ChooseVariations(seed)
		m := newIDMap(c)
		seen := map[int64]bool{}
		ascending := true
		for n := int64(1); n <= 2000; n++ {
			p := m.public(n)
			require.False(t, seen[p], "seed %d: public id %d twice", seed, p)
			seen[p] = true
			require.Equal(t, n, m.store(p), "seed %d: store id of %d", seed, p)
			if n > 1 && p < m.public(n-1) {
				ascending = false
			}
			if c.IDs == IDsBeyond53 {
				require.Greater(t, p, int64(1<<53))
				require.Less(t, p, int64(1<<62))
			}
		}
		assert.Equal(t, c.IDs != IDsBeyond53, ascending, "seed %d: %s", seed, c.IDs)
		rng := rand.New(rand.NewPCG(seed, 1))
		for range 2000 {
			p := rng.Int64()
			if !seen[p] {
				n := m.store(p)
				assert.True(t, n == m.absent || n > 2000 || m.public(n) == p, "seed %d: %d", seed, p)
			}
		}
		n := m.store(math.MaxInt64) // the harness's unknown id: no animal's
		assert.True(t, n == m.absent || n > math.MaxInt32, "seed %d: %d", seed, n)
	}
}

// rewrite changes the ids of the animals and nothing else: a name that holds "id": stays.
func TestIDMapRewritesOnlyIDMembers(t *testing.T) {
	m := newIDMap(VaryChoices{Seed: 9, IDs: IDsGaps})
	body := `[{"id":1,"name":"{\"id\":2,","categoryId":3},{"id":22,"name":"x","categoryId":1}]` + "\n"
	want := `[{"id":` + itoa(m.public(1)) + `,"name":"{\"id\":2,","categoryId":3},{"id":` + itoa(m.public(22)) + `,"name":"x","categoryId":1}]` + "\n"
	assert.Equal(t, want, string(m.rewrite([]byte(body))))
	assert.Equal(t, body, string(newIDMap(VaryChoices{IDs: IDsConsecutive}).rewrite([]byte(body))))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

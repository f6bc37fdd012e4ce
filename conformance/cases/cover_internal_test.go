package cases

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every t levels of t distinct factors are in some row, for strengths 1 to 3, and the rows
// are far fewer than every combination.
func TestCoverCoversEveryTuple(t *testing.T) {
	levels := []int{11, 13, 0, 12, 5, 1, 7}
	for strength := 1; strength <= 3; strength++ {
		rows := cover(levels, strength, rand.New(rand.NewPCG(1, 2)), -1)
		var live []int
		for f, n := range levels {
			if n > 0 {
				live = append(live, f)
			}
		}
		var check func(start int, fs, ls []int)
		missing := 0
		check = func(start int, fs, ls []int) {
			if len(fs) == strength {
				for _, r := range rows {
					hit := true
					for i, f := range fs {
						hit = hit && r[f] == ls[i]
					}
					if hit {
						return
					}
				}
				missing++
				return
			}
			for i := start; i < len(live); i++ {
				f := live[i]
				for l := range levels[f] {
					check(i+1, append(fs, f), append(ls, l))
				}
			}
		}
		check(0, nil, nil)
		assert.Zero(t, missing, "strength %d", strength)
		for _, r := range rows {
			assert.Equal(t, -1, r[2], "a factor without levels stays unset")
		}
		lower := 1
		for i := 0; i < strength; i++ {
			lower *= []int{13, 12, 11}[i]
		}
		assert.GreaterOrEqual(t, len(rows), lower)
		assert.Less(t, len(rows), 2*lower, "strength %d: %d rows for a lower bound of %d", strength, len(rows), lower)
		t.Logf("strength %d: %d rows (lower bound %d)", strength, len(rows), lower)
	}
	assert.Nil(t, cover([]int{0, 0}, 2, rand.New(rand.NewPCG(1, 2)), -1))

	// Anchored on factor 0: every pair with it, in about as many rows as its largest product.
	rows := cover(levels, 2, rand.New(rand.NewPCG(1, 2)), 0)
	for f := 1; f < len(levels); f++ {
		for a := range levels[0] {
			for b := range levels[f] {
				found := false
				for _, r := range rows {
					found = found || r[0] == a && r[f] == b
				}
				assert.True(t, found, "factor 0 level %d with factor %d level %d", a, f, b)
			}
		}
	}
	assert.Less(t, len(rows), 11*13+20, "anchored: %d rows", len(rows))
}

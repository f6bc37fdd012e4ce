package cases

import (
	"math/rand/v2"
	"slices"
)

// cover returns the rows of a covering array of strength t over factors of the given numbers
// of levels: for every t factors, every combination of their levels is in some row, so every
// t-way interaction of the variants is sent at least once with far fewer requests than every
// combination. Each row holds a level of every factor. The construction is greedy (each row
// the best of a few candidates at covering what no row covers yet, as in AETG) and drawn from
// rng, so a seed gives the same rows; a level that covers nothing new is the lowest, so a
// caller can make level 0 the cheap one. Factors with no level are left at -1. With anchor at a
// factor (not -1), only the combinations that include it must be covered: a mixed-strength
// array, as small as that factor's interactions allow.
func cover(levels []int, t int, rng *rand.Rand, anchor int) [][]int {
	var live []int // the factors with levels
	for f, n := range levels {
		if n > 0 {
			live = append(live, f)
		}
	}
	t = min(t, len(live))
	if t == 0 {
		return nil
	}
	// Every set of t factors, and which of its level combinations no row covers yet.
	type tuple struct {
		factors []int
		open    []bool // indexed by the mixed-radix number of the levels
		left    int
	}
	var tuples []*tuple
	byFactor := make([][]*tuple, len(levels))
	var choose func(start int, picked []int)
	choose = func(start int, picked []int) {
		if len(picked) == t {
			if anchor >= 0 && !slices.Contains(picked, anchor) {
				return
			}
			size := 1
			for _, f := range picked {
				size *= levels[f]
			}
			tp := &tuple{factors: append([]int(nil), picked...), open: make([]bool, size), left: size}
			for i := range tp.open {
				tp.open[i] = true
			}
			tuples = append(tuples, tp)
			for _, f := range picked {
				byFactor[f] = append(byFactor[f], tp)
			}
			return
		}
		for i := start; i < len(live); i++ {
			choose(i+1, append(picked, live[i]))
		}
	}
	choose(0, nil)
	left := 0
	for _, tp := range tuples {
		left += tp.left
	}
	// index is the combination row gives tp's factors; ok false while one is unset.
	index := func(tp *tuple, row []int) (int, bool) {
		i := 0
		for _, f := range tp.factors {
			if row[f] < 0 {
				return 0, false
			}
			i = i*levels[f] + row[f]
		}
		return i, true
	}
	candidates := 8
	if t > 2 {
		candidates = 2
	}
	var rows [][]int
	for left > 0 && len(tuples) > 0 {
		var best []int
		bestScore := -1
		for range candidates {
			row := make([]int, len(levels))
			for i := range row {
				row[i] = -1
			}
			// Start from a combination not covered yet, so that every row covers one at least.
			var seed *tuple
			for _, i := range rng.Perm(len(tuples)) {
				if tuples[i].left > 0 {
					seed = tuples[i]
					break
				}
			}
			open := rng.IntN(seed.left)
			for i, o := range seed.open {
				if !o {
					continue
				}
				if open == 0 {
					for j := len(seed.factors) - 1; j >= 0; j-- {
						f := seed.factors[j]
						row[f] = i % levels[f]
						i /= levels[f]
					}
					break
				}
				open--
			}
			// The other factors, in random order, each at the level that covers the most.
			for _, k := range rng.Perm(len(live)) {
				f := live[k]
				if row[f] >= 0 {
					continue
				}
				// Ties go to the lowest level: where nothing new is covered, level 0.
				bestLevel, most := 0, -1
				for l := range levels[f] {
					row[f] = l
					n := 0
					for _, tp := range byFactor[f] {
						if i, ok := index(tp, row); ok && tp.open[i] {
							n++
						}
					}
					if n > most {
						bestLevel, most = l, n
					}
				}
				row[f] = bestLevel
			}
			score := 0
			for _, tp := range tuples {
				if i, _ := index(tp, row); tp.open[i] {
					score++
				}
			}
			if score > bestScore {
				best, bestScore = row, score
			}
		}
		for _, tp := range tuples {
			if i, _ := index(tp, best); tp.open[i] {
				tp.open[i] = false
				tp.left--
				left--
			}
		}
		rows = append(rows, best)
	}
	return rows
}

package exchange

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The time a run waited is the union of its workers' waits: six workers waiting out one
// Retry-After: 1 together waited 1 s, not 6 s (a 5 s run once said "6 answers (6.0 s in all)").
func TestWaitsAreTheUnionOfTheWorkersWaits(t *testing.T) {
	var w waits
	t0 := time.Unix(1000, 0)
	for i := range 6 {
		w.add(t0.Add(time.Duration(i)*time.Millisecond), time.Second)
	}
	assert.Equal(t, time.Second+5*time.Millisecond, w.sum(), "six overlapping waits of 1 s")

	assert.Equal(t, time.Second+5*time.Millisecond, w.add(t0.Add(500*time.Millisecond), 100*time.Millisecond), "a wait inside another adds nothing")
	assert.Equal(t, 2*time.Second+5*time.Millisecond, w.add(t0.Add(10*time.Second), time.Second), "a later wait adds all of itself")
	assert.Equal(t, 2*time.Second+505*time.Millisecond, w.add(t0.Add(10500*time.Millisecond), time.Second), "a wait that outlasts the last adds its tail")
}

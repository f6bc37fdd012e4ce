package cases

import (
	"context"
	"time"
)

// NamePrefix starts the name of every animal the harness creates, so that later runs can
// recognise (and reuse) them and a person can tell them apart.
const NamePrefix = "conformance-"

// nameChars make up the random part of a created animal's name.
const nameChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// RandomName is a short unique name: the prefix and six characters drawn with intn (18 in
// all), so that a store requiring unique or short names accepts every animal the harness
// creates. A seeded intn draws the same names again.
func RandomName(intn func(int) int) string {
	b := make([]byte, 6)
	for i := range b {
		b[i] = nameChars[intn(len(nameChars))]
	}
	return NamePrefix + string(b)
}

// Bounds of waiting for a target that shows what it stores only after a while.
const (
	VisibleWithin = 10 * time.Second
	firstBackoff  = 250 * time.Millisecond
)

// Eventually calls try until it says done, backing off, for at most VisibleWithin of
// waiting; it reports whether try succeeded.
func Eventually(ctx context.Context, wait func(context.Context, time.Duration) error, try func() bool) bool {
	waited, d := time.Duration(0), firstBackoff
	for {
		if try() {
			return true
		}
		if waited >= VisibleWithin || wait(ctx, d) != nil {
			return false
		}
		waited += d
		d = min(2*d, VisibleWithin-waited+time.Millisecond)
	}
}

package conformance

import (
	"context"
	"time"
)

// NoWait makes every retry and re-list of a run instant, so tests never sleep; waited, if
// not nil, adds up what the run would have waited.
func NoWait(o *Options, waited *time.Duration) {
	o.Wait = func(ctx context.Context, d time.Duration) error {
		if waited != nil {
			*waited += d
		}
		return ctx.Err()
	}
}

package double

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/reference/internal/core"
)

// clock is the server's clock when it can be moved (Config.AdminKey): Config.Now plus an
// offset. Time goes on from an instant that is set, as it does from the one --now sets.
type clock struct {
	base   func() time.Time
	offset atomic.Int64 // nanoseconds
}

func (c *clock) now() time.Time { return c.base().Add(time.Duration(c.offset.Load())) }

// set moves the clock to t; an instant too far away for a time.Duration is refused.
func (c *clock) set(t time.Time) error {
	base := c.base()
	d := t.Sub(base)
	if !base.Add(d).Equal(t) {
		return core.Invalid("%s is too far from the server's clock (%s)", t.Format(time.RFC3339), base.Format(time.RFC3339))
	}
	c.offset.Store(int64(d))
	return nil
}

// restore undoes every set: the clock is Config.Now again.
func (c *clock) restore() { c.offset.Store(0) }

// ParseTime reads an instant as --now and POST /_admin/clock take it: a date (2031-01-01,
// midnight UTC) or an RFC 3339 time (2031-01-01T12:00:00Z).
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date (2031-01-01) nor an RFC 3339 time (2031-01-01T12:00:00Z)", s)
	}
	return t, nil
}

package explore

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/petstore/petstore/conformance/report"
)

// Causes. Explore counts the violations of one cause as one finding, as conformance run counts
// the failures of one message on one spec node as one cause: its rule, the operation and the
// status answered, and where the message names what was wrong (the description's check, the
// Error record, the field stored otherwise) that message with its values blanked and the
// spec node. Ids, names, times and 5xx bodies differ from one meeting of a fault to the next;
// how the key was sent and the kind of input would make five findings of a store that fails
// every listing once it is large: all are left out (docs/harness.md).

// causeOf is the cause of v, met at step st answered status (0: no answer).
func causeOf(v *Violation, st Step, status int) string {
	var b strings.Builder
	b.WriteString(v.Rule + ": " + st.Op)
	if status == 0 {
		b.WriteString(": no answer")
	} else {
		b.WriteString(" answered " + strconv.Itoa(status))
	}
	if v.detail != "" {
		b.WriteString(": " + v.detail)
	}
	return b.String()
}

// detailOf is what a failure of the session's checks says, its values blanked, and the
// spec node it breaks: the part of a cause that tells one broken check from another.
func detailOf(f report.Failure) string {
	d := report.BlankValues(f.Message)
	if f.Pointer != "" {
		d += " (" + f.Pointer + ")"
	}
	return d
}

// causes are the causes of the findings made so far, each with the number of times the
// exploration met it. It is written only between phases, when no worker runs.
type causes map[string]*atomic.Int64

// met counts a meeting of cause c and says whether c was known.
func (c causes) met(cause string) bool {
	n, ok := c[cause]
	if ok {
		n.Add(1)
	}
	return ok
}

package diff

import (
	"fmt"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/spec"
)

// sunsets compares the removal dates (x-sunset) of the operations both versions have. A date
// brought forward breaks clients that planned on the old one, however far away the new date
// is; a date pushed back does not. oasdiff reports a shortened sunset only inside a grace
// period counted from today, which would make the verdict depend on the day it runs.
func sunsets(base, head *openapi3.T, today time.Time) []Change {
	if base.Paths == nil || head.Paths == nil {
		return nil
	}
	out := removedAfterSunset(base, head, today)
	for path, headItem := range head.Paths.Map() {
		baseItem := base.Paths.Value(path)
		if headItem == nil || baseItem == nil {
			continue
		}
		for method, headOp := range headItem.Operations() {
			baseOp := baseItem.GetOperation(method)
			if headOp == nil || baseOp == nil {
				continue
			}
			was, okWas := sunset(baseOp)
			now, okNow := sunset(headOp)
			if !okWas || !okNow || was.Equal(now) {
				continue
			}
			c := Change{
				Kind:        SunsetPostponed,
				Method:      strings.ToUpper(method),
				Path:        path,
				OperationID: headOp.OperationID,
				Message: fmt.Sprintf("the removal date (x-sunset) moved from %s to %s",
					was.Format(time.DateOnly), now.Format(time.DateOnly)),
				Check: spec.ExtSunset,
			}
			if now.Before(was) {
				c.Kind, c.Breaking = SunsetBroughtForward, true
			}
			out = append(out, c)
		}
	}
	return out
}

// removedAfterSunset lists the operations removed on or after their removal date, which
// oasdiff rightly does not count as breaking but does not list at all: a removal is always
// worth a line in the report.
func removedAfterSunset(base, head *openapi3.T, today time.Time) []Change {
	var out []Change
	for path, baseItem := range base.Paths.Map() {
		headItem := head.Paths.Value(path)
		for method, baseOp := range baseItem.Operations() {
			if headItem != nil && headItem.GetOperation(method) != nil {
				continue
			}
			date, ok := sunset(baseOp)
			if !baseOp.Deprecated || !ok || today.Before(date) {
				continue
			}
			out = append(out, Change{
				Kind:        OperationRemoved,
				Method:      strings.ToUpper(method),
				Path:        path,
				OperationID: baseOp.OperationID,
				Message:     fmt.Sprintf("deprecated operation removed on or after its removal date %s", date.Format(time.DateOnly)),
				Check:       spec.ExtSunset,
			})
		}
	}
	return out
}

func sunset(op *openapi3.Operation) (time.Time, bool) {
	s, ok := op.Extensions[spec.ExtSunset].(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

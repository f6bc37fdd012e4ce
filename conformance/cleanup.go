package conformance

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/wire"
	"github.com/petstore/petstore/spec"
)

// deleteOp is the spec's operation that removes one animal by id (DELETE on the create
// operation's path and one path parameter), if it has one.
func deleteOp(f *spec.Facts) (spec.Operation, bool) {
	items := f.ByID[spec.OpCreate].Path + "/{"
	for _, op := range f.Ops {
		if op.Method == http.MethodDelete && strings.HasPrefix(op.Path, items) && strings.Count(op.Path, "{") == 1 && strings.HasSuffix(op.Path, "}") {
			return op, true
		}
	}
	return spec.Operation{}, false
}

// cleanUp removes the animals the run created and still holds, when the spec has an
// operation to do so and the run was not asked to keep them (--keep), and records in the
// report how many it removed and left. It runs after the rules, on a context of its own:
// an interrupted run still tidies up after itself (within the request timeout per animal).
func (r *runner) cleanUp() {
	defer func() {
		r.report.AnimalsRemoved = r.sess.Removed()
		r.report.AnimalsLeft = len(r.sess.Owned())
	}()
	op, ok := deleteOp(r.facts)
	if !ok || r.opts.Keep {
		return
	}
	ctx := context.WithoutCancel(r.ctx)
	ids := r.sess.Owned()
	sem := make(chan struct{}, r.opts.Workers)
	var wg sync.WaitGroup
	for _, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			// The session notes what the answer shows removed.
			r.sess.SendRequest(ctx, wire.Request{Method: http.MethodDelete, Path: cases.FillPath(op.Path, id)})
		})
	}
	wg.Wait()
}

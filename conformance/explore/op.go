package explore

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// operation is one operation of the spec as explore sends it, in a file of its own (op_*.go).
// What a step sends and how it reads follow from its fields (runner.resolve, Step.String).
type operation interface {
	// draw draws a step; ok is false when there is none to draw now.
	draw(g *generator) (st Step, ok bool)
	// judge judges the answer to a step sent with the key; recheck > 0 asks again after it.
	judge(a *judging) (recheck time.Duration, v *Violation)
	// simpler lists simpler forms of st, each one change away.
	simpler(st Step) []Step
}

// operations are the spec's operations explore sends, in the order the generator lays out
// their shares of the draws (in percent).
type operations struct {
	byID    map[string]operation
	order   []operation
	shares  []int
	removes bool // one removes an animal
}

// operationsOf finds the operations of f, as conformance/cases and the reference find theirs:
// the three the document names by their operationIds, and by its shape each DELETE on the
// item path (/pets/{petId}), sent only to the run's own animals (the harness never changes
// data it did not create); getPet takes what the others leave of the draws.
func operationsOf(f *spec.Facts) operations {
	ops, left := operations{byID: map[string]operation{}}, 100-createShare-listShare
	add := func(id string, op operation, share int) {
		ops.byID[id], ops.order, ops.shares = op, append(ops.order, op), append(ops.shares, share)
	}
	add(opCreate, createOp{f}, createShare)
	add(opList, listOp{f}, listShare)
	for _, op := range f.Ops {
		if op.Method == http.MethodDelete && itemPath(op.Path, f.ByID[opList].Path) && left > deleteShare {
			add(op.ID, deleteOp{op}, deleteShare)
			left, ops.removes = left-deleteShare, true
		}
	}
	add(opGet, getOp{f}, left)
	return ops
}

// itemPath says whether path names one animal of the list at listPath: listPath/{param}.
func itemPath(path, listPath string) bool {
	rest, ok := strings.CutPrefix(path, listPath+"/{")
	return ok && strings.HasSuffix(rest, "}") && !strings.ContainsAny(rest[:len(rest)-1], "/{}")
}

// judging is an answer to a step, with what judging it needs.
type judging struct {
	r        *runner
	m        *model
	w        *worker
	i        int
	st       Step
	rel      string    // the path and query, as sent
	id       string    // the path's id as sent, for an operation on one animal
	sent, at time.Time // when the request was sent, and when its answer is judged
	status   int
	body     []byte
	failures []report.Failure // what the session found wrong with the answer
}

// where names the step in a violation's message.
func (a *judging) where() string { return fmt.Sprintf("worker %d step #%d", a.w.n, a.i) }

// lost judges a 404 for an operation that must find the animal (what: the step's words; sending:
// the changes of it that are the step's own), as the model's missing says.
func (a *judging) lost(r rule, what string, sending int) (recheck time.Duration, v *Violation) {
	wait, why := a.m.missing(a.id, a.sent, sending)
	if why != "" {
		return 0, violation(r, "%s %s answered 404, but the animal %s", what, a.id, why)
	}
	return wait, nil
}

// pickOwn is one of the animals the worker created, recent ones more often; nil: none.
func (g *generator) pickOwn() *int {
	if len(g.creates) == 0 {
		return nil
	}
	i := len(g.creates) - 1 - int(g.rng.ExpFloat64()*float64(len(g.creates))/3)%len(g.creates)
	return ptr(g.creates[i])
}

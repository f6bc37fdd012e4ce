package explore

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/spec"
)

// Operations. Each operation explore sends is one value, in a file of its own (op_*.go): it
// draws a step, judges the answer against the model and lists the simpler forms of a step
// that shrinking tries. What a step sends (its path, query and body) and how it reads in a
// report follow from its fields, the same for every operation (runner.resolve, Step.String).
// The values are found from the spec's operations, as conformance/cases and the reference
// find theirs: the three the interface document names, by their operationIds, and by its
// shape a DELETE of one animal on the item path (the list's path and one path parameter,
// /pets/{petId}), which explore sends only to the run's own animals: the harness never
// changes or removes data it did not create. Other operations a spec adds are not sent.

// operation is one operation of the spec as explore sends it.
type operation interface {
	// draw draws a step; ok is false when there is none to draw now (no budget to create,
	// no animal of the worker's own to delete).
	draw(g *generator) (st Step, ok bool)
	// judge judges the answer to a step sent with the key; recheck > 0 asks for it again
	// after that long.
	judge(a *judging) (recheck time.Duration, v *Violation)
	// simpler lists simpler forms of st, each one change away.
	simpler(st Step) []Step
	// share is the part of the draws, in percent, that start at this operation.
	share() int
}

// operations are the spec's operations explore sends, in the order the generator lays out
// their shares (an operation that has no step to draw passes the draw to the next).
type operations struct {
	byID  map[string]operation
	order []operation
}

// operationsOf finds the operations of f: createPet, listPets, each DELETE on the item path,
// then getPet, which takes what the others leave of the draws.
func operationsOf(f *Facts) operations {
	list := f.ByID[opList]
	ops := operations{byID: map[string]operation{opCreate: createOp{f}, opList: listOp{f}}}
	ops.order = []operation{ops.byID[opCreate], ops.byID[opList]}
	left := 100 - createShare - listShare
	for _, op := range f.Ops {
		if op.Method == http.MethodDelete && itemPath(op.Path, list.Path) && left > deleteShare {
			ops.byID[op.ID] = deleteOp{f, op}
			ops.order = append(ops.order, ops.byID[op.ID])
			left -= deleteShare
		}
	}
	ops.byID[opGet] = getOp{f, left}
	ops.order = append(ops.order, ops.byID[opGet])
	return ops
}

// itemPath says whether path names one animal of the list at listPath: listPath/{param}.
func itemPath(path, listPath string) bool {
	rest, ok := strings.CutPrefix(path, listPath+"/{")
	return ok && strings.HasSuffix(rest, "}") && !strings.ContainsAny(rest[:len(rest)-1], "/{}")
}

// judging is an answer to a step, with what judging it needs.
type judging struct {
	r      *runner
	m      *model
	w      *worker
	i      int
	st     Step
	rel    string // the path and query, as sent
	id     string // the path's id as sent, for an operation on one animal
	sent   time.Time
	at     time.Time // when the answer is judged
	status int
	body   []byte
}

// where names the step in a violation's message.
func (a *judging) where() string { return fmt.Sprintf("worker %d step #%d", a.w.n, a.i) }

// lost judges a 404 for an animal the model knows, for an operation that must find it (what
// names the step): a violation of rule when it was certainly stored more than the lag before
// and not removed; when it was stored more recently, recheck says how long until a second
// 404 would be one.
func (a *judging) lost(rule, what string) (recheck time.Duration, v *Violation) {
	wait, why := a.m.missing(a.id, a.sent)
	if why != "" {
		return 0, violation(rule, "%s %s answered 404, but the animal %s", what, a.id, why)
	}
	return wait, nil
}

// pickOwn is one of the animals the worker created, recent ones more often than old ones
// (old ones too: they must stay); nil when it created none.
func (g *generator) pickOwn() *int {
	if len(g.creates) == 0 {
		return nil
	}
	i := len(g.creates) - 1 - int(g.rng.ExpFloat64()*float64(len(g.creates))/3)%len(g.creates)
	return ptr(g.creates[i])
}

// mayChange says whether op may change what it names: explore sends such an operation only
// for the run's own animals (Step.Ref).
func mayChange(op spec.Operation) bool {
	return cases.Unsafe(op.Method) && strings.Contains(op.Path, "{")
}

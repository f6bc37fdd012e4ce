package explore

import (
	"time"

	"github.com/petstore/petstore/spec"
)

// deleteOp is a DELETE of one animal that a spec adds, sent to an animal the worker created:
// a success, or a 404 once removed; from then on the model has it gone (model.seen).
type deleteOp struct{ op spec.Operation }

const deleteShare = 10 // of the draws, in percent

func (o deleteOp) draw(g *generator) (Step, bool) {
	ref := g.pickOwn()
	return Step{Op: o.op.ID, Ref: ref}, ref != nil
}

func (o deleteOp) judge(a *judging) (time.Duration, *Violation) {
	switch {
	case a.status/100 == 2:
		a.m.removed(a.id, a.at)
		return 0, nil
	case a.status == 404:
		return a.lost(ruleDelete, o.op.ID, 1)
	}
	return 0, violation(ruleDelete, "%s %s of an animal the run created answered %d, neither a success nor 404", o.op.ID, a.id, a.status)
}

func (deleteOp) simpler(Step) []Step { return nil }

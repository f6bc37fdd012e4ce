package lint

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// RuleRef is what one conformance rule expects of the spec: the operation it exercises and,
// when it asserts one, the documented response status.
type RuleRef struct {
	Rule      string // conformance rule ID, e.g. "getPet/unknown-id-404"
	Operation string // operationId the rule exercises
	Status    int    // response status the rule expects to be documented; 0 for none
}

// CrossCheck reports the rules that name an operation the spec no longer has, or expect a
// response status the operation no longer documents, so that a spec change cannot silently
// turn rules into skips. Findings are sorted like Lint's.
func CrossCheck(doc *openapi3.T, refs []RuleRef) []Finding {
	l := linter{doc: doc}
	ops := map[string]operation{}
	for _, o := range l.eachOperation() {
		if o.op.OperationID != "" {
			ops[o.op.OperationID] = o
		}
	}
	for _, r := range refs {
		o, ok := ops[r.Operation]
		if !ok {
			// The operation is gone, so there is no node to point at: point at the paths and
			// keep the pointers distinct per rule so that none is folded into another.
			l.addf(RuleRefOperation, Pointer("paths"), r.Rule,
				"rule %s exercises operation %q, which the spec does not have", r.Rule, r.Operation)
			continue
		}
		if r.Status == 0 {
			continue
		}
		code := fmt.Sprint(r.Status)
		if o.op.Responses == nil || o.op.Responses.Value(code) == nil {
			l.addf(RuleRefResponse, o.ptr+"/responses/"+code, r.Rule,
				"rule %s expects response %s of %s (%s %s), which the spec does not document",
				r.Rule, code, r.Operation, strings.ToUpper(o.method), o.path)
		}
	}
	return sortFindings(l.findings)
}

// addf is add with an extra key, for findings that share a pointer but not a cause.
func (l *linter) addf(rule, pointer, key, format string, args ...any) {
	before := len(l.findings)
	l.add(rule, pointer+" "+key, format, args...)
	if len(l.findings) > before {
		l.findings[len(l.findings)-1].Pointer = pointer
	}
}

package lint

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// What `conformance lint` asks of this package; the command itself (flags, output, exit
// codes) lives in cmd/conformance.

// RefsFunc lists what the conformance rules built for doc expect of it, for CrossCheck.
type RefsFunc func(doc *openapi3.T) ([]RuleRef, error)

// Check is LintData with the rule-to-spec cross-check: refs (nil for none) is called with
// the document and its references are checked by CrossCheck. It lets cmd/conformance pass
// the rule catalogue without this package importing it. A catalogue that cannot be built
// from the document is itself an error finding, since the harness could not run against it.
// The findings are sorted as Lint sorts them.
// Every finding is placed at its line and column.
func Check(data []byte, refs RefsFunc) []Finding {
	doc, loc, findings := lintData(data)
	if doc == nil || refs == nil {
		return loc.place(findings)
	}
	list, err := refs(doc)
	if err != nil {
		return loc.place(sortFindings(append(findings, Finding{Rule: RuleRefOperation, Severity: Error, Pointer: "#",
			Message: oneLine("the conformance rules cannot be built from this spec: " + err.Error())})))
	}
	return loc.place(sortFindings(fold(append(findings, CrossCheck(doc, list)...))))
}

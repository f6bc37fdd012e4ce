// Package lint checks an OpenAPI description against kin-openapi's validation, the house
// rules this interface follows (issue 8) and the facts the interface document fixes
// (internal/document), and checks that the harness's rules still name operations and
// responses the description has. Every finding names a stable rule ID, the JSON pointer of
// the offending node and its line and column, so a spec author can go straight to the line.
package lint

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/spec"
)

// Severity of a finding: an error fails `conformance lint`, a warning is printed only.
type Severity string

// The two severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Finding is one way the description breaks a rule.
type Finding struct {
	Rule     string   `json:"rule"`     // stable rule ID, e.g. "operation-summary"
	Severity Severity `json:"severity"` // error or warning
	Pointer  string   `json:"pointer"`  // JSON pointer of the offending node, e.g. #/paths/~1pets/get/summary
	Message  string   `json:"message"`  // one line
	// Section is the interface document's section a departure from it names ("4.1; 8").
	Section string `json:"section,omitempty"`
	// Line and Column are where the node lies in the file, from 1; 0 when not known.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// String formats the finding as `conformance lint` prints it after the file name:
// LINE:COLUMN: SEVERITY RULE POINTER MESSAGE (LINE: alone without a column, nothing without
// a line).
func (f Finding) String() string {
	at := ""
	switch {
	case f.Line > 0 && f.Column > 0:
		at = fmt.Sprintf("%d:%d: ", f.Line, f.Column)
	case f.Line > 0:
		at = fmt.Sprintf("%d: ", f.Line)
	}
	return fmt.Sprintf("%s%s %s %s %s", at, f.Severity, f.Rule, f.Pointer, f.Message)
}

// Rule describes one lint rule, for documentation and for `conformance lint` users who want
// to know what an ID means.
type Rule struct {
	ID       string
	Severity Severity
	Title    string
}

// Rule IDs. They are stable: a rule that goes away leaves its ID unused.
const (
	RuleParse          = "openapi-parse"
	RuleValid          = "openapi-valid"
	RuleOperationID    = "operation-id"
	RuleOperationTag   = "operation-tag"
	RuleTagDeclared    = "tag-declared"
	RuleSummary        = "operation-summary"
	Rule401            = "operation-401"
	Rule404            = "operation-404"
	RuleErrorSchema    = "error-schema"
	RuleSunset         = "deprecated-sunset"
	RuleReplacedBy     = "deprecated-replacement"
	RuleSince          = "deprecated-since"
	RuleNotDeprecated  = "extension-not-deprecated"
	RuleStability      = "stability-value"
	RuleExample        = "example-valid"
	RuleDefault        = "default-valid"
	RuleParamDefault   = "param-default"
	RuleServerVersion  = "server-version"
	RuleRefOperation   = "rule-operation"
	RuleRefResponse    = "rule-response"
	RuleDeparture      = "document-departure"
	errorSchemaPointer = "#/components/schemas/Error"
)

// Rules lists every rule Lint and CrossCheck apply.
var Rules = []Rule{
	{RuleParse, Error, "The file is a YAML or JSON OpenAPI document kin-openapi can load"},
	{RuleValid, Error, "The document passes kin-openapi validation"},
	{RuleOperationID, Error, "Every operation has an operationId"},
	{RuleOperationTag, Error, "Every operation has a tag"},
	{RuleTagDeclared, Warning, "Every tag an operation uses is declared in the top-level tags"},
	{RuleSummary, Error, "Every operation has a summary"},
	{Rule401, Error, "Every operation documents a 401 response"},
	{Rule404, Warning, "Every operation on one resource (a path with a parameter) documents a 404 response"},
	{RuleErrorSchema, Error, "Every 4xx, 5xx and default response body uses the Error schema"},
	{RuleSunset, Error, "Every deprecated operation carries a removal date in x-sunset (YYYY-MM-DD)"},
	{RuleReplacedBy, Error, "Every deprecated operation names an existing replacement operationId in x-replaced-by"},
	{RuleSince, Error, "x-deprecated-since, where present, is a date (YYYY-MM-DD) not after x-sunset"},
	{RuleNotDeprecated, Warning, "x-sunset and x-replaced-by appear only on deprecated operations"},
	{RuleStability, Error, "x-stability, where present, is experimental or beta"},
	{RuleExample, Error, "Every example validates against its schema"},
	{RuleDefault, Error, "Every schema default validates against its schema"},
	{RuleParamDefault, Error, "Integer parameters with bounds have a default inside them"},
	{RuleServerVersion, Error, "Every server URL ends in the version segment (/v1, /vN)"},
	{RuleRefOperation, Error, "Every operation a conformance rule names exists in the spec"},
	{RuleRefResponse, Error, "Every response status a conformance rule expects is documented"},
	{RuleDeparture, Error, "Every value the interface document fixes (operations, statuses, limit bounds and default, PetStatus values, required fields, auth scheme, removal date and replacement) is the document's"},
}

// Lint validates doc with kin-openapi and applies the house rules. It never fails: a document
// kin-openapi rejects is reported as findings and linted as far as it goes.
func Lint(doc *openapi3.T) []Finding {
	var l linter
	l.doc = doc
	l.validate()
	l.servers()
	l.operations()
	l.schemas()
	l.departures()
	return sortFindings(fold(l.findings))
}

// LintData loads data (YAML or JSON) and lints it, each finding placed at its line and
// column. A file kin-openapi cannot load at all yields a single openapi-parse finding; a
// YAML syntax error leads with its line.
func LintData(data []byte) []Finding {
	_, loc, fs := lintData(data)
	return loc.place(fs)
}

// lintData is LintData that also returns the document, nil when it could not be loaded,
// and where its nodes lie; the findings are not placed yet.
func lintData(data []byte) (*openapi3.T, *locator, []Finding) {
	loc, syntax := locate(data)
	if syntax != nil {
		return nil, nil, []Finding{*syntax}
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, loc, []Finding{{
			Rule: RuleParse, Severity: Error, Pointer: "#",
			Message: oneLine(err.Error()),
		}}
	}
	return doc, loc, Lint(doc)
}

// HasErrors reports whether any finding has severity error.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// linter collects findings for one document.
type linter struct {
	doc      *openapi3.T
	findings []Finding
	seen     map[string]bool // rule+pointer already reported (shared components)
}

func (l *linter) add(rule, pointer, format string, args ...any) {
	key := rule + " " + pointer
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if l.seen[key] {
		return
	}
	l.seen[key] = true
	l.findings = append(l.findings, Finding{
		Rule: rule, Severity: severityOf(rule), Pointer: pointer,
		Message: oneLine(fmt.Sprintf(format, args...)),
	})
}

func severityOf(rule string) Severity {
	for _, r := range Rules {
		if r.ID == rule {
			return r.Severity
		}
	}
	return Error
}

// validate runs kin-openapi's validation with examples and defaults left to this package,
// which reports them with a pointer each instead of stopping at the first.
func (l *linter) validate() {
	err := l.doc.Validate(context.Background(),
		openapi3.EnableMultiError(),
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation())
	if err == nil {
		return
	}
	errs := []error{err}
	if me, ok := err.(openapi3.MultiError); ok {
		errs = me
	}
	for _, e := range errs {
		l.add(RuleValid, validationPointer(e), "%s", e.Error())
	}
}

func sortFindings(fs []Finding) []Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	return fs
}

// oneLine keeps a message on one line: kin-openapi's schema errors span several.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 300
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

// Pointer joins JSON pointer tokens under "#" (spec.Pointer).
func Pointer(tokens ...string) string { return spec.Pointer(tokens...) }

var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// escape escapes one JSON pointer token.
func escape(token string) string { return escaper.Replace(token) }

package lint

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/spec"
)

// versionSuffix is the path ending every server URL must have (interface section 9 rule 2).
var versionSuffix = regexp.MustCompile(`/v[1-9][0-9]*$`)

func (l *linter) servers() {
	if len(l.doc.Servers) == 0 {
		l.add(RuleServerVersion, Pointer("servers"), "no servers: the base address with its /vN segment is not described")
		return
	}
	for i, s := range l.doc.Servers {
		if s == nil {
			continue
		}
		path, err := spec.ServerPath(s)
		if err != nil || !versionSuffix.MatchString(path) {
			l.add(RuleServerVersion, Pointer("servers", fmt.Sprint(i), "url"),
				"server URL %q does not end in the version segment /vN", s.URL)
		}
	}
}

// operation is one operation with the pointer of its node.
type operation struct {
	method, path, ptr string
	op                *openapi3.Operation
}

// eachOperation lists the operations in path, then method, order; nil-safe for documents
// kin-openapi rejected.
func (l *linter) eachOperation() []operation {
	var ops []operation
	if l.doc.Paths == nil {
		return nil
	}
	paths := l.doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, path := range keys {
		item := paths[path]
		if item == nil {
			continue
		}
		for method, op := range item.Operations() {
			if op == nil {
				continue
			}
			m := strings.ToLower(method)
			ops = append(ops, operation{method: m, path: path, ptr: Pointer("paths", path, m), op: op})
		}
	}
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].path != ops[j].path {
			return ops[i].path < ops[j].path
		}
		return ops[i].method < ops[j].method
	})
	return ops
}

func (l *linter) operations() {
	ops := l.eachOperation()
	ids := map[string]bool{}
	for _, o := range ops {
		if o.op.OperationID != "" {
			ids[o.op.OperationID] = true
		}
	}
	declared := map[string]bool{}
	for _, t := range l.doc.Tags {
		if t != nil {
			declared[t.Name] = true
		}
	}
	for _, o := range ops {
		l.identity(o, declared)
		l.responses(o)
		l.deprecation(o, ids)
		if v, ok := o.op.Extensions[spec.ExtStability]; ok {
			if s, _ := v.(string); !slices.Contains(spec.StabilityValues, s) {
				l.add(RuleStability, o.ptr+"/"+spec.ExtStability,
					"x-stability is %v; want one of %s", v, strings.Join(spec.StabilityValues, ", "))
			}
		}
	}
}

// identity checks what names and files the operation: operationId, tags and summary.
func (l *linter) identity(o operation, declared map[string]bool) {
	if o.op.OperationID == "" {
		l.add(RuleOperationID, o.ptr+"/operationId", "%s %s has no operationId", strings.ToUpper(o.method), o.path)
	}
	if len(o.op.Tags) == 0 {
		l.add(RuleOperationTag, o.ptr+"/tags", "%s %s has no tag", strings.ToUpper(o.method), o.path)
	}
	for i, t := range o.op.Tags {
		if !declared[t] {
			l.add(RuleTagDeclared, fmt.Sprintf("%s/tags/%d", o.ptr, i), "tag %q is not declared in the top-level tags", t)
		}
	}
	if strings.TrimSpace(o.op.Summary) == "" {
		l.add(RuleSummary, o.ptr+"/summary", "%s %s has no summary", strings.ToUpper(o.method), o.path)
	}
}

// isErrorStatus reports whether a responses key describes an error: 4xx, 5xx, 4XX, 5XX or
// default (which, in this interface, only ever stands for errors).
func isErrorStatus(code string) bool {
	return code == "default" || (len(code) == 3 && (code[0] == '4' || code[0] == '5'))
}

func (l *linter) responses(o operation) {
	var responses map[string]*openapi3.ResponseRef
	if o.op.Responses != nil {
		responses = o.op.Responses.Map()
	}
	if responses["401"] == nil {
		l.add(Rule401, o.ptr+"/responses/401", "%s %s documents no 401 response", strings.ToUpper(o.method), o.path)
	}
	if strings.Contains(o.path, "{") && responses["404"] == nil {
		// What the document's one such operation answers when there is no such resource
		// (4.3; 7); the reference answers it all the same, outside the spec.
		l.add(Rule404, o.ptr+"/responses/404", "%s %s names one resource but documents no 404 response: a client cannot tell what an unknown one gets", strings.ToUpper(o.method), o.path)
	}
	for code, rr := range responses {
		if rr == nil || rr.Value == nil || !isErrorStatus(code) {
			continue
		}
		// A shared response is reported once, where it is defined.
		ptr := o.ptr + "/responses/" + code
		if strings.HasPrefix(rr.Ref, "#/") {
			ptr = rr.Ref
		}
		l.errorBody(rr.Value, ptr, code)
	}
}

func (l *linter) errorBody(resp *openapi3.Response, ptr, code string) {
	if len(resp.Content) == 0 {
		l.add(RuleErrorSchema, ptr+"/content", "the %s response has no body; it must use the Error schema", code)
		return
	}
	for mt, media := range resp.Content {
		schemaPtr := ptr + "/content/" + escape(mt) + "/schema"
		switch {
		case media == nil || media.Schema == nil:
			l.add(RuleErrorSchema, schemaPtr, "the %s response (%s) has no schema; it must use the Error schema", code, mt)
		case media.Schema.Ref != errorSchemaPointer:
			got := media.Schema.Ref
			if got == "" {
				got = "an inline schema"
			}
			l.add(RuleErrorSchema, schemaPtr, "the %s response (%s) uses %s, not %s", code, mt, got, errorSchemaPointer)
		}
	}
}

// deprecation checks the removal date, the replacement and the deprecation date of a
// deprecated operation, and that the extensions appear on deprecated operations only.
func (l *linter) deprecation(o operation, ids map[string]bool) {
	ext := o.op.Extensions
	if !o.op.Deprecated {
		for _, name := range []string{spec.ExtSunset, spec.ExtReplacedBy, spec.ExtDeprecatedSince} {
			if _, ok := ext[name]; ok {
				l.add(RuleNotDeprecated, o.ptr+"/"+name, "%s on an operation that is not deprecated", name)
			}
		}
		return
	}
	sunset, ok := date(ext, spec.ExtSunset)
	switch {
	case ext[spec.ExtSunset] == nil:
		l.add(RuleSunset, o.ptr+"/"+spec.ExtSunset, "deprecated operation has no removal date (x-sunset: YYYY-MM-DD)")
	case !ok:
		l.add(RuleSunset, o.ptr+"/"+spec.ExtSunset, "x-sunset is %v; want a date YYYY-MM-DD", ext[spec.ExtSunset])
	}
	if v, present := ext[spec.ExtDeprecatedSince]; present {
		since, sinceOK := date(ext, spec.ExtDeprecatedSince)
		switch {
		case !sinceOK:
			l.add(RuleSince, o.ptr+"/"+spec.ExtDeprecatedSince, "x-deprecated-since is %v; want a date YYYY-MM-DD", v)
		case ok && since.After(sunset):
			l.add(RuleSince, o.ptr+"/"+spec.ExtDeprecatedSince, "x-deprecated-since %v is after x-sunset %v", v, ext[spec.ExtSunset])
		}
	}
	repl, _ := ext[spec.ExtReplacedBy].(string)
	switch {
	case repl == "":
		l.add(RuleReplacedBy, o.ptr+"/"+spec.ExtReplacedBy, "deprecated operation names no replacement (x-replaced-by: operationId)")
	case repl == o.op.OperationID:
		l.add(RuleReplacedBy, o.ptr+"/"+spec.ExtReplacedBy, "x-replaced-by names the deprecated operation itself")
	case !ids[repl]:
		l.add(RuleReplacedBy, o.ptr+"/"+spec.ExtReplacedBy, "x-replaced-by names %q, which is not an operationId of this spec", repl)
	}
}

func date(ext map[string]any, name string) (time.Time, bool) {
	s, ok := ext[name].(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

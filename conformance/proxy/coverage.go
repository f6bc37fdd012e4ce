package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/spec"
)

// Coverage is the part of the description that the traffic exercised: every documented
// operation × status pair, and the parameters and enumeration values used.
type Coverage struct {
	Pairs      int                 `json:"pairs"`     // documented operation × status pairs
	Exercised  int                 `json:"exercised"` // pairs seen at least once
	Percent    float64             `json:"percent"`   // 100 × Exercised / Pairs
	Operations []OperationCoverage `json:"operations"`
}

// OperationCoverage is the coverage of one operation.
type OperationCoverage struct {
	Operation string `json:"operation"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Requests  int    `json:"requests"`
	// Statuses lists every documented status with the times it was seen (0: never).
	Statuses []Count `json:"statuses"`
	// Undocumented lists the statuses seen that the operation does not document.
	Undocumented []Count `json:"undocumented,omitempty"`
	// Parameters lists every parameter, and every top-level property of the JSON request body
	// (In "body"), with the times it was sent.
	Parameters []ParameterCoverage `json:"parameters,omitempty"`
}

// Count is how many times a status was seen.
type Count struct {
	Status int `json:"status"`
	Count  int `json:"count"`
}

// ParameterCoverage is how often one parameter was sent, and for an enumeration, each value.
type ParameterCoverage struct {
	In     string       `json:"in"` // query, path, header, or body
	Name   string       `json:"name"`
	Count  int          `json:"count"`
	Values []ValueCount `json:"values,omitempty"`
}

// ValueCount is how many times an enumeration value was sent.
type ValueCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// coverage accumulates counts; the checker's mutex guards it.
type coverage struct {
	ops  []OperationCoverage
	byID map[string]int
}

func newCoverage(doc *openapi3.T) (*coverage, error) {
	ops, err := spec.Operations(doc)
	if err != nil {
		return nil, err
	}
	c := &coverage{byID: map[string]int{}}
	for _, o := range ops {
		oc := OperationCoverage{Operation: o.ID, Method: o.Method, Path: o.Path}
		for _, s := range o.Statuses {
			oc.Statuses = append(oc.Statuses, Count{Status: s})
		}
		params := append(openapi3.Parameters{}, doc.Paths.Value(o.Path).Parameters...)
		for _, ref := range append(params, o.Op.Parameters...) {
			if p := ref.Value; p != nil {
				oc.Parameters = append(oc.Parameters, ParameterCoverage{In: p.In, Name: p.Name, Values: enumValues(p.Schema)})
			}
		}
		if s := jsonBodySchema(o.Op); s != nil {
			names := make([]string, 0, len(s.Properties))
			for name := range s.Properties {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				oc.Parameters = append(oc.Parameters, ParameterCoverage{In: "body", Name: name, Values: enumValues(s.Properties[name])})
			}
		}
		c.byID[o.ID] = len(c.ops)
		c.ops = append(c.ops, oc)
	}
	return c, nil
}

func jsonBodySchema(op *openapi3.Operation) *openapi3.Schema {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	media := op.RequestBody.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return nil
	}
	return media.Schema.Value
}

func enumValues(ref *openapi3.SchemaRef) []ValueCount {
	if ref == nil || ref.Value == nil {
		return nil
	}
	var out []ValueCount
	for _, v := range ref.Value.Enum {
		out = append(out, ValueCount{Value: fmt.Sprint(v)})
	}
	return out
}

// record counts ex against operation id.
func (c *coverage) record(id string, ex exchange) {
	i, ok := c.byID[id]
	if !ok {
		return
	}
	oc := &c.ops[i]
	oc.Requests++
	if !bump(oc.Statuses, ex.status) {
		if !bump(oc.Undocumented, ex.status) {
			oc.Undocumented = append(oc.Undocumented, Count{Status: ex.status, Count: 1})
			sort.Slice(oc.Undocumented, func(a, b int) bool { return oc.Undocumented[a].Status < oc.Undocumented[b].Status })
		}
	}
	body := jsonObject(ex)
	for j := range oc.Parameters {
		p := &oc.Parameters[j]
		var vals []string
		switch p.In {
		case openapi3.ParameterInQuery:
			vals = ex.req.URL.Query()[p.Name]
		case openapi3.ParameterInHeader:
			vals = ex.req.Header.Values(p.Name)
		case openapi3.ParameterInPath:
			vals = []string{""} // a routed request always carries its path parameters
		case "body":
			if raw, ok := body[p.Name]; ok {
				var s string
				_ = json.Unmarshal(raw, &s) // enumerations here are strings; anything else counts as sent
				vals = []string{s}
			}
		}
		if len(vals) == 0 {
			continue
		}
		p.Count++
		for _, v := range vals {
			for k := range p.Values {
				if p.Values[k].Value == v {
					p.Values[k].Count++
				}
			}
		}
	}
}

func bump(counts []Count, status int) bool {
	for i := range counts {
		if counts[i].Status == status {
			counts[i].Count++
			return true
		}
	}
	return false
}

// jsonObject returns the top-level members of a complete JSON object request body, or nil.
func jsonObject(ex exchange) map[string]json.RawMessage {
	mt, _, _ := mime.ParseMediaType(ex.req.Header.Get("Content-Type"))
	if !ex.reqComplete || len(ex.reqBody) == 0 || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(ex.reqBody, &m) != nil {
		return nil
	}
	return m
}

func (c *coverage) snapshot() Coverage {
	out := Coverage{Operations: make([]OperationCoverage, len(c.ops))}
	for i, oc := range c.ops {
		cp := oc
		cp.Statuses = append([]Count(nil), oc.Statuses...)
		cp.Undocumented = append([]Count(nil), oc.Undocumented...)
		cp.Parameters = make([]ParameterCoverage, len(oc.Parameters))
		for j, p := range oc.Parameters {
			p.Values = append([]ValueCount(nil), p.Values...)
			cp.Parameters[j] = p
		}
		for _, s := range oc.Statuses {
			out.Pairs++
			if s.Count > 0 {
				out.Exercised++
			}
		}
		out.Operations[i] = cp
	}
	if out.Pairs > 0 {
		out.Percent = float64(out.Exercised) * 100 / float64(out.Pairs)
	}
	return out
}

// WriteText writes the summary as text: counts, violations per operation, and coverage with
// one line per operation (each documented status with its count, "-" when never seen) and
// one for its parameters.
func (s Summary) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("checked %s under %s: %s, %d ignored (not API calls)",
		plural(s.Checked, "exchange"), s.BasePath, plural(s.Violations, "violation"), s.Ignored)
	if s.Incomplete > 0 {
		ew.printf(", %d with a body over the cap or not recorded (bodies not validated)", s.Incomplete)
	}
	if s.UpstreamErrors > 0 {
		ew.printf(", %s", plural(s.UpstreamErrors, "upstream error"))
	}
	ew.printf("\n")
	if len(s.ViolationsByOperation) > 0 {
		ops := make([]string, 0, len(s.ViolationsByOperation))
		for op, n := range s.ViolationsByOperation {
			if op == "-" {
				op = "(no operation)"
			}
			ops = append(ops, fmt.Sprintf("%s %d", op, n))
		}
		sort.Strings(ops)
		ew.printf("violations by operation: %s\n", strings.Join(ops, ", "))
	}
	c := s.Coverage
	ew.printf("coverage: %d of %d documented operation x status pairs exercised (%.0f%%)\n", c.Exercised, c.Pairs, c.Percent)
	for _, op := range c.Operations {
		var st []string
		for _, n := range op.Statuses {
			st = append(st, fmt.Sprintf("%d %s", n.Status, times(n.Count)))
		}
		for _, n := range op.Undocumented {
			st = append(st, fmt.Sprintf("%d %s (undocumented)", n.Status, times(n.Count)))
		}
		ew.printf("  %-10s %-6s %-16s %s\n", op.Operation, op.Method, op.Path, strings.Join(st, ", "))
		var ps []string
		for _, p := range op.Parameters {
			line := fmt.Sprintf("%s %s %s", p.In, p.Name, times(p.Count))
			if len(p.Values) > 0 {
				var vs []string
				for _, v := range p.Values {
					vs = append(vs, v.Value+" "+times(v.Count))
				}
				line += " (" + strings.Join(vs, ", ") + ")"
			}
			ps = append(ps, line)
		}
		if len(ps) > 0 {
			ew.printf("  %-10s %s\n", "", strings.Join(ps, ", "))
		}
	}
	return ew.err
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func times(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("x%d", n)
}

// errWriter keeps the first write error so that a text writer reads as a list of printf.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

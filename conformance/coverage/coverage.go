// Package coverage counts which part of an OpenAPI description some traffic exercised: every
// documented operation × status pair, and the parameters and enumeration values sent. The
// conformance run and the validating proxy share it, so that both report coverage alike.
package coverage

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/jsonscan"
	"github.com/petstore/petstore/spec"
)

// The model types live in conformance/report, which every report writer reads; these
// names keep the tracker's code short.
type (
	Coverage          = report.Coverage
	OperationCoverage = report.OperationCoverage
	Count             = report.StatusCount
	ParameterCoverage = report.ParameterCoverage
	ValueCount        = report.ValueCount
)

// Tracker accumulates counts for one description. It is safe for concurrent use.
type Tracker struct {
	mu   sync.Mutex
	ops  []OperationCoverage
	byID map[string]int
}

// New returns a Tracker with every operation, status and parameter of doc at zero.
func New(doc *openapi3.T) (*Tracker, error) {
	ops, err := spec.Operations(doc)
	if err != nil {
		return nil, err
	}
	t := &Tracker{byID: map[string]int{}}
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
		t.byID[o.ID] = len(t.ops)
		t.ops = append(t.ops, oc)
	}
	return t, nil
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

// Record counts one exchange of operation id (an operationId of the description; others
// are ignored): the status answered, and what req sent. body is the complete request body,
// nil when it was not kept.
func (t *Tracker) Record(id string, req *http.Request, body []byte, status int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.byID[id]
	if !ok {
		return
	}
	oc := &t.ops[i]
	oc.Requests++
	if !bump(oc.Statuses, status) {
		if !bump(oc.Undocumented, status) {
			oc.Undocumented = append(oc.Undocumented, Count{Status: status, Count: 1})
			sort.Slice(oc.Undocumented, func(a, b int) bool { return oc.Undocumented[a].Status < oc.Undocumented[b].Status })
		}
	}
	members := jsonObject(req.Header, body)
	for j := range oc.Parameters {
		p := &oc.Parameters[j]
		var vals []string
		switch p.In {
		case openapi3.ParameterInQuery:
			vals = req.URL.Query()[p.Name]
		case openapi3.ParameterInHeader:
			vals = req.Header.Values(p.Name)
		case openapi3.ParameterInPath:
			vals = []string{""} // a routed request always carries its path parameters
		case "body":
			if raw, ok := members[p.Name]; ok {
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

// MaxMemberBody is the largest body whose members coverage reads: a bigger one (the
// oversized case's megabyte) is counted as a request and an answer, its members not, as
// most services refuse it unread (the reference beyond 64 KiB).
const MaxMemberBody = 64 << 10

// jsonObject returns the top-level members of a JSON object body, or nil.
func jsonObject(h http.Header, body []byte) map[string]json.RawMessage {
	if len(body) == 0 || len(body) > MaxMemberBody || !spec.IsJSON(h) {
		return nil
	}
	return jsonscan.Members(body)
}

// Snapshot returns a copy of the counts so far, with the totals.
func (t *Tracker) Snapshot() Coverage {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := Coverage{Operations: make([]OperationCoverage, len(t.ops))}
	for i, oc := range t.ops {
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

package check

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/internal/pact"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/spec"
)

// Break is a consumer interaction that a new description breaks.
type Break struct {
	File        string `json:"file"`
	Consumer    string `json:"consumer"`
	Index       int    `json:"interaction"` // from 1, in the file
	Description string `json:"description"`
	// Reasons say what the new description does to the interaction: refuses its request, no
	// longer documents the status it expects, drops or changes a field it reads.
	Reasons []string `json:"reasons"`
}

// Consumers is what diff --pact reports: how much it checked, and what breaks.
type Consumers struct {
	Pacts        int     `json:"pacts"`
	Interactions int     `json:"interactions"`
	Breaks       []Break `json:"breaks"`
}

// Summary counts the contracts checked for bs.
func Summary(bs []Break, contracts []Contract) Consumers {
	c := Consumers{Pacts: len(contracts), Breaks: bs}
	for _, ct := range contracts {
		c.Interactions += len(ct.Pact.Interactions)
	}
	if c.Breaks == nil {
		c.Breaks = []Break{}
	}
	return c
}

// Breaks names, statically, the interactions of the contracts that the change from old to
// neu breaks: a request the new description refuses (a limit above a lowered maximum), an
// operation or a status the consumer relies on that it no longer documents, a field of the
// answer the consumer reads (one its pact holds) that it drops or gives another type or
// values. A reason that holds under the old description as well is not the change's doing
// and is not named. A change no consumer touches breaks none.
func Breaks(old, neu *openapi3.T, contracts []Contract) ([]Break, error) {
	ov, err := spec.NewValidator(old)
	if err != nil {
		return nil, fmt.Errorf("the old description: %w", err)
	}
	nv, err := spec.NewValidator(neu)
	if err != nil {
		return nil, fmt.Errorf("the new description: %w", err)
	}
	var out []Break
	for _, c := range contracts {
		for i, in := range c.Pact.Interactions {
			was := problems(ov, in)
			var reasons []string
			for _, r := range problems(nv, in) {
				if !slices.Contains(was, r) {
					reasons = append(reasons, r)
				}
			}
			if len(reasons) > 0 {
				out = append(out, Break{File: c.File, Consumer: c.Pact.Consumer, Index: i + 1, Description: in.Description, Reasons: reasons})
			}
		}
	}
	return out, nil
}

// problems are what a description says against an interaction, each as one sentence.
func problems(v *spec.Validator, in pact.Interaction) []string {
	rq := in.Request
	req, route, _, err := routed(v, rq)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	status := in.Response.Status
	if status/100 == 2 {
		// The consumer relies on the request being served: it must stay valid.
		for _, viol := range v.ValidateRequest(req, rq.Body) {
			out = append(out, "the request is refused: "+viol.Message)
		}
	}
	op := route.Operation
	if op.Responses.Status(status) == nil {
		return append(out, fmt.Sprintf("%s documents no status %d", op.OperationID, status))
	}
	if in.Response.Body == nil {
		return out
	}
	var body any
	if judge.Decode(in.Response.Body, &body) != nil {
		return out
	}
	schema := spec.ResponseSchema(op, status)
	if schema == nil {
		return append(out, fmt.Sprintf("%s documents no JSON body for status %d", op.OperationID, status))
	}
	out = append(out, fields("$", schema, body)...)
	if status/100 == 2 {
		// The example's values, under the new schema (a status value the enumeration lost).
		for _, viol := range v.ValidateResponse(req, status, http.Header{"Content-Type": {"application/json"}}, in.Response.Body) {
			out = append(out, "the answer the consumer relies on breaks the description: "+viol.Message)
		}
	}
	return out
}

// fields names the members the consumer reads (the example's) that the schema does not
// describe, or describes with another type.
func fields(path string, s *openapi3.Schema, v any) []string {
	switch x := v.(type) {
	case map[string]any:
		props := map[string]*openapi3.Schema{}
		var walk func(*openapi3.Schema)
		walk = func(s *openapi3.Schema) {
			for name, ref := range s.Properties {
				if ref != nil && ref.Value != nil {
					props[name] = ref.Value
				}
			}
			for _, ref := range s.AllOf {
				if ref.Value != nil {
					walk(ref.Value)
				}
			}
		}
		walk(s)
		var out []string
		for _, name := range sortedKeys(x) {
			ps, ok := props[name]
			if !ok {
				out = append(out, fmt.Sprintf("the field %s.%s the consumer reads is not in the answer's schema", path, name))
				continue
			}
			out = append(out, fields(path+"."+name, ps, x[name])...)
		}
		return out
	case []any:
		if len(x) == 0 || s.Items == nil || s.Items.Value == nil {
			return nil
		}
		return fields(path+"[*]", s.Items.Value, x[0])
	default:
		if want := jsonType(v); s.Type != nil && len(s.Type.Slice()) > 0 && !slices.Contains(s.Type.Slice(), want) &&
			!(want == "integer" && s.Type.Is("number")) {
			return []string{fmt.Sprintf("the field %s the consumer reads is %s in the schema, not %s", path, strings.Join(s.Type.Slice(), " or "), want)}
		}
	}
	return nil
}

func jsonType(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case interface{ String() string }:
		if strings.ContainsAny(x.String(), ".eE") {
			return "number"
		}
		return "integer"
	}
	return "number"
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// WriteText writes the breaks as text: one line per interaction and one per reason, or the
// line that none is broken.
func (c Consumers) WriteText(w io.Writer) error {
	var b strings.Builder
	of := words.Plural(c.Interactions, "interaction") + " of " + words.Plural(c.Pacts, "pact")
	if len(c.Breaks) == 0 {
		fmt.Fprintf(&b, "consumers: the change breaks none of the %s\n", of)
	} else {
		fmt.Fprintf(&b, "consumers: the change breaks %d of the %s\n", len(c.Breaks), of)
	}
	for _, br := range c.Breaks {
		fmt.Fprintf(&b, "  BREAKS  %s interaction %d %q (%s)\n", br.Consumer, br.Index, br.Description, br.File)
		for _, r := range br.Reasons {
			fmt.Fprintf(&b, "          %s\n", r)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

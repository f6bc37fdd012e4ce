package lint

import (
	"errors"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// direction says which side of the exchange an example stands for: readOnly properties may
// appear only in responses, writeOnly ones only in requests (kin-openapi's VisitAs*).
type direction int

const (
	neither direction = iota
	request
	response
)

func (d direction) options() []openapi3.SchemaValidationOption {
	switch d {
	case request:
		return []openapi3.SchemaValidationOption{openapi3.VisitAsRequest()}
	case response:
		return []openapi3.SchemaValidationOption{openapi3.VisitAsResponse()}
	}
	return nil
}

// schemas walks every schema, parameter, request body and response the document defines,
// checking examples and defaults. Shared ($ref) nodes are walked where they are defined, so
// each is reported once with the pointer of its definition.
func (l *linter) schemas() {
	if c := l.doc.Components; c != nil {
		for name, sr := range c.Schemas {
			l.walkSchema(sr, Pointer("components", "schemas", name), neither, false)
		}
		for name, pr := range c.Parameters {
			if pr != nil && pr.Ref == "" {
				l.param(pr.Value, Pointer("components", "parameters", name))
			}
		}
		for name, rb := range c.RequestBodies {
			if rb != nil && rb.Ref == "" && rb.Value != nil {
				l.content(rb.Value.Content, Pointer("components", "requestBodies", name, "content"), request)
			}
		}
		for name, rr := range c.Responses {
			if rr != nil && rr.Ref == "" && rr.Value != nil {
				l.content(rr.Value.Content, Pointer("components", "responses", name, "content"), response)
			}
		}
	}
	if l.doc.Paths != nil {
		for path, item := range l.doc.Paths.Map() {
			if item != nil {
				l.params(item.Parameters, Pointer("paths", path, "parameters"))
			}
		}
	}
	for _, o := range l.eachOperation() {
		l.params(o.op.Parameters, o.ptr+"/parameters")
		if rb := o.op.RequestBody; rb != nil && rb.Ref == "" && rb.Value != nil {
			l.content(rb.Value.Content, o.ptr+"/requestBody/content", request)
		}
		if o.op.Responses == nil {
			continue
		}
		for code, rr := range o.op.Responses.Map() {
			if rr != nil && rr.Ref == "" && rr.Value != nil {
				l.content(rr.Value.Content, o.ptr+"/responses/"+code+"/content", response)
			}
		}
	}
}

func (l *linter) params(ps openapi3.Parameters, ptr string) {
	for i, pr := range ps {
		if pr != nil && pr.Ref == "" {
			l.param(pr.Value, fmt.Sprintf("%s/%d", ptr, i))
		}
	}
}

// param checks a parameter's examples against its schema and, for a bounded integer, that a
// default exists inside the bounds (the server needs one to answer a request without it).
func (l *linter) param(p *openapi3.Parameter, ptr string) {
	if p == nil {
		return
	}
	l.content(p.Content, ptr+"/content", request)
	if p.Schema == nil || p.Schema.Value == nil {
		return
	}
	s := p.Schema.Value
	schemaPtr := ptr + "/schema"
	if strings.HasPrefix(p.Schema.Ref, "#/") {
		schemaPtr = p.Schema.Ref
	}
	bounded := s.Type.Is(openapi3.TypeInteger) && (s.Min != nil || s.Max != nil)
	if bounded {
		switch {
		case s.Default == nil:
			l.add(RuleParamDefault, schemaPtr+"/default", "integer parameter %q has bounds%s but no default", p.Name, bounds(s))
		case s.VisitJSON(s.Default) != nil:
			l.add(RuleParamDefault, schemaPtr+"/default", "default %v of integer parameter %q is not an integer inside its bounds%s", s.Default, p.Name, bounds(s))
		}
	}
	l.walkSchema(p.Schema, ptr+"/schema", request, bounded)
	l.example(p.Example, s, ptr+"/example", request)
	l.examples(p.Examples, s, ptr+"/examples", request)
}

func bounds(s *openapi3.Schema) string {
	lo, hi := "-inf", "+inf"
	if s.Min != nil {
		lo = fmt.Sprint(*s.Min)
	}
	if s.Max != nil {
		hi = fmt.Sprint(*s.Max)
	}
	return fmt.Sprintf(" [%s, %s]", lo, hi)
}

func (l *linter) content(c openapi3.Content, ptr string, dir direction) {
	for mt, media := range c {
		if media == nil || media.Schema == nil || media.Schema.Value == nil {
			continue
		}
		mptr := ptr + "/" + escape(mt)
		l.walkSchema(media.Schema, mptr+"/schema", dir, false)
		l.example(media.Example, media.Schema.Value, mptr+"/example", dir)
		l.examples(media.Examples, media.Schema.Value, mptr+"/examples", dir)
	}
}

func (l *linter) examples(exs openapi3.Examples, s *openapi3.Schema, ptr string, dir direction) {
	for name, er := range exs {
		if er != nil && er.Value != nil {
			l.example(er.Value.Value, s, ptr+"/"+escape(name)+"/value", dir)
		}
	}
}

func (l *linter) example(value any, s *openapi3.Schema, ptr string, dir direction) {
	if value == nil {
		return
	}
	if err := s.VisitJSON(value, dir.options()...); err != nil {
		l.add(RuleExample, ptr, "example does not match its schema: %s", schemaMessage(err))
	}
}

// walkSchema checks an inline schema's example and default, then its subschemas. A $ref is
// not followed: its target is walked as a component. skipDefault leaves the top default to
// the param-default rule.
func (l *linter) walkSchema(sr *openapi3.SchemaRef, ptr string, dir direction, skipDefault bool) {
	if sr == nil || sr.Value == nil || sr.Ref != "" {
		return
	}
	s := sr.Value
	l.example(s.Example, s, ptr+"/example", dir)
	if s.Default != nil && !skipDefault {
		if err := s.VisitJSON(s.Default); err != nil {
			l.add(RuleDefault, ptr+"/default", "default does not match its schema: %s", schemaMessage(err))
		}
	}
	for name, p := range s.Properties {
		l.walkSchema(p, ptr+"/properties/"+escape(name), dir, false)
	}
	l.walkSchema(s.Items, ptr+"/items", dir, false)
	l.walkSchema(s.Not, ptr+"/not", dir, false)
	l.walkSchema(s.AdditionalProperties.Schema, ptr+"/additionalProperties", dir, false)
	for key, list := range map[string]openapi3.SchemaRefs{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf} {
		for i, sub := range list {
			l.walkSchema(sub, fmt.Sprintf("%s/%s/%d", ptr, key, i), dir, false)
		}
	}
}

// schemaMessage keeps what failed and where in the value, without kin-openapi's schema dump.
func schemaMessage(err error) string {
	var se *openapi3.SchemaError
	if !errors.As(err, &se) || se.Reason == "" {
		return err.Error()
	}
	if p := se.JSONPointer(); len(p) > 0 {
		return fmt.Sprintf("at /%s: %s", strings.Join(p, "/"), se.Reason)
	}
	return se.Reason
}

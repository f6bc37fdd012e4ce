package document

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/spec"
)

// Departure is one value of a description that the interface document gives otherwise.
type Departure struct {
	// Fact names what departs, stably: "limit/maximum", "petstatus", "required/NewPet",
	// "operation/getPet", "response/getPet/404", "auth", "removal/date"...
	Fact string
	// Section is where the document states the value.
	Section string
	// Pointer is the JSON pointer of the description's node ("#/components/schemas/NewPet/required").
	Pointer string
	// Message says what the spec has and what the document says, in one line.
	Message string
}

// Facts the departures name, for those who ask about one (Departures.Of).
const (
	FactLimitMin     = "limit/minimum"
	FactLimitMax     = "limit/maximum"
	FactLimitDefault = "limit/default"
	FactPetStatus    = "petstatus"
	FactAuth         = "auth"
	FactRemovalDate  = "removal/date"
	FactReplacement  = "removal/replacement"
	FactDeprecated   = "removal/deprecated"
)

// FactRequired names the departure of a record's required fields.
func FactRequired(record string) string { return "required/" + record }

// FactOperation names the departure of an operation (missing, or at another method or path).
func FactOperation(id string) string { return "operation/" + id }

// FactResponse names the departure of a response status the document lists for an operation.
func FactResponse(id string, status int) string { return "response/" + id + "/" + strconv.Itoa(status) }

// Departures are a description's departures from the document, in the order the document
// states its facts.
type Departures []Departure

// Of returns the departure of fact, if the description departs there.
func (ds Departures) Of(fact string) (Departure, bool) {
	for _, d := range ds {
		if d.Fact == fact {
			return d, true
		}
	}
	return Departure{}, false
}

// Compare lists every value of doc that departs from the document. It works on documents
// kin-openapi rejected as far as they go: what is missing is a departure, never a panic.
func Compare(doc *openapi3.T) Departures {
	c := comparer{doc: doc}
	c.operations()
	c.limit()
	c.statusFilter()
	c.petStatus()
	c.records()
	c.auth()
	c.removal()
	return c.out
}

type comparer struct {
	doc *openapi3.T
	out Departures
}

func (c *comparer) add(fact, section, pointer, format string, args ...any) {
	c.out = append(c.out, Departure{Fact: fact, Section: section, Pointer: pointer,
		Message: fmt.Sprintf(format, args...) + " (section " + section + ")"})
}

// found is an operation of the description with its JSON pointer.
type found struct {
	method, path, ptr string
	op                *openapi3.Operation
}

// find returns the operation with operationId id.
func (c *comparer) find(id string) (found, bool) {
	if c.doc == nil || c.doc.Paths == nil {
		return found{}, false
	}
	for path, item := range c.doc.Paths.Map() {
		if item == nil {
			continue
		}
		for method, op := range item.Operations() {
			if op != nil && op.OperationID == id {
				return found{method: method, path: path, ptr: spec.Pointer("paths", path, strings.ToLower(method)), op: op}, true
			}
		}
	}
	return found{}, false
}

func (c *comparer) operations() {
	for _, o := range Operations {
		f, ok := c.find(o.ID)
		switch {
		case !ok:
			if at, ok := c.at(o.Method, o.Path); ok {
				c.add(FactOperation(o.ID), o.Section, at.ptr+"/operationId",
					"%s %s is operation %q in the spec; the document names it %s", o.Method, o.Path, at.op.OperationID, o.ID)
			} else {
				c.add(FactOperation(o.ID), o.Section, spec.Pointer("paths"),
					"the spec has no operation %s; the document describes %s %s", o.ID, o.Method, o.Path)
			}
			continue
		case f.method != o.Method || f.path != o.Path:
			c.add(FactOperation(o.ID), o.Section, f.ptr+"/operationId",
				"%s is %s %s in the spec; the document says %s %s", o.ID, f.method, f.path, o.Method, o.Path)
		}
		for _, status := range o.Statuses {
			code := strconv.Itoa(status)
			if f.op.Responses == nil || f.op.Responses.Value(code) == nil {
				c.add(FactResponse(o.ID, status), o.Section, f.ptr+"/responses/"+code,
					"%s documents no %d response; the document lists %d", o.ID, status, status)
			}
		}
	}
}

// at returns the operation at method and path, whatever its operationId.
func (c *comparer) at(method, path string) (found, bool) {
	if c.doc == nil || c.doc.Paths == nil {
		return found{}, false
	}
	item := c.doc.Paths.Value(path)
	if item == nil || item.GetOperation(method) == nil {
		return found{}, false
	}
	return found{method: method, path: path, ptr: spec.Pointer("paths", path, strings.ToLower(method)), op: item.GetOperation(method)}, true
}

// param is a query parameter of an operation with the pointer of its schema.
func (c *comparer) param(opID, name string) (*openapi3.Parameter, string, bool) {
	f, ok := c.find(opID)
	if !ok {
		return nil, "", false
	}
	for i, ref := range f.op.Parameters {
		if ref == nil || ref.Value == nil || ref.Value.In != openapi3.ParameterInQuery || ref.Value.Name != name {
			continue
		}
		ptr := f.ptr + "/parameters/" + strconv.Itoa(i)
		if ref.Ref != "" {
			ptr = ref.Ref
		}
		return ref.Value, ptr, true
	}
	return nil, f.ptr + "/parameters", false
}

// schemaPointer is where the schema of p lies: its $ref, or inline under ptr.
func schemaPointer(p *openapi3.Parameter, ptr string) string {
	if p.Schema != nil && p.Schema.Ref != "" {
		return p.Schema.Ref
	}
	return ptr + "/schema"
}

func (c *comparer) limit() {
	p, ptr, ok := c.param(Limit.Operation, Limit.Parameter)
	if !ok {
		if ptr != "" {
			c.add(FactLimitMax, Limit.Section, ptr, "%s has no query parameter %s; the document gives it", Limit.Operation, Limit.Parameter)
		}
		return
	}
	if p.Required {
		c.add(FactLimitDefault, Limit.Section, ptr+"/required", "%s %s is required in the spec; the document makes it optional, %d when absent",
			Limit.Operation, Limit.Parameter, Limit.Default)
	}
	if p.Schema == nil || p.Schema.Value == nil {
		return
	}
	s, sp := p.Schema.Value, schemaPointer(p, ptr)
	bound := func(fact, keyword string, got *float64, want int64) {
		switch {
		case got == nil:
			c.add(fact, Limit.Section, sp+"/"+keyword, "%s %s has no %s; the document says %d", Limit.Operation, Limit.Parameter, keyword, want)
		case *got != float64(want):
			c.add(fact, Limit.Section, sp+"/"+keyword, "%s %s %s is %s in the spec; the document says %d",
				Limit.Operation, Limit.Parameter, keyword, Number(*got), want)
		}
	}
	bound(FactLimitMin, "minimum", s.Min, Limit.Min)
	bound(FactLimitMax, "maximum", s.Max, Limit.Max)
	var def *float64
	if n, ok := number(s.Default); ok {
		def = &n
	}
	bound(FactLimitDefault, "default", def, Limit.Default)
}

func (c *comparer) statusFilter() {
	p, ptr, ok := c.param(StatusFilter.Operation, StatusFilter.Parameter)
	switch {
	case !ok && ptr != "":
		c.add(FactPetStatus, StatusFilter.Section, ptr, "%s has no query parameter %s; the document gives the status filter",
			StatusFilter.Operation, StatusFilter.Parameter)
	case ok && p.Required:
		c.add(FactPetStatus, StatusFilter.Section, ptr+"/required", "%s %s is required in the spec; the document makes the filter optional",
			StatusFilter.Operation, StatusFilter.Parameter)
	}
}

func (c *comparer) petStatus() {
	ptr := spec.Pointer("components", "schemas", PetStatus.Schema)
	var got []string
	if c.doc != nil && c.doc.Components != nil {
		if ref := c.doc.Components.Schemas[PetStatus.Schema]; ref != nil && ref.Value != nil {
			for _, v := range ref.Value.Enum {
				got = append(got, fmt.Sprint(v))
			}
		}
	}
	if !sameSet(got, PetStatus.Values) {
		c.add(FactPetStatus, PetStatus.Section, ptr+"/enum", "PetStatus is %s in the spec; the document says %s",
			list(got), list(PetStatus.Values))
	}
}

// schema returns the named component schema and its pointer.
func (c *comparer) schema(name string) (*openapi3.Schema, string) {
	ptr := spec.Pointer("components", "schemas", name)
	if c.doc == nil || c.doc.Components == nil {
		return nil, ptr
	}
	if ref := c.doc.Components.Schemas[name]; ref != nil {
		return ref.Value, ptr
	}
	return nil, ptr
}

func (c *comparer) records() {
	for _, r := range Records {
		s, ptr := c.schema(r.Name)
		if s == nil {
			c.add(FactRequired(r.Name), r.Section, spec.Pointer("components", "schemas"), "the spec has no schema %s; the document gives the record", r.Name)
			continue
		}
		if !sameSet(s.Required, r.Required) {
			c.add(FactRequired(r.Name), r.Section, ptr+"/required", "%s requires %s in the spec; the document requires %s",
				r.Name, list(s.Required), list(r.Required))
		}
	}
}

func (c *comparer) auth() {
	if c.doc == nil {
		return
	}
	bearer := map[string]bool{}
	if c.doc.Components != nil {
		for name, ref := range c.doc.Components.SecuritySchemes {
			if ref != nil && ref.Value != nil && ref.Value.Type == Auth.Type && strings.EqualFold(ref.Value.Scheme, Auth.Scheme) {
				bearer[name] = true
			}
		}
	}
	if len(bearer) == 0 {
		c.add(FactAuth, Auth.Section, spec.Pointer("components", "securitySchemes"),
			"the spec has no HTTP bearer security scheme; the document requires an API key as a bearer token")
		return
	}
	for _, o := range Operations {
		f, ok := c.find(o.ID)
		if !ok {
			continue
		}
		reqs, ptr := c.doc.Security, spec.Pointer("security")
		if f.op.Security != nil {
			reqs, ptr = *f.op.Security, f.ptr+"/security"
		}
		if !requiresBearer(reqs, bearer) {
			c.add(FactAuth, Auth.Section, ptr, "%s does not require the bearer token; the document requires it of every operation", o.ID)
		}
	}
}

// requiresBearer reports whether every alternative of reqs includes a bearer scheme, so
// that no request passes without the key.
func requiresBearer(reqs openapi3.SecurityRequirements, bearer map[string]bool) bool {
	if len(reqs) == 0 {
		return false
	}
	for _, alt := range reqs {
		has := false
		for name := range alt {
			has = has || bearer[name]
		}
		if !has {
			return false
		}
	}
	return true
}

func (c *comparer) removal() {
	f, ok := c.find(Removal.Operation)
	if !ok {
		return // operations() reported it
	}
	if !f.op.Deprecated {
		c.add(FactDeprecated, Removal.Section, f.ptr+"/deprecated", "%s is not deprecated in the spec; the document deprecates it", Removal.Operation)
	}
	if got, _ := f.op.Extensions[spec.ExtSunset].(string); got != Removal.Date {
		c.add(FactRemovalDate, Removal.Section, f.ptr+"/"+spec.ExtSunset, "%s's removal date (%s) is %q in the spec; the document says %s",
			Removal.Operation, spec.ExtSunset, got, Removal.Date)
	}
	if got, _ := f.op.Extensions[spec.ExtReplacedBy].(string); got != Removal.ReplacedBy {
		c.add(FactReplacement, Removal.Section, f.ptr+"/"+spec.ExtReplacedBy, "%s's replacement (%s) is %q in the spec; the document says %s",
			Removal.Operation, spec.ExtReplacedBy, got, Removal.ReplacedBy)
	}
}

// Number formats a number of a description as the document would: an integer without a
// fraction (100, not 100.00).
func Number(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func list(vs []string) string {
	if len(vs) == 0 {
		return "nothing"
	}
	return strings.Join(vs, ", ")
}

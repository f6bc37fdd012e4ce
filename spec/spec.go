// Package spec embeds the pet store's OpenAPI description, spec/openapi.yaml, and reads from
// it the facts that the reference server and the conformance harness need (operations,
// parameter bounds, enumerations, deprecation dates), so that neither hard-codes them.
package spec

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed openapi.yaml
var embedded []byte

// Bytes returns the embedded openapi.yaml as written.
func Bytes() []byte { return embedded }

var (
	loadOnce sync.Once
	loaded   *openapi3.T
	loadErr  error
)

// Load returns the embedded description, parsed and validated once. The document is shared:
// callers must not modify it (use Parse(Bytes()) for a private copy).
func Load() (*openapi3.T, error) {
	loadOnce.Do(func() { loaded, loadErr = Parse(embedded) })
	return loaded, loadErr
}

// MustLoad is Load for tests and examples: it panics if the embedded description is invalid,
// which a unit test of this package rules out.
func MustLoad() *openapi3.T {
	doc, err := Load()
	if err != nil {
		panic(err)
	}
	return doc
}

// Parse parses and validates an OpenAPI 3.0 description (YAML or JSON). Examples are
// validated against their schemas.
func Parse(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		if se := CheckSyntax(data); se != nil {
			// The loader's error tries JSON, then YAML, and says both.
			return nil, fmt.Errorf("spec: parse: %w", se)
		}
		return nil, fmt.Errorf("spec: parse: %w", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("spec: invalid: %w", err)
	}
	return doc, nil
}

// LoadFile reads, parses and validates the description at path.
func LoadFile(path string) (*openapi3.T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return Parse(data)
}

// Extension names this project reads from operations.
const (
	ExtSunset          = "x-sunset"           // removal date, YYYY-MM-DD
	ExtDeprecatedSince = "x-deprecated-since" // date the operation was deprecated, YYYY-MM-DD
	ExtReplacedBy      = "x-replaced-by"      // operationId of the replacement
	ExtStability       = "x-stability"        // "experimental" or "beta"
)

// StabilityValues are the values the stability extension may take (interface section 9.4).
var StabilityValues = []string{"experimental", "beta"}

// Operation is one operation of the description with the facts the project reads from it.
type Operation struct {
	ID              string
	Method          string // upper case, e.g. "GET"
	Path            string // as in the description, e.g. "/pets/{petId}"
	Op              *openapi3.Operation
	Deprecated      bool
	Sunset          time.Time // zero when the operation carries no removal date
	DeprecatedSince time.Time // zero when not given
	ReplacedBy      string
	Stability       string // "" when the operation is not marked
	Secured         bool   // whether a security requirement applies
	Statuses        []int  // documented response statuses, ascending
}

// HasStatus reports whether the operation documents the response status code.
func (o Operation) HasStatus(code int) bool {
	for _, s := range o.Statuses {
		if s == code {
			return true
		}
	}
	return false
}

// Gone reports whether the operation's removal date has been reached at now.
func (o Operation) Gone(now time.Time) bool {
	return !o.Sunset.IsZero() && !now.Before(o.Sunset)
}

// Operations lists every operation of doc, ordered by path and then method.
func Operations(doc *openapi3.T) ([]Operation, error) {
	var ops []Operation
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			o, err := newOperation(doc, method, path, op)
			if err != nil {
				return nil, err
			}
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops, nil
}

// FindOperation returns the operation with the given operationId.
func FindOperation(doc *openapi3.T, id string) (Operation, error) {
	ops, err := Operations(doc)
	if err != nil {
		return Operation{}, err
	}
	for _, o := range ops {
		if o.ID == id {
			return o, nil
		}
	}
	return Operation{}, fmt.Errorf("spec: no operation %q", id)
}

func newOperation(doc *openapi3.T, method, path string, op *openapi3.Operation) (Operation, error) {
	o := Operation{
		ID:         op.OperationID,
		Method:     strings.ToUpper(method),
		Path:       path,
		Op:         op,
		Deprecated: op.Deprecated,
		ReplacedBy: extString(op.Extensions, ExtReplacedBy),
		Stability:  extString(op.Extensions, ExtStability),
	}
	var err error
	if o.Sunset, err = extDate(op.Extensions, ExtSunset); err != nil {
		return o, fmt.Errorf("spec: %s %s: %w", o.Method, path, err)
	}
	if o.DeprecatedSince, err = extDate(op.Extensions, ExtDeprecatedSince); err != nil {
		return o, fmt.Errorf("spec: %s %s: %w", o.Method, path, err)
	}
	security := doc.Security
	if op.Security != nil {
		security = *op.Security
	}
	for _, req := range security {
		if len(req) > 0 {
			o.Secured = true
		}
	}
	if op.Responses != nil {
		for code := range op.Responses.Map() {
			if n, err := strconv.Atoi(code); err == nil {
				o.Statuses = append(o.Statuses, n)
			}
		}
	}
	sort.Ints(o.Statuses)
	return o, nil
}

func extString(ext map[string]any, key string) string {
	s, _ := ext[key].(string)
	return s
}

func extDate(ext map[string]any, key string) (time.Time, error) {
	v, ok := ext[key]
	if !ok {
		return time.Time{}, nil
	}
	s, ok := v.(string)
	if !ok {
		return time.Time{}, fmt.Errorf("%s: want a date string YYYY-MM-DD, got %v", key, v)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: want a date YYYY-MM-DD: %w", key, err)
	}
	return t, nil
}

// IntBounds describes an integer parameter's constraints. Has* report which are set.
type IntBounds struct {
	Min, Max, Default          int64
	HasMin, HasMax, HasDefault bool
}

// QueryInt returns the bounds of the integer query parameter name of operation opID.
func QueryInt(doc *openapi3.T, opID, name string) (IntBounds, error) {
	o, err := FindOperation(doc, opID)
	if err != nil {
		return IntBounds{}, err
	}
	p := o.Op.Parameters.GetByInAndName(openapi3.ParameterInQuery, name)
	if p == nil || p.Schema == nil || p.Schema.Value == nil {
		return IntBounds{}, fmt.Errorf("spec: %s has no query parameter %q", opID, name)
	}
	s := p.Schema.Value
	if !s.Type.Is(openapi3.TypeInteger) {
		return IntBounds{}, fmt.Errorf("spec: %s query parameter %q is not an integer", opID, name)
	}
	var b IntBounds
	if s.Min != nil {
		b.Min, b.HasMin = int64(*s.Min), true
	}
	if s.Max != nil {
		b.Max, b.HasMax = int64(*s.Max), true
	}
	if s.Default != nil {
		switch d := s.Default.(type) {
		case float64:
			b.Default, b.HasDefault = int64(d), true
		case int:
			b.Default, b.HasDefault = int64(d), true
		case int64:
			b.Default, b.HasDefault = d, true
		}
	}
	return b, nil
}

// EnumValues returns the enumeration of the component schema name, as strings.
func EnumValues(doc *openapi3.T, name string) ([]string, error) {
	ref := doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("spec: no schema %q", name)
	}
	var out []string
	for _, v := range ref.Value.Enum {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("spec: schema %q has a non-string enum value %v", name, v)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("spec: schema %q has no enum", name)
	}
	return out, nil
}

// StatusValues returns the PetStatus enumeration.
func StatusValues(doc *openapi3.T) ([]string, error) { return EnumValues(doc, "PetStatus") }

// BasePath returns the path part shared by every server URL (for this interface "/v1"),
// without a trailing slash. Server variables are expanded with their defaults.
func BasePath(doc *openapi3.T) (string, error) {
	if len(doc.Servers) == 0 {
		return "", errors.New("spec: no servers")
	}
	base := ""
	for i, s := range doc.Servers {
		p, err := ServerPath(s)
		if err != nil {
			return "", err
		}
		if i == 0 {
			base = p
		} else if p != base {
			return "", fmt.Errorf("spec: servers disagree on the base path: %q and %q", base, p)
		}
	}
	return base, nil
}

// ServerPath returns the path of a server's URL, its variables expanded with their defaults,
// without a trailing slash ("https://{host}/v1" gives "/v1").
func ServerPath(s *openapi3.Server) (string, error) {
	raw := s.URL
	for name, v := range s.Variables {
		if v != nil {
			raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("spec: server %q: %w", s.URL, err)
	}
	return strings.TrimSuffix(u.Path, "/"), nil
}

// VersionSegment returns the last segment of the base path ("v1").
func VersionSegment(doc *openapi3.T) (string, error) {
	base, err := BasePath(doc)
	if err != nil {
		return "", err
	}
	return base[strings.LastIndex(base, "/")+1:], nil
}

// Package grownspec grows a copy of spec/openapi.yaml as a spec author would, for the tests
// of the operations the reference serves by their shape (reference/internal/core/generic.go): each
// addition is a YAML file of this directory whose first line names the line it goes after
// and whose second says what it adds. An addition the spec already has (its author added the
// operation or the parameter) is left out, so that the tests run against the spec's own.
package grownspec

import (
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/spec"
)

//go:embed *.yaml
var additions embed.FS

// The additions.
const (
	Delete     = "delete.yaml"      // deletePet: DELETE /pets/{petId}, 204 then 404
	Change     = "change.yaml"      // replacePet (PUT, a NewPet body) and updatePet (PATCH, a merge patch)
	Groom      = "groom.yaml"       // groomPet: POST /pets/{petId}/groom, of no standard shape
	NameFilter = "name-filter.yaml" // listPets' name parameter, a property of its items
	Sort       = "sort.yaml"        // listPets' sort parameter, which the reference does not act on
)

// Text is the embedded spec with the named additions, in order.
func Text(names ...string) ([]byte, error) {
	text := string(spec.Bytes())
	for _, name := range names {
		data, err := additions.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("grownspec: %w", err)
		}
		first, rest, _ := strings.Cut(string(data), "\n")
		second, body, _ := strings.Cut(rest, "\n")
		quoted, ok := strings.CutPrefix(first, "# after: ")
		if i := strings.LastIndex(quoted, `" `); i > 0 {
			quoted = quoted[:i+1] // a remark may follow the quoted line
		}
		after, err := strconv.Unquote(quoted)
		if !ok || err != nil || !strings.Contains(text, after) {
			return nil, fmt.Errorf("grownspec: %s: the line it goes after (%s) is not in the spec", name, first)
		}
		adds, ok := strings.CutPrefix(second, "# adds: ")
		if !ok {
			return nil, fmt.Errorf("grownspec: %s: the second line must say what it adds (# adds: ...)", name)
		}
		has, err := has(text, strings.Fields(adds))
		if err != nil {
			return nil, fmt.Errorf("grownspec: %s: %w", name, err)
		}
		if !has {
			text = strings.Replace(text, after, after+body, 1)
		}
	}
	return []byte(text), nil
}

// has reports whether the description text already has what an addition adds: operations
// by their operationIds, or a parameter (operationId, in, name).
func has(text string, adds []string) (bool, error) {
	doc, err := spec.Parse([]byte(text))
	if err != nil {
		return false, err
	}
	ops, err := spec.Operations(doc)
	if err != nil {
		return false, err
	}
	find := func(id string) *openapi3.Operation {
		if i := slices.IndexFunc(ops, func(o spec.Operation) bool { return o.ID == id }); i >= 0 {
			return ops[i].Op
		}
		return nil
	}
	if len(adds) == 3 && (adds[1] == openapi3.ParameterInQuery || adds[1] == openapi3.ParameterInPath) {
		op := find(adds[0])
		return op != nil && op.Parameters.GetByInAndName(adds[1], adds[2]) != nil, nil
	}
	n := 0
	for _, id := range adds {
		if find(id) != nil {
			n++
		}
	}
	if n > 0 && n < len(adds) {
		return false, fmt.Errorf("the spec has some of %v and not the others", adds)
	}
	return n == len(adds), nil
}

// Package grownspec grows a copy of spec/openapi.yaml as a spec author would, for the tests
// of the operations the reference serves by their shape (reference/generic.go): each
// addition is a YAML file of this directory whose first line names the line it goes after.
package grownspec

import (
	"embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/petstore/petstore/spec"
)

//go:embed *.yaml
var additions embed.FS

// The additions.
const (
	Delete     = "delete.yaml"      // deletePet: DELETE /pets/{petId}, 204 then 404
	Change     = "change.yaml"      // replacePet (PUT, a NewPet body) and updatePet (PATCH, a merge patch)
	Groom      = "groom.yaml"       // groomPet: POST /pets/{petId}/groom, of no standard shape
	NameFilter = "name-filter.yaml" // listPets' name (a property of its items) and sort parameters
)

// Text is the embedded spec with the named additions, in order.
func Text(names ...string) ([]byte, error) {
	text := string(spec.Bytes())
	for _, name := range names {
		data, err := additions.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("grownspec: %w", err)
		}
		first, body, _ := strings.Cut(string(data), "\n")
		quoted, ok := strings.CutPrefix(first, "# after: ")
		if i := strings.LastIndex(quoted, `" `); i > 0 {
			quoted = quoted[:i+1] // a remark may follow the quoted line
		}
		after, err := strconv.Unquote(quoted)
		if !ok || err != nil || !strings.Contains(text, after) {
			return nil, fmt.Errorf("grownspec: %s: the line it goes after (%s) is not in the spec", name, first)
		}
		text = strings.Replace(text, after, after+body, 1)
	}
	return []byte(text), nil
}

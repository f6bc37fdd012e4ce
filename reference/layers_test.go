package reference

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// roomOf is the layer a file of the package belongs to: the pure reference at the bottom,
// the fast paths (fast_*.go) and the test double (double*.go) side by side above it, and the
// assembly that plugs them together (server.go, config.go) on top.
func roomOf(file string) int {
	switch {
	case file == "server.go" || file == "config.go":
		return 3
	case strings.HasPrefix(file, "fast_"):
		return 1
	case strings.HasPrefix(file, "double"):
		return 2
	}
	return 0
}

// A file uses only names declared in its own room or in a room below: the pure reference
// knows neither its fast paths nor the double, and those two do not know each other.
func TestRoomsStackWithoutUsesPointingUp(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	declaredIn := map[string]string{} // package-level name → file
	parsed := map[string]*ast.File{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		parsed[name] = f
		for _, obj := range f.Scope.Objects {
			declaredIn[obj.Name] = name
		}
	}
	require.Contains(t, declaredIn, "decodeNewPetQuick", "the files were read")
	for name, f := range parsed {
		for _, id := range f.Unresolved {
			other, ok := declaredIn[id.Name]
			if !ok || other == name {
				continue
			}
			from, to := roomOf(name), roomOf(other)
			if to > from || (from != to && from != 3 && to != 0) {
				t.Errorf("%s (room %d) uses %s of %s (room %d)", name, from, id.Name, other, to)
			}
		}
	}
}

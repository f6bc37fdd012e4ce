package reference

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
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
// knows neither its fast paths nor the double, and those two do not know each other. Uses
// are found by type-checking the package, so a method or a field reached through a
// selector counts as much as a function or a type.
func TestRoomsStackWithoutUsesPointingUp(t *testing.T) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", ".").Output()
	require.NoError(t, err)
	exports := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if path, file, ok := strings.Cut(line, " "); ok && file != "" {
			exports[path] = file
		}
	}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		parsed = append(parsed, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	pkg, err := conf.Check("github.com/petstore/petstore/reference", fset, parsed, info)
	require.NoError(t, err)
	uses := 0
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		from, to := filepath.Base(fset.Position(id.Pos()).Filename), filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		uses++
		if a, b := roomOf(from), roomOf(to); b > a || (a != b && a != 3 && b != 0) {
			t.Errorf("%s (room %d) uses %s of %s (room %d)", fset.Position(id.Pos()), a, id.Name, to, b)
		}
	}
	require.Greater(t, uses, 100, "the uses were found")
}

package conformance_test

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/petstore/petstore/"

// layers order the module's packages: a package may import only packages of a lower layer
// (DESIGN.md, "Layout of the harness"). A name ending in "/" stands for every package under
// it. Commands (cmd/..., .../cmd/...) are above all.
var layers = [][]string{
	{"internal/words", "internal/jsonscan", "internal/secret", "conformance/anatomy", "internal/xsdcheck", "internal/level"},
	{"spec", "internal/buildinfo", "internal/cli", "conformance/mutants/kit", "internal/pact", "internal/schemacheck"},
	{"conformance/report", "internal/document", "internal/grownspec", "internal/clientrules"},
	{"reference/internal/core"},
	{"reference/internal/fast", "reference/double", "reference/internal/testkit"},
	{"reference", "conformance/judge", "conformance/wire"},
	{"reference/referencetest", "conformance/coverage", "conformance/cases"},
	{"conformance/exchange", "conformance/rules"},
	{"conformance", "conformance/explore", "conformance/lint", "conformance/diff", "conformance/proxy", "conformance/pact/check"},
	{"conformance/mutants", "conformance/explore/seqmutants", "zoo", "bench/", "e2e", "examples/"},
}

type pkgInfo struct {
	imports map[string]bool // the module's packages it imports (non-test files)
	doc     bool            // a file carries the package's doc comment
}

// modulePackages reads every package of the module (not the zoo's own modules, not
// testdata) with go/parser: its imports within the module and whether it has a doc comment.
func modulePackages(t *testing.T) map[string]*pkgInfo {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	pkgs := map[string]*pkgInfo{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "bin") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // a module of its own (the zoo's Go servers)
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := pkgs[rel]
		if p == nil {
			p = &pkgInfo{imports: map[string]bool{}}
			pkgs[rel] = p
		}
		p.doc = p.doc || f.Doc != nil
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(ip, module) {
				p.imports[strings.TrimPrefix(ip, module)] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return pkgs
}

func layerOf(pkg string) int {
	if strings.HasPrefix(pkg, "cmd/") || strings.Contains(pkg, "/cmd/") {
		return len(layers)
	}
	for i, l := range layers {
		for _, p := range l {
			if p == pkg || strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p) {
				return i
			}
		}
	}
	return -1
}

// reaches reports whether from imports to, directly or through other packages.
func reaches(pkgs map[string]*pkgInfo, from, to string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(p string) bool {
		if p == to {
			return true
		}
		if seen[p] || pkgs[p] == nil {
			return false
		}
		seen[p] = true
		for imp := range pkgs[p].imports {
			if walk(imp) {
				return true
			}
		}
		return false
	}
	for imp := range pkgs[from].imports {
		if walk(imp) {
			return true
		}
	}
	return false
}

// TestLayout keeps the dependencies running one way: every package has a layer, imports
// only lower ones, and carries a doc comment; and the edges issue 16 names stay absent.
func TestLayout(t *testing.T) {
	pkgs := modulePackages(t)
	require.Contains(t, pkgs, "conformance/report", "the walk found the module's packages")
	var names []string
	for name := range pkgs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := pkgs[name]
		assert.True(t, p.doc, "package %s has no doc comment saying what it owns", name)
		l := layerOf(name)
		if !assert.GreaterOrEqual(t, l, 0, "package %s has no layer: add it to layers (and to DESIGN.md)", name) {
			continue
		}
		for imp := range p.imports {
			// A tool under a library of its own layer (bench/latency/measure) may use it.
			if layerOf(imp) == l && strings.HasPrefix(name, imp+"/") {
				continue
			}
			assert.Less(t, layerOf(imp), l, "%s imports %s, which is not below it", name, imp)
		}
	}

	// The contents table of docs/layout.md names every part of the tree.
	page, err := os.ReadFile("../docs/layout.md")
	require.NoError(t, err)
	_, contents, ok := strings.Cut(string(page), "\n## Contents\n")
	require.True(t, ok, "docs/layout.md has a section Contents")
	contents, _, _ = strings.Cut(contents, "\n## ")
	for _, name := range names {
		part := strings.SplitN(name, "/", 3)
		entry := part[0] + "/"
		if part[0] == "conformance" && len(part) > 1 && part[1] != "cmd" {
			entry = part[0] + "/" + part[1] + "/"
		}
		if part[0] == "cmd" {
			entry = name
		}
		assert.Contains(t, contents, "`"+entry, "the contents table of docs/layout.md does not name %s (package %s)", entry, name)
	}

	// The result model and its writers read nothing but the standard library, spec, the
	// wording of counts and the level type.
	for imp := range pkgs["conformance/report"].imports {
		assert.Contains(t, []string{"spec", "internal/words", "internal/level"}, imp, "conformance/report imports %s", imp)
	}
	// The shared judge reads the facts and writes findings, nothing else.
	for imp := range pkgs["conformance/judge"].imports {
		assert.Contains(t, []string{"spec", "conformance/report", "internal/words"}, imp, "conformance/judge imports %s", imp)
	}
	// The faulty servers' kit is plumbing over net/http: any test or mutant may use it.
	assert.Empty(t, pkgs["conformance/mutants/kit"].imports, "conformance/mutants/kit imports the module")
	// internal/cli is command plumbing (exit codes, flags, --help): only commands use it.
	for _, name := range names {
		if layerOf(name) == len(layers) {
			continue
		}
		assert.False(t, pkgs[name].imports["internal/cli"], "%s imports internal/cli, which only commands may use (counts: internal/words)", name)
	}
	// Rules see the Check API and the facts, never the runner or the session.
	for _, below := range []string{"conformance", "conformance/exchange"} {
		assert.False(t, reaches(pkgs, "conformance/rules", below), "conformance/rules reaches %s", below)
	}
	// The reference's rooms: the core knows neither its fast paths nor the test double, and
	// those two do not know each other.
	for _, edge := range [][2]string{
		{"reference/internal/core", "reference/internal/fast"}, {"reference/internal/core", "reference/double"},
		{"reference/internal/fast", "reference/double"}, {"reference/double", "reference/internal/fast"},
	} {
		assert.False(t, reaches(pkgs, edge[0], edge[1]), "%s reaches %s", edge[0], edge[1])
	}
	// The reference's test kit is for tests only.
	for _, name := range names {
		assert.False(t, pkgs[name].imports["reference/internal/testkit"], "%s imports reference/internal/testkit, which only tests may use", name)
	}
	// The case generator and the explorer stand apart from the runner.
	assert.False(t, reaches(pkgs, "conformance/cases", "conformance"), "conformance/cases reaches the runner")
	assert.False(t, reaches(pkgs, "conformance/explore", "conformance"), "conformance/explore reaches the runner")
	// The mutants prove the harness through its library, not through a command.
	for _, name := range names {
		if strings.HasPrefix(name, "cmd/") {
			assert.False(t, reaches(pkgs, "conformance/mutants", name), "conformance/mutants reaches %s", name)
		}
	}
}

// oneDoorExempt are the packages of conformance/ that may hold an HTTP client of their own:
// the one door every request of run, explore and replay goes through, and the proxy, which
// forwards a client's requests.
var oneDoorExempt = []string{"exchange", "proxy"}

// clientUses lists where the Go source src (a file named name) constructs an http.Client or
// sends through net/http's package-level client: http.Client{...}, new(http.Client),
// http.DefaultClient, http.DefaultTransport, http.Get, http.Head, http.Post, http.PostForm.
func clientUses(t *testing.T, name string, src any) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	require.NoError(t, err)
	httpName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"net/http"` {
			httpName = "http"
			if imp.Name != nil {
				httpName = imp.Name.Name
			}
		}
	}
	if httpName == "" {
		return nil
	}
	isHTTP := func(e ast.Expr, names ...string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && id.Name == httpName && id.Obj == nil && slices.Contains(names, sel.Sel.Name)
	}
	// *http.Client is how a caller hands its client to the one door (Target.Client); any
	// other mention of http.Client (a value, an alias, a composite) or of a transport makes
	// one.
	pointed := map[ast.Node]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if st, ok := n.(*ast.StarExpr); ok {
			pointed[st.X] = true
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		var what string
		switch n := n.(type) {
		case *ast.SelectorExpr:
			switch {
			case isHTTP(n, "DefaultClient", "DefaultTransport", "Get", "Head", "Post", "PostForm", "Transport", "RoundTripper"):
				what = "http." + n.Sel.Name
			case isHTTP(n, "Client") && !pointed[n]:
				what = "http.Client"
			}
		}
		if what != "" {
			out = append(out, fset.Position(n.Pos()).String()+": "+what)
		}
		return true
	})
	return out
}

// TestOneDoor holds DESIGN.md's "One door": explore (and replay, which lives in it) sends
// through conformance/exchange, and outside exchange and the proxy no file of conformance/
// makes an HTTP client of its own or sends through net/http's default one.
func TestOneDoor(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./explore").Output()
	require.NoError(t, err, "go list -deps ./conformance/explore")
	assert.Contains(t, strings.Fields(string(out)), module+"conformance/exchange", "conformance/explore does not depend on conformance/exchange")

	// The check finds what it looks for.
	bad := `package p
import web "net/http"
var a = &web.Client{}
var b = web.Client{Timeout: 1}
var c = new(web.Client)
func d() { _, _ = web.Get("x"); _ = web.DefaultClient; _ = web.DefaultTransport; _, _ = web.Post("x", "", nil) }
var e web.Client
type f = web.Client
func g(r *web.Request) { _, _ = (&web.Transport{}).RoundTrip(r) }
var h web.RoundTripper
`
	assert.Len(t, clientUses(t, "bad.go", bad), 11)
	assert.Empty(t, clientUses(t, "good.go", "package p\nimport \"net/http\"\nfunc f(c *http.Client, r *http.Request) { _, _ = c.Do(r) }\n"))

	files := 0
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || slices.Contains(oneDoorExempt, filepath.ToSlash(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		for _, use := range clientUses(t, path, nil) {
			t.Errorf("conformance/%s: only conformance/exchange (and the proxy) may hold an HTTP client; send through an exchange.Session", use)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, files, 50, "the walk read the harness's files")

	// Nor does a package of the module outside conformance/ that explore depends on.
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, module)
		if !ok || strings.HasPrefix(rel, "conformance") {
			continue
		}
		entries, err := os.ReadDir(filepath.Join("..", rel))
		require.NoError(t, err)
		for _, e := range entries {
			if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				for _, use := range clientUses(t, filepath.Join("..", rel, name), nil) {
					t.Errorf("%s: explore depends on it, and only conformance/exchange may hold an HTTP client", use)
				}
			}
		}
	}
}

// schemaCompilerMarks says whether the Go source src (a file named name) holds a compiled
// schema checker: it reads a schema's JSON type (openapi3.TypeObject, TypeInteger ...) and
// walks JSON text with a scanner of its own (jsonscan.New), which is what compiling a schema
// into a check of the text takes. It returns where, or "".
func schemaCompilerMarks(t *testing.T, name string, src any) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	require.NoError(t, err)
	names := map[string]string{} // import path to the name it is used by
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		n := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			n = imp.Name.Name
		}
		names[p] = n
	}
	oa, js := names["github.com/getkin/kin-openapi/openapi3"], names[module+"internal/jsonscan"]
	if oa == "" || js == "" {
		return ""
	}
	var types, scans token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		switch {
		case !ok || id.Obj != nil:
		case id.Name == oa && slices.Contains([]string{"TypeObject", "TypeArray", "TypeString", "TypeInteger", "TypeNumber", "TypeBoolean"}, sel.Sel.Name):
			types = cmp.Or(types, sel.Pos())
		case id.Name == js && sel.Sel.Name == "New":
			scans = cmp.Or(scans, sel.Pos())
		}
		return true
	})
	if types == token.NoPos || scans == token.NoPos {
		return ""
	}
	return fset.Position(types).String()
}

// TestOneSchemaChecker holds DESIGN.md's "Below both sides": the module has one compiled
// schema checker, internal/schemacheck, which the reference and the harness both use; a
// second one anywhere else (a copy of it, or a compiler of one's own) fails here.
func TestOneSchemaChecker(t *testing.T) {
	// The check finds the checker, under another package name and import names too.
	own, err := os.ReadFile("../internal/schemacheck/schemacheck.go")
	require.NoError(t, err)
	assert.NotEmpty(t, schemaCompilerMarks(t, "schemacheck.go", own), "the check does not find internal/schemacheck")
	copied := strings.Replace(string(own), "package schemacheck", "package exchange", 1)
	copied = strings.Replace(copied, `"github.com/getkin/kin-openapi/openapi3"`, `oa "github.com/getkin/kin-openapi/openapi3"`, 1)
	copied = strings.ReplaceAll(copied, "openapi3.", "oa.")
	assert.NotEmpty(t, schemaCompilerMarks(t, "copy.go", copied), "the check does not find a copy of the checker")

	files := 0
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(path)
		if d.IsDir() {
			name := d.Name()
			if rel == "../internal/schemacheck" || name == "testdata" || name == "node_modules" || path != ".." && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		if at := schemaCompilerMarks(t, path, nil); at != "" {
			t.Errorf("%s: a compiled schema checker outside internal/schemacheck; use that one (DESIGN.md, \"Below both sides\")", at)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, files, 200, "the walk read the module's files")
}

package lint

import (
	"strconv"
	"strings"

	yaml "github.com/oasdiff/yaml3"

	"github.com/petstore/petstore/spec"
)

// Where a finding is in the file: the line and column of the node its JSON pointer names,
// read from the YAML node tree (JSON is YAML too).

// locator finds the line and column of JSON pointers in one file.
type locator struct{ root *yaml.Node }

// locate parses data as YAML. A syntax error becomes the one finding of the file, leading
// with its line, with nothing of a JSON parser's reading of it.
func locate(data []byte) (*locator, *Finding) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		se := spec.CheckSyntax(data)
		if se == nil { // cannot be: the same parser
			se = &spec.SyntaxError{Msg: oneLine(err.Error())}
		}
		return nil, &Finding{Rule: RuleParse, Severity: Error, Pointer: "#", Line: se.Line, Message: se.Msg}
	}
	return &locator{root: &root}, nil
}

// position returns the line and column of the node ptr names, or of its deepest ancestor
// the file has (a missing summary points at its operation); 0, 0 without a file.
func (l *locator) position(ptr string) (line, col int) {
	if l == nil || l.root == nil {
		return 0, 0
	}
	n := l.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line, col = n.Line, n.Column
	ptr = strings.TrimPrefix(strings.TrimPrefix(ptr, "#"), "/")
	if ptr == "" {
		return line, col
	}
	for _, tok := range strings.Split(ptr, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		next, key := child(n, tok)
		if next == nil {
			return line, col
		}
		line, col = key.Line, key.Column
		n = next
	}
	return line, col
}

// child returns n's member named tok (a mapping key or a sequence index) and the node that
// names it: the key, or the item itself.
func child(n *yaml.Node, tok string) (value, key *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == tok {
				return n.Content[i+1], n.Content[i]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i], n.Content[i]
		}
	}
	return nil, nil
}

// place gives every finding the line and column of its pointer.
func (l *locator) place(fs []Finding) []Finding {
	for i := range fs {
		if fs[i].Line == 0 {
			fs[i].Line, fs[i].Column = l.position(fs[i].Pointer)
		}
	}
	return fs
}

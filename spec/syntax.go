package spec

import (
	"regexp"
	"strconv"
	"strings"

	yaml "github.com/oasdiff/yaml3"
)

// SyntaxError is a description that is neither YAML nor JSON (JSON is YAML too), located as
// the YAML parser locates it. `conformance lint`, `conformance run --spec` and `petstore serve
// --spec` all say it this one way: the line, then what the parser found there.
type SyntaxError struct {
	Line int    // 1-based; 0 when the parser gave none
	Msg  string // one line
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return "line " + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.Msg
}

// yamlLine is the line number the YAML parser puts in its syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// CheckSyntax returns the syntax error of data, or nil when data is YAML (or JSON).
func CheckSyntax(data []byte) *SyntaxError {
	var root yaml.Node
	err := yaml.Unmarshal(data, &root)
	if err == nil {
		return nil
	}
	e := &SyntaxError{Msg: oneLine(strings.TrimPrefix(err.Error(), "yaml: "))}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = oneLine(m[2])
		// The parser names an unclosed flow or block by its start, counting lines from 0
		// there (and from 1 elsewhere): "did not find expected ',' or ']'" for "b: [x"
		// on line 2 says line 1.
		if strings.HasPrefix(m[2], "did not find expected") {
			e.Line++
			e.Msg += " (in what starts on this line)"
		}
	}
	return e
}

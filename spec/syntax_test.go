package spec_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// A description that is not YAML gets one line number, the one `conformance lint` gives, and
// none of the loader's reading of it as JSON.
func TestSyntaxErrorHasOneLine(t *testing.T) {
	_, err := spec.Parse([]byte("openapi: 3.0.3\ninfo:\n  title: x\n  bad: [unclosed\n  version: '1'\n"))
	require.Error(t, err)
	var se *spec.SyntaxError
	require.True(t, errors.As(err, &se), err.Error())
	assert.Equal(t, 4, se.Line)
	assert.Equal(t, "spec: parse: line 4: did not find expected ',' or ']' (in what starts on this line)", err.Error())
	assert.NotContains(t, err.Error(), "json")
}

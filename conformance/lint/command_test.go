package lint

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/document"

	"github.com/petstore/petstore/spec"
)

// findingLines are the findings as `conformance lint` prints them, one a line.
func findingLines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

func TestCheckCrossChecksRules(t *testing.T) {
	refs := func(doc *openapi3.T) ([]RuleRef, error) {
		return []RuleRef{{Rule: "getPet/unknown-id-404", Operation: "getPet", Status: 404}}, nil
	}
	src := []byte(string(document.Spec))
	assert.Empty(t, Check(src, refs), "the spec has what the rule expects")
	assert.Equal(t, LintData(spec.Bytes()), Check(spec.Bytes(), nil), "without refs, Check is LintData")

	// A spec without getPet's 404 leaves the rule expecting a response that is gone.
	data := strings.Replace(string(src), "        '404':\n", "        '418':\n", 1)
	found := Check([]byte(data), refs)
	assert.True(t, HasErrors(found))
	assert.Contains(t, findingLines(found), "error rule-response #/paths/~1pets~1{petId}/get/responses/404 rule getPet/unknown-id-404 expects response 404")

	failing := Check(src, func(*openapi3.T) ([]RuleRef, error) { return nil, errors.New("no PetStatus enum") })
	assert.True(t, HasErrors(failing))
	root := 1 + strings.Count(string(src[:strings.Index(string(src), "openapi:")]), "\n") // the document's first key
	assert.Equal(t, fmt.Sprintf("%d:1: error rule-operation # the conformance rules cannot be built from this spec: no PetStatus enum\n", root), findingLines(failing))

	// A file that does not load is the one openapi-parse finding; refs are not called.
	broken, err := os.ReadFile(brokenDir + "/not-openapi.yaml")
	require.NoError(t, err)
	called := false
	assert.Equal(t, LintData(broken), Check(broken, func(*openapi3.T) ([]RuleRef, error) { called = true; return nil, nil }))
	assert.False(t, called)
}

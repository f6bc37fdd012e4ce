package anatomy

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/anatomy.md from the data")

const page = "../../docs/anatomy.md"

// docs/anatomy.md is written from the data; this test fails when it is stale.
func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b))
	if *update {
		require.NoError(t, os.WriteFile(page, b.Bytes(), 0o644))
	}
	have, err := os.ReadFile(page)
	require.NoError(t, err, "run: go test ./conformance/anatomy -run TestMarkdown -update")
	assert.True(t, bytes.Equal(b.Bytes(), have), "docs/anatomy.md is stale: run go test ./conformance/anatomy -run TestMarkdown -update")
}

// The page has the sections the harness's users look for, and every part and stack.
func TestMarkdownContents(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b))
	text := b.String()
	for _, h := range []string{"## How a part is judged", "## What the default run sends", "## What --depth deep adds",
		"## Not covered, and why", "## Conventions of real stacks"} {
		assert.Contains(t, text, "\n"+h+"\n")
	}
	for _, p := range Parts() {
		assert.Contains(t, text, "`"+p.ID+"`")
	}
	for _, c := range Conventions() {
		assert.Contains(t, text, "| "+c.Stack+" |")
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "|") {
			assert.True(t, strings.HasSuffix(line, "|"), "line %d: a table row ends its last cell", i+1)
		}
	}
}

package conformance_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxREADMELines is how long the README may grow: it is a map, and what is longer goes to docs/.
const maxREADMELines = 420

// The README is a map: short, with a place to start for each of the three users, and a link
// to every page of docs/.
func TestREADMEIsAMap(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	lines := strings.Count(string(readme), "\n")
	assert.LessOrEqual(t, lines, maxREADMELines, "README.md has %d lines: move the detail to docs/ and link it", lines)
	for _, user := range []string{"client developers", "CI pipelines", "spec authors"} {
		assert.Contains(t, string(readme), "\n## Start here: "+user+"\n")
	}
	pages, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	for _, page := range pages {
		assert.Contains(t, string(readme), "](docs/"+filepath.Base(page)+")", "README.md does not link %s", page)
	}
}

// Every relative link in README.md and docs/*.md leads to a file that exists and, when it
// names an anchor, to a heading of that file.
func TestDocumentLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "../README.md")
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, l := range markdownLinks(string(text)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(l.target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %q: no file %s", page, l.line, l.target, path)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			target, err := os.ReadFile(path)
			require.NoError(t, err)
			if !headingAnchors(string(target))[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", page, l.line, l.target, path, anchor)
			}
		}
	}
	assert.Greater(t, checked, 20, "the pages link one another")
}

func TestMarkdownLinksAndAnchors(t *testing.T) {
	text := "# A `b` (c): d\n[x](y.md#a-b-c-d) `[no](link)` ![img](i.png)\n```\n[no](code)\n# not a heading\n```\n## A `b` (c): d\n"
	var got []string
	for _, l := range markdownLinks(text) {
		got = append(got, fmt.Sprintf("%d %s", l.line, l.target))
	}
	assert.Equal(t, []string{"2 y.md#a-b-c-d", "2 i.png"}, got)
	assert.Equal(t, map[string]bool{"a-b-c-d": true, "a-b-c-d-1": true}, headingAnchors(text))
}

type mdLink struct {
	line   int
	target string
}

var (
	linkPattern = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
)

// markdownLinks returns the targets of the links and images of a Markdown text, outside
// fenced code blocks and code spans.
func markdownLinks(text string) []mdLink {
	var links []mdLink
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range linkPattern.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, "``"), -1) {
			links = append(links, mdLink{i + 1, m[1]})
		}
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown text: lower
// case, letters, digits, '-' and '_' kept, spaces made '-', the rest dropped, and a repeated
// anchor numbered -1, -2 ...
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		anchors[anchor] = true
	}
	return anchors
}

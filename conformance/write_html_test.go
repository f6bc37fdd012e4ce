package conformance_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/petstore/petstore/conformance"
)

// attr returns n's attribute key, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// The HTML report holds every rule with its outcome, counts that agree with the report, a
// coverage cell for every documented operation × status, and references nothing outside
// the file.
func TestWriteHTML(t *testing.T) {
	rep, _ := goldenReport(t)
	full := failingReport(t)
	for name, rep := range map[string]*conformance.Report{"golden": rep, "full": full} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, conformance.WriteHTML(&out, rep))
			doc, err := html.Parse(bytes.NewReader(out.Bytes()))
			require.NoError(t, err)

			rules := map[string]string{} // rule ID -> status class
			legend := map[string]int{}
			hit, miss := 0, 0
			for n := range doc.Descendants() {
				if n.Type != html.ElementNode {
					continue
				}
				for _, key := range []string{"src", "href", "action", "poster", "data"} {
					v := strings.ToLower(attr(n, key))
					assert.False(t, strings.HasPrefix(v, "http:") || strings.HasPrefix(v, "https:") || strings.HasPrefix(v, "//"),
						"<%s %s=%q> fetches from the network", n.Data, key, v)
					if key == "href" && v != "" {
						assert.True(t, strings.HasPrefix(v, "#"), "a link leaves the page: %q", v)
					}
				}
				assert.NotEqual(t, "link", n.Data, "no external style sheet")
				if n.Data == "script" {
					assert.Empty(t, attr(n, "src"))
				}
				if n.Data == "style" || attr(n, "style") != "" {
					css := strings.ToLower(text(n) + attr(n, "style"))
					assert.NotContains(t, css, "@import")
					assert.NotContains(t, css, "url(")
				}
				switch {
				case n.Data == "details" && hasClass(n, "rule"):
					rules[strings.TrimPrefix(attr(n, "id"), "rule-")] = attr(n, "class")
				case n.Data == "li" && n.Parent != nil && hasClass(n.Parent, "legend"):
					fields := strings.Fields(text(n))
					require.Len(t, fields, 2)
					count, err := strconv.Atoi(fields[0])
					require.NoError(t, err)
					legend[strings.TrimSuffix(fields[1], "s")] = count // "1 warning", "2 warnings"
				case n.Data == "td" && hasClass(n, "hit") && hasClass(n.Parent.Parent.Parent, "matrix"):
					hit++
				case n.Data == "td" && hasClass(n, "miss") && hasClass(n.Parent.Parent.Parent, "matrix"):
					miss++
				}
			}
			require.Len(t, rules, len(rep.Results))
			for _, res := range rep.Results {
				assert.Equal(t, "rule st-"+string(res.Status), rules[res.ID], res.ID)
			}
			c := rep.Counts
			assert.Equal(t, map[string]int{"passed": c.Pass, "failed": c.Fail, "warning": c.Warn, "waived": c.Waived,
				"skipped": c.Skip, "error": c.Error}, legend)
			assert.Equal(t, rep.Coverage.Exercised, hit)
			assert.Equal(t, rep.Coverage.Pairs-rep.Coverage.Exercised, miss)
			page := out.String()
			assert.Contains(t, page, "NOT CONFORMING")
			assert.Contains(t, page, `<button class="copy" type="button">Copy</button>`)
			assert.NotContains(t, page, testKey)
		})
	}
}

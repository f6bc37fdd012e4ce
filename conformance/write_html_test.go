package conformance_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
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

// A passing report shows nothing in the failing colours: no "0 failed" in red, no red
// "pending ×0" chip for an enumeration value never sent, no red "never" for a pair not
// exercised when no coverage minimum failed. Those colours stay for what failed the run.
func TestPassingHTMLReportRaisesNoAlarm(t *testing.T) {
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{Only: []string{"listPets/bare-array"}})
	require.True(t, rep.Conforming())
	var out bytes.Buffer
	require.NoError(t, conformance.WriteHTML(&out, rep))
	doc, err := html.Parse(bytes.NewReader(out.Bytes()))
	require.NoError(t, err)

	// The classes that carry the failing colours, as CSS selectors and as class names.
	alarmingRule := regexp.MustCompile(`[.-](fail|error|bad|gates|short)\b`)
	alarming := regexp.MustCompile(`^(.*-)?(fail|error)$|^(bad|gates|short)$`)
	unsent := 0
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if n.Data == "style" {
			// Every rule in a failing colour is for a class only a failing report carries.
			for _, m := range regexp.MustCompile(`([^{}]+)\{([^}]*)\}`).FindAllStringSubmatch(text(n), -1) {
				if strings.Contains(m[2], "var(--fail)") || strings.Contains(m[2], "var(--error)") {
					for _, sel := range strings.Split(m[1], ",") {
						assert.Regexp(t, alarmingRule, sel, "%q is in a failing colour", strings.TrimSpace(sel))
					}
				}
			}
			continue
		}
		for _, c := range strings.Fields(attr(n, "class")) {
			assert.NotRegexp(t, alarming, c, "<%s class=%q> on a passing report", n.Data, attr(n, "class"))
		}
		if hasClass(n, "unsent") {
			unsent++
		}
	}
	assert.NotZero(t, unsent, "the run leaves enumeration values unsent")
	assert.NotRegexp(t, `×\s*0\b`, out.String(), "no count of zero")
	assert.Contains(t, out.String(), `<header class="top ok">`)

	// Below a coverage minimum, what was never exercised is in the failing colour.
	golden, _ := goldenReport(t)
	out.Reset()
	require.NoError(t, conformance.WriteHTML(&out, golden))
	assert.Contains(t, out.String(), `<table class="matrix short">`)
}

// The HTML report's help names the levels as every other report does (READINGS.md): MUST,
// SHOULD and ADVISORY, and says what each does; INFO, the old name of ADVISORY, is not shown.
func TestHTMLNamesTheLevels(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, conformance.WriteHTML(&out, failingReport(t)))
	page := out.String()
	assert.NotContains(t, page, "INFO")
	assert.Contains(t, page, "<b>MUST</b> rules decide conformance; a failed <b>SHOULD</b> rule is a warning, a failure under <code>--strict</code>; an <b>ADVISORY</b> one is only ever a warning.")
}

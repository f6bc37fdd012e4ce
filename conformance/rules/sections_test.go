package rules_test

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/spec"
)

// outline is what a section reference can name: the numbered headings, how many numbered
// items each holds, and the titles of the subsections under each.
type outline struct {
	items  map[string]int             // "5" → 4 numbered items
	subs   map[string]map[string]bool // "2" → {"Error": true, ...}
	titles map[string]string          // "4.1" → "List all animals"
}

var (
	heading    = regexp.MustCompile(`^(#{2,3}) (\d+(?:\.\d+)?)\.? +(.*?)\s*$`)
	subheading = regexp.MustCompile(`^### ([A-Za-z][A-Za-z ]*?)(?: \(|$)`)
	item       = regexp.MustCompile(`^\s*(\d+)\. `)
	// reference is one part of a rule's Section: "4.1", "5.3" (section 5, item 3), "4.1 rule 3",
	// "4.1 rules 1-2", "2 (Error)"; RFCs are checked apart.
	reference = regexp.MustCompile(`^(\d+)(?:\.(\d+))?(?: rules? (\d+)(?:-(\d+))?)?(?: \(([^)]+)\))?$`)
)

// readOutline reads the interface document, beside the repository (../shared; the test is
// skipped without it, see document.ReadFile).
func readOutline(t *testing.T) outline {
	text := document.ReadFile(t)
	o := outline{items: map[string]int{}, subs: map[string]map[string]bool{}, titles: map[string]string{}}
	cur, top := "", ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			cur = m[2]
			if m[1] == "##" {
				top = cur
			}
			o.items[cur] = 0
			o.titles[cur] = m[3]
			continue
		}
		if m := subheading.FindStringSubmatch(line); m != nil && top != "" {
			if o.subs[top] == nil {
				o.subs[top] = map[string]bool{}
			}
			o.subs[top][m[1]] = true
			continue
		}
		if m := item.FindStringSubmatch(line); m != nil && cur != "" {
			n, _ := strconv.Atoi(m[1])
			o.items[cur] = max(o.items[cur], n)
		}
	}
	require.NoError(t, sc.Err())
	require.Contains(t, o.items, "4.1", "the document's headings were read")
	return o
}

// names reports whether ref names a heading, a numbered item of one, or a subsection.
func (o outline) names(ref string) bool {
	if strings.HasPrefix(ref, "RFC ") {
		return regexp.MustCompile(`^RFC \d+( \d+(\.\d+)*)?$`).MatchString(ref)
	}
	m := reference.FindStringSubmatch(ref)
	if m == nil {
		return false
	}
	sec := m[1]
	if m[2] != "" {
		if _, ok := o.items[m[1]+"."+m[2]]; ok {
			sec = m[1] + "." + m[2] // a heading: 4.1
		} else if n, _ := strconv.Atoi(m[2]); n > o.items[m[1]] {
			return false // 5.3 is item 3 of section 5
		}
	}
	items, ok := o.items[sec]
	if !ok {
		return false
	}
	for _, r := range []string{m[3], m[4]} {
		if n, _ := strconv.Atoi(r); r != "" && (m[2] != "" && sec != m[1]+"."+m[2] || n < 1 || n > items) {
			return false
		}
	}
	return m[5] == "" || o.subs[m[1]][m[5]]
}

// Every rule cites the interface document: each part of its Section names a real heading of
// it, a numbered item under one, or a subsection (or an RFC); or the spec's node, where the
// spec departs from the document (TestRulesCiteTheSpecWhereItDeparts).
func TestSectionsNameTheDocument(t *testing.T) {
	o := readOutline(t)
	for _, bad := range []string{"4.4", "5.9", "4.1 rule 9", "2 (Dog)", "10"} {
		assert.False(t, o.names(bad), "%q must not pass", bad)
	}
	f, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	for _, r := range append(rules.All(f), rules.Fuzz(f, 10)...) {
		for _, part := range strings.Split(r.Section, "; ") {
			assert.True(t, o.names(part) || strings.HasPrefix(part, rules.SpecCitation), "rule %s cites %q, which is not a heading, item or subsection of the document", r.ID, part)
		}
	}
}

// Reports group results under the document's numbered headings, with their titles: every
// heading has its title there, word for word, and there is no title of a heading the
// document does not have.
func TestReportsTitleEveryHeading(t *testing.T) {
	o := readOutline(t)
	assert.Equal(t, o.titles, report.SectionTitles())
}

// A rule whose value the spec gives otherwise than the document cites the spec's node; the
// others keep the document's section. With the limit maximum at 50, the rules judged with
// the maximum cite the spec, the minimum's and the status rules do not.
func TestRulesCiteTheSpecWhereItDeparts(t *testing.T) {
	src := string(document.Spec) // the spec as the document fixes it
	doc, err := spec.Parse([]byte(strings.Replace(src, "maximum: 100", "maximum: 50", 1)))
	require.NoError(t, err)
	f, err := spec.ReadFacts(doc)
	require.NoError(t, err)
	sections := map[string]string{}
	for _, r := range rules.All(f) {
		sections[r.ID] = r.Section
	}
	const maxNode = rules.SpecCitation + "#/paths/~1pets/get/parameters/0/schema/maximum"
	for _, id := range []string{"listPets/limit-max", "listPets/limit-max-full", "listPets/limit-above-max", "listPets/limit-below-min", "listPets/status-unknown", "listPets/cases-query"} {
		assert.Equal(t, maxNode, sections[id], id)
	}
	assert.Equal(t, "4.1; 8", sections["listPets/limit-min"])
	assert.Equal(t, "4.1 rules 1-2", sections["listPets/status-available"])
	assert.Equal(t, "4.2; 2", sections["createPet/valid"])

	// A status value the document does not give: its rules cite the enumeration; those of
	// the document's values do not.
	doc, err = spec.Parse([]byte(strings.Replace(src, "        - sold\n", "        - sold\n        - lost\n", 1)))
	require.NoError(t, err)
	f, err = spec.ReadFacts(doc)
	require.NoError(t, err)
	for _, r := range rules.All(f) {
		sections[r.ID] = r.Section
	}
	assert.Equal(t, rules.SpecCitation+"#/components/schemas/PetStatus/enum", sections["listPets/status-lost"])
	assert.Equal(t, "4.1 rules 1-2", sections["listPets/status-sold"])
}

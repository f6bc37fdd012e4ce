package report

import (
	"maps"
	"sort"
	"strconv"
	"strings"
)

// sectionTitles are the numbered headings of the interface document, to group results
// under. The document lies outside the module, so they are written here once; a test of the
// rules (rules/sections_test.go) checks them against the document's headings, both ways.
var sectionTitles = map[string]string{
	"1": "What the service does", "2": "Resources and their fields", "3": "States and transitions",
	"4": "Endpoints", "4.1": "List all animals", "4.2": "Add an animal", "4.3": "Get an animal (deprecated)",
	"5": "Authentication", "6": "Events", "7": "Errors", "8": "Limits", "9": "Versioning",
}

// SectionTitles returns the numbered headings of the interface document ("4.1" → "List all
// animals"), a copy, as reports title their groups.
func SectionTitles() map[string]string { return maps.Clone(sectionTitles) }

// specGroup is the group of the rules that cite the spec rather than the document: those
// whose value the spec gives otherwise than the document (rules.SpecCitation).
const specGroup = "spec"

func groupTitle(key string) string {
	if key == specGroup {
		return "where the spec departs from the interface document"
	}
	return sectionTitles[key]
}

// group returns the heading a section reference belongs under: the first reference, as
// precise as the document's headings go ("4.1 rule 3" is 4.1, "5.2; 5.3" is 5).
func group(section string) string {
	first := strings.FieldsFunc(section, func(r rune) bool { return r == ' ' || r == ';' })
	if len(first) == 0 {
		return "?"
	}
	key := first[0]
	for key != "" {
		if _, ok := sectionTitles[key]; ok {
			return key
		}
		i := strings.LastIndex(key, ".")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return first[0]
}

// sectionGroup is the results under one heading of the interface document, in report order.
type sectionGroup struct {
	Key, Title string
	Results    []Result
}

// bySection groups results under their headings, the headings in the document's order. Every
// writer lays its report out this way.
func bySection(results []Result) []sectionGroup {
	var groups []sectionGroup
	index := map[string]int{}
	for _, res := range results {
		g := group(res.Section)
		i, ok := index[g]
		if !ok {
			i = len(groups)
			index[g] = i
			groups = append(groups, sectionGroup{Key: g, Title: groupTitle(g)})
		}
		groups[i].Results = append(groups[i].Results, res)
	}
	sort.SliceStable(groups, func(i, j int) bool { return sectionLess(groups[i].Key, groups[j].Key) })
	return groups
}

func sectionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea == nil && eb == nil && na != nb {
			return na < nb
		}
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

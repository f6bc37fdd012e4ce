package lint

import (
	"strings"

	"github.com/petstore/petstore/internal/document"
)

// departures reports every value of the description that the interface document gives
// otherwise (internal/document), with the section that gives it.
func (l *linter) departures() {
	for _, d := range document.Compare(l.doc) {
		before := len(l.findings)
		l.addf(RuleDeparture, d.Pointer, d.Fact, "%s", d.Message)
		if len(l.findings) > before {
			l.findings[len(l.findings)-1].Section = d.Section
		}
	}
}

// fold keeps one finding per fault: a departure at a node another finding already names
// (a deprecated operation without x-sunset is both a house rule and the document's date)
// gives that finding its section instead of a line of its own.
func fold(fs []Finding) []Finding {
	other := map[string]int{}
	for i, f := range fs {
		if f.Rule != RuleDeparture {
			if _, ok := other[f.Pointer]; !ok {
				other[f.Pointer] = i
			}
		}
	}
	out := fs[:0]
	for _, f := range fs {
		if i, ok := other[f.Pointer]; ok && f.Rule == RuleDeparture {
			if !strings.Contains(fs[i].Message, "(section ") {
				fs[i].Section = f.Section
				fs[i].Message += " (section " + f.Section + ")"
			}
			continue
		}
		out = append(out, f)
	}
	return out
}

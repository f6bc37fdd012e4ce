package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

//go:embed templates
var templates embed.FS

var htmlTemplate = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"headers":     headerLines,
	"statusText":  StatusText,
	"percent":     func(f float64) string { return fmt.Sprintf("%.0f%%", f) },
	"duration":    duration,
	"inc":         func(i int) int { return i + 1 },
	"pretty":      pretty,
	"runLine":     RunLine,
	"verdictHead": verdictHead,
	"unjudged":    unjudgedPhrase,
	"grouped":     groupFailures,
	"plural":      words.Plural,
	"noun":        words.Noun,
}).ParseFS(templates, "templates/report.html.tmpl"))

// WriteHTML writes the report as one self-contained HTML page: no script, style sheet or
// font is fetched, so it reads the same from a CI artifact as from a disk. It shows the
// verdict and counts, every rule grouped by interface section (each expandable to the
// requests and responses of a rule that did not pass, with a curl line to copy), and the
// coverage matrix.
func WriteHTML(w io.Writer, r *Report) error {
	return htmlTemplate.Execute(w, newHTMLView(printable(r)))
}

// htmlView is what the template reads: the report plus what a template should not compute.
type htmlView struct {
	*Report
	Sections []htmlSection
	Bar      []htmlSegment
	// Attention are the rules that did not pass or skip, worst first.
	Attention []Result
	Statuses  []int // every status some operation documents, ascending: the matrix's columns
	Matrix    []htmlRow
	// Dominant is the fault that explains most of the rules that did not pass, if one
	// does; OtherCauses are the causes it does not gather.
	Dominant    *Dominance
	OtherCauses []Cause
	// CoverageShort is set when coverage below the minimum failed the run: only then are
	// the pairs and values never exercised shown in the failing colour.
	CoverageShort bool
}

type htmlSection struct {
	Key, Title string
	Results    []Result
	Counts     Counts
}

// htmlSegment is one part of the summary bar.
type htmlSegment struct {
	Status  Status
	Count   int
	Percent float64
}

type htmlRow struct {
	OperationCoverage
	Cells []htmlCell
}

// htmlCell is one operation × status of the matrix; Documented false is an empty cell.
type htmlCell struct {
	Status     int
	Documented bool
	Count      int
}

// barOrder is the order of the outcomes in the summary bar and the legend.
var barOrder = []Status{Pass, Fail, Warn, Waived, Skip, Error}

func newHTMLView(r *Report) htmlView {
	v := htmlView{Report: r}
	for _, g := range bySection(r.Results) {
		s := htmlSection{Key: g.Key, Title: g.Title, Results: g.Results}
		for _, res := range g.Results {
			s.Counts.add(res)
		}
		v.Sections = append(v.Sections, s)
	}
	if d, ok := Dominant(r); ok {
		v.Dominant = &d
	}
	v.OtherCauses = otherCauses(r)
	for _, g := range r.GateFailures {
		v.CoverageShort = v.CoverageShort || g.Gate == "coverage"
	}
	for _, st := range barOrder {
		if n := r.Counts.of(st); n > 0 {
			v.Bar = append(v.Bar, htmlSegment{Status: st, Count: n, Percent: float64(n) * 100 / float64(r.Counts.Total)})
		}
	}
	if n := r.Counts.NotRun; n > 0 {
		v.Bar = append(v.Bar, htmlSegment{Status: "notrun", Count: n, Percent: float64(n) * 100 / float64(r.Counts.Total)})
	}
	for _, st := range []Status{Fail, Error, Warn, Waived} {
		for _, res := range r.Results {
			if res.Status == st {
				v.Attention = append(v.Attention, res)
			}
		}
	}
	seen := map[int]bool{}
	for _, op := range r.Coverage.Operations {
		for _, s := range op.Statuses {
			if !seen[s.Status] {
				seen[s.Status] = true
				v.Statuses = append(v.Statuses, s.Status)
			}
		}
	}
	sort.Ints(v.Statuses)
	for _, op := range r.Coverage.Operations {
		row := htmlRow{OperationCoverage: op}
		for _, st := range v.Statuses {
			cell := htmlCell{Status: st}
			for _, s := range op.Statuses {
				if s.Status == st {
					cell.Documented, cell.Count = true, s.Count
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		v.Matrix = append(v.Matrix, row)
	}
	return v
}

// headerLines writes headers one per line, sorted, as they would appear on the wire.
func headerLines(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range h[k] {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	return b.String()
}

// pretty indents a JSON body so that a person can read it; anything else (a cut body, text)
// stays as received.
func pretty(body string) string {
	var out bytes.Buffer
	if len(body) > 16<<10 || json.Indent(&out, []byte(body), "", "  ") != nil {
		return body
	}
	return out.String()
}

func duration(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f s", ms/1000)
}

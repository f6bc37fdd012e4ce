package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteJSON writes the report as indented JSON (the fields of Report).
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string          `xml:"name,attr"`
	Tests     int             `xml:"tests,attr"`
	Failures  int             `xml:"failures,attr"`
	Errors    int             `xml:"errors,attr"`
	Skipped   int             `xml:"skipped,attr"`
	Timestamp string          `xml:"timestamp,attr"`
	Props     []junitProperty `xml:"properties>property,omitempty"`
	Cases     []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: a testsuite per interface section, a testcase
// per rule. Fail is a <failure>, Error an <error>, Skip <skipped>; a warning passes with its
// details in <system-out>, so CI shows it without failing the build.
func WriteJUnit(w io.Writer, r *Report) error {
	root := junitSuites{
		Name:  fmt.Sprintf("%s %s conformance of %s", r.SpecTitle, r.SpecVersion, r.Target),
		Tests: r.Counts.Total, Failures: r.Counts.Fail, Errors: r.Counts.Error, Skipped: r.Counts.Skip + r.Counts.Waived,
		Time: fmt.Sprintf("%.3f", r.DurationMS/1000),
	}
	for _, g := range bySection(r.Results) {
		s := junitSuite{
			Name:      strings.TrimSpace(g.Key + " " + g.Title),
			Timestamp: r.Started.Format("2006-01-02T15:04:05"),
			Props: []junitProperty{{"target", r.Target}, {"specVersion", r.SpecVersion},
				{"clock", r.Clock.Format("2006-01-02T15:04:05Z")}, {"seed", strconv.FormatUint(r.Seed, 10)}},
		}
		for _, res := range g.Results {
			s.Tests++
			s.Cases = append(s.Cases, junitTestCase(&s, g.Key, res))
		}
		root.Suites = append(root.Suites, s)
	}
	var gates junitSuite
	if len(r.GateFailures) > 0 {
		gates = junitSuite{Name: "gates", Timestamp: r.Started.Format("2006-01-02T15:04:05")}
		for _, g := range r.GateFailures {
			gates.Tests++
			gates.Failures++
			gates.Cases = append(gates.Cases, junitCase{Name: g.Gate, Classname: "conformance.gates",
				Failure: &junitMessage{Message: g.Message, Type: "GATE"}})
		}
		root.Tests += gates.Tests
		root.Failures += gates.Failures
	}
	if gates.Tests > 0 {
		root.Suites = append(root.Suites, gates) // after the sections: the run's own checks
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitTestCase is one rule's testcase; it counts the outcome into its suite s.
func junitTestCase(s *junitSuite, key string, res Result) junitCase {
	tc := junitCase{Name: res.ID, Classname: "conformance." + key}
	var details strings.Builder
	WriteDetails(&details, res)
	msg := &junitMessage{Message: res.Reason, Type: res.Severity.String(), Text: details.String()}
	switch res.Status {
	case Fail:
		s.Failures++
		tc.Failure = msg
	case Error:
		s.Errors++
		tc.Error = msg
	case Skip:
		s.Skipped++
		tc.Skipped = &junitMessage{Message: res.Reason}
	case Warn:
		tc.SystemOut = details.String() // says why it only warns, and what failed
	case Waived:
		// JUnit has no "waived": a skip shows it without failing the build.
		s.Skipped++
		tc.Skipped = &junitMessage{Message: fmt.Sprintf("waived until %s: %s", res.Waiver.Expires, res.Waiver.Reason)}
		tc.SystemOut = details.String()
	}
	return tc
}

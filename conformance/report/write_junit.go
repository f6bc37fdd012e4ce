package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string          `xml:"name,attr"`
	Tests     int             `xml:"tests,attr"`
	Failures  int             `xml:"failures,attr"`
	Errors    int             `xml:"errors,attr"`
	Skipped   int             `xml:"skipped,attr"`
	Time      string          `xml:"time,attr"`
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
	Time      string        `xml:"time,attr"`
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

// WriteJUnit writes the report as JUnit XML, valid against the schema Jenkins reads
// (junit-10.xsd): first a testsuite of the causes of the failures (junitCauses), then a
// testsuite per interface section with a testcase per rule, named "ID [SEVERITY]: title",
// its classname the rule's operation or area (conformance.listPets, conformance.auth) and
// its time the rule's duration; last the run's gates. Fail is a <failure>, Error an
// <error>, Skip <skipped>; a warning passes with its details in <system-out>, so CI shows
// it without failing the build. The counts of tests and failures a CI shows therefore
// include the causes and the gates besides the rules.
func WriteJUnit(w io.Writer, r *Report) error {
	r = printable(r)
	root := junitSuites{
		Name: fmt.Sprintf("%s %s conformance of %s", r.SpecTitle, r.SpecVersion, r.Target),
		Time: seconds(r.DurationMS),
	}
	timestamp := r.Started.Format("2006-01-02T15:04:05")
	if s, ok := junitCauses(r); ok {
		s.Timestamp = timestamp
		root.Suites = append(root.Suites, s)
	}
	for _, g := range bySection(r.Results) {
		s := junitSuite{
			Name:      strings.TrimSpace(g.Key + " " + g.Title),
			Timestamp: timestamp,
			Props: []junitProperty{{"target", r.Target}, {"specVersion", r.SpecVersion},
				{"clock", r.Clock.Format("2006-01-02T15:04:05Z")}, {"seed", strconv.FormatUint(r.Seed, 10)}},
		}
		ms := 0.0
		for _, res := range g.Results {
			s.Tests++
			ms += res.DurationMS
			s.Cases = append(s.Cases, junitTestCase(&s, res))
		}
		s.Time = seconds(ms)
		root.Suites = append(root.Suites, s)
	}
	if len(r.GateFailures) > 0 {
		// After the sections: the run's own checks.
		gates := junitSuite{Name: "gates", Timestamp: timestamp, Time: seconds(0)}
		for _, g := range r.GateFailures {
			gates.Tests++
			gates.Failures++
			gates.Cases = append(gates.Cases, junitCase{Name: g.Gate, Classname: "conformance.gates", Time: seconds(0),
				Failure: &junitMessage{Message: g.Message, Type: "GATE"}})
		}
		root.Suites = append(root.Suites, gates)
	}
	for _, s := range root.Suites {
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
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

// junitCauses is the suite that leads the JUnit report with the causes of the failures, as
// the text report leads with them. Its form follows what CI viewers show: GitLab shows
// testcases only, and of a testcase only the text of its <failure>, <error> or <skipped>
// (not a suite's <properties> or <system-out>); Jenkins keeps properties only when told
// to and lists the failed testcases first; the GitHub actions that read JUnit annotate the
// failed testcases. So each cause is a testcase of the first suite (the dominant fault, if
// one, then the others, as many as the text report shows), in the text report's words,
// failed when it explains a rule that failed; a cause of warnings alone passes, its details
// in <system-out>, as a warning does. ok is false when nothing failed or warned.
func junitCauses(r *Report) (s junitSuite, ok bool) {
	if len(r.Causes) == 0 {
		return s, false
	}
	failed := map[string]bool{}
	for _, res := range r.Results {
		failed[res.ID] = res.Status == Fail
	}
	s = junitSuite{Name: "causes of the failures", Time: seconds(0)}
	add := func(name, message string, causes []Cause, details string) {
		tc := junitCase{Name: name, Classname: "conformance.causes", Time: seconds(0)}
		fails := false
		for _, c := range causes {
			for _, id := range c.Rules {
				fails = fails || failed[id]
			}
		}
		s.Tests++
		if fails {
			s.Failures++
			tc.Failure = &junitMessage{Message: message, Type: "CAUSE", Text: details}
		} else {
			tc.SystemOut = message + "\n" + details
		}
		s.Cases = append(s.Cases, tc)
	}
	if d, ok := Dominant(r); ok {
		var b strings.Builder
		writeDominant(&b, "", d)
		add("most failures have one cause: "+Clip(d.Message, 200), d.Lead(), d.Causes, b.String())
	}
	others := otherCauses(r)
	for i, c := range others {
		if i == maxCausesShown {
			// A name to count the rest by; they fail under their rules.
			s.Tests++
			s.Cases = append(s.Cases, junitCase{Name: fmt.Sprintf("and %s, listed under their rules", words.Plural(len(others)-i, "more cause")),
				Classname: "conformance.causes", Time: seconds(0)})
			break
		}
		var b strings.Builder
		writeCause(&b, "", c)
		add(fmt.Sprintf("cause %d: %s", i+1, Clip(c.Message, 200)), c.Message, []Cause{c}, b.String())
	}
	return s, true
}

// junitTestCase is one rule's testcase; it counts the outcome into its suite s.
func junitTestCase(s *junitSuite, res Result) junitCase {
	area, _, _ := strings.Cut(res.ID, "/")
	tc := junitCase{Name: fmt.Sprintf("%s [%s]: %s", res.ID, res.Severity, res.Title),
		Classname: "conformance." + area, Time: seconds(res.DurationMS)}
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

// seconds is a duration in milliseconds as JUnit writes times: seconds, three decimals.
func seconds(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 3, 64) }

package conformance_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/internal/xsdcheck"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// failingReport is a run against a server that lets requests without a key in.
func failingReport(t *testing.T) *conformance.Report {
	doc, err := spec.Parse(document.Spec) // the writers' tests read a report of known rules
	require.NoError(t, err)
	// The anatomy's families are left out: the writers' fixture is the catalogue the open
	// door fails mostly for one cause, which the anatomy's open answers would outnumber.
	return run(t, serve(t, openDoor(newReference(t, beforeSunset, reference.Config{Spec: doc}))), conformance.Options{Spec: doc, Skip: []string{"*/cases-anatomy"}})
}

func TestWritersNeverShowTheKey(t *testing.T) {
	rep := failingReport(t)
	for name, write := range conformance.Formats {
		var out bytes.Buffer
		require.NoError(t, write(&out, rep), name)
		assert.NotContains(t, out.String(), testKey, name)
		assert.Contains(t, out.String(), "$PETSTORE_API_KEY", name)
	}
}

func TestWriteText(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, conformance.WriteText(&out, failingReport(t)))
	text := out.String()
	assert.Contains(t, text, "\n5 Authentication\n")
	assert.Contains(t, text, "  fail   MUST    auth/listPets-missing ")
	assert.Contains(t, text, "section: 5.1; 5.3")
	// The message says what was expected and what came back: no "expected:" line repeats it.
	assert.Regexp(t, `auth/listPets-missing .*\n\s+section: 5.1; 5.3\n\s+- MUST: want status 401 Unauthorized, got 200 OK\n\s+request: `, text)
	assert.Contains(t, text, `reproduce: curl -sS -i -H "Authorization: Token $PETSTORE_API_KEY" 'http://127.0.0.1:`)
	assert.Regexp(t, `\n\d+ rules: \d+ pass, \d+ fail, .*; \d+ cases, \d+ requests, .*; seed \d+; .*: NOT CONFORMING\n$`, text)
	assert.NotContains(t, text, "\x1b[", "no colour unless asked")
	out.Reset()
	require.NoError(t, conformance.WriteColorText(&out, failingReport(t)))
	assert.Contains(t, out.String(), "\x1b[31mfail ")
}

// The JSON form round-trips, and its field names are the documented ones.
func TestWriteJSON(t *testing.T) {
	rep := failingReport(t)
	var out bytes.Buffer
	require.NoError(t, conformance.WriteJSON(&out, rep))
	var back conformance.Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	assert.Equal(t, rep.Counts, back.Counts)
	// What the JSON form holds comes back as it was written: bytes that are not UTF-8 (a
	// gzip body sent) are kept as U+FFFD, so the report read back writes the same text.
	var again bytes.Buffer
	require.NoError(t, conformance.WriteJSON(&again, &back))
	assert.JSONEq(t, out.String(), again.String())

	var raw map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
	for _, k := range []string{"target", "specTitle", "specVersion", "started", "clock", "durationMs", "strict",
		"readOnly", "animalsCreated", "animalsFound", "counts", "mustTotal", "mustUnjudged", "verdict", "results"} {
		assert.Contains(t, raw, k)
	}
	res, ok := rep.Result("auth/listPets-missing")
	require.True(t, ok)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	for _, k := range []string{`"id":`, `"section":`, `"severity":"MUST"`, `"title":`, `"status":"fail"`, `"failures":`,
		`"message":`, `"expected":`, `"actual":`, `"exchange":0`, `"exchanges":`, `"request":`, `"method":"GET"`,
		`"url":`, `"response":`, `"status":200`, `"curl":`} {
		assert.Contains(t, string(b), k)
	}
}

// The JUnit report is valid against the schema Jenkins reads (junit-10.xsd); it leads with
// the causes, each a testcase that fails when it explains a failed rule; every rule is a
// testcase named by its ID, severity and title, classed by its operation or area, timed by
// its duration.
func TestWriteJUnit(t *testing.T) {
	rep := failingReport(t)
	var out bytes.Buffer
	require.NoError(t, conformance.WriteJUnit(&out, rep))
	validJUnit(t, out.Bytes())
	type message struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Cases    []struct {
				Name      string    `xml:"name,attr"`
				Classname string    `xml:"classname,attr"`
				Time      string    `xml:"time,attr"`
				Failure   *message  `xml:"failure"`
				Error     *message  `xml:"error"`
				Skipped   *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(out.Bytes(), &doc))
	require.NotEmpty(t, rep.Causes)
	require.NotEmpty(t, doc.Suites)
	causes := doc.Suites[0]
	assert.Equal(t, "causes of the failures", causes.Name, "the causes lead")
	require.NotEmpty(t, causes.Cases)
	first := causes.Cases[0]
	require.NotNil(t, first.Failure, "the largest cause explains failed rules: it fails")
	assert.Equal(t, "CAUSE", first.Failure.Type)
	d, ok := report.Dominant(rep)
	require.True(t, ok, "the open door fails most rules with one status")
	assert.Equal(t, d.Lead(), first.Failure.Message, "the dominant fault first")
	assert.Contains(t, first.Failure.Text, d.Causes[0].Rules[0])
	for _, c := range rep.Causes { // then the others, the largest first
		if report.BlankValues(c.Message) != report.BlankValues(d.Causes[0].Message) {
			require.Greater(t, len(causes.Cases), 1)
			assert.Equal(t, "cause 1: "+report.Clip(c.Message, 200), causes.Cases[1].Name)
			break
		}
	}

	tests, failures, errors, rules, ruleFailures := 0, 0, 0, 0, 0
	for _, s := range doc.Suites {
		assert.Equal(t, len(s.Cases), s.Tests, s.Name)
		tests, failures, errors = tests+s.Tests, failures+s.Failures, errors+s.Errors
		n := 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				n++
				assert.NotEmpty(t, c.Failure.Message, c.Name)
			}
			id, _, _ := strings.Cut(c.Name, " ")
			res, ok := rep.Result(id)
			if !ok {
				continue
			}
			rules++
			assert.Equal(t, fmt.Sprintf("%s [%s]: %s", res.ID, res.Severity, res.Title), c.Name)
			area, _, _ := strings.Cut(res.ID, "/")
			assert.Equal(t, "conformance."+area, c.Classname, c.Name)
			assert.Equal(t, fmt.Sprintf("%.3f", res.DurationMS/1000), c.Time, c.Name)
			if c.Failure != nil {
				ruleFailures++
				assert.Equal(t, res.Severity.String(), c.Failure.Type, c.Name)
				assert.Contains(t, c.Failure.Text, "reproduce: curl", c.Name)
			}
		}
		assert.Equal(t, n, s.Failures, s.Name)
	}
	assert.Equal(t, rep.Counts.Total, rules)
	assert.Equal(t, rep.Counts.Fail, ruleFailures)
	assert.Equal(t, tests, doc.Tests)
	assert.Equal(t, failures, doc.Failures)
	assert.Equal(t, errors, doc.Errors)
	assert.Greater(t, doc.Failures, rep.Counts.Fail, "failed causes count as failures")
	assert.True(t, strings.HasPrefix(out.String(), `<?xml version="1.0" encoding="UTF-8"?>`))
}

// A target may send bytes that are not UTF-8 and control characters, in bodies, headers
// and error messages: every report is still valid UTF-8, the JUnit and HTML ones valid
// XML, and the text ones show an invalid byte as \xNN, not as U+FFFD or as itself.
func TestWritersShowHostileBytes(t *testing.T) {
	const hostile = "caf\xe9 \xff\xfe nul\x00 bell\x07 esc\x1b[31m vt\x0b c1\u0085 nonchar\uffff fine: é…"
	const shown = `caf\xe9 \xff\xfe nul\x00 bell\x07 esc\x1b[31m vt\x0b c1\u0085 nonchar\uFFFF fine: é…`
	rep := failingReport(t)
	rep.Target += "/" + hostile
	hit := false
	for i := range rep.Results {
		res := &rep.Results[i]
		if res.Status != conformance.Fail || len(res.Exchanges) == 0 {
			continue
		}
		hit = true
		res.Reason += hostile
		res.Failures[0].Message += " " + hostile
		ex := &res.Exchanges[0]
		ex.Error, ex.Request.Body = hostile, "x"+strings.Repeat("é", 150)+hostile // Clip cuts within an é
		ex.Response.Body = hostile
		ex.Response.Header.Set("X-Hostile", hostile)
	}
	require.True(t, hit)
	rep.Tally() // the causes carry the messages
	for name, write := range conformance.Formats {
		var out bytes.Buffer
		require.NoError(t, write(&out, rep), name)
		assert.True(t, utf8.Valid(out.Bytes()), "%s: not valid UTF-8", name)
		if name != "json" { // a report the size of a run: no dump of it when this fails
			assert.True(t, strings.Contains(out.String(), shown), "%s does not show %q", name, shown)
			assert.False(t, strings.Contains(out.String(), "\x1b"), "%s shows an escape character", name)
			assert.False(t, strings.Contains(out.String(), "\uFFFD"), "%s shows U+FFFD", name)
		}
		switch name {
		case "junit":
			validJUnit(t, out.Bytes())
		case "html":
			d := xml.NewDecoder(&out)
			d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				require.NoError(t, err, "the HTML report is read as XML")
			}
		}
	}
}

// junitXSD is junit-10.xsd, the schema Jenkins reads JUnit reports by (testdata/schemas
// says where it comes from), as internal/xsdcheck reads it: JUnit XML has no single
// official schema, and Go no well-kept XSD validator.
var junitXSD = sync.OnceValues(func() (*xsdcheck.Schema, error) { return xsdcheck.Load("../testdata/schemas/junit-10.xsd") })

// validJUnit checks data against junit-10.xsd (every element and attribute declared where
// it stands, the required attributes present, the times matching SUREFIRE_TIME, text only
// where allowed), and beyond it what the XSD types as strings: the root is testsuites, the
// counts are integers, the times numbers of seconds.
func validJUnit(t *testing.T, data []byte) {
	t.Helper()
	schema, err := junitXSD()
	require.NoError(t, err)
	for _, err := range schema.Check(data) {
		t.Errorf("the JUnit report breaks junit-10.xsd: %v", err)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	first := true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "well-formed XML")
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if first {
			assert.Equal(t, "testsuites", el.Name.Local, "the root")
			first = false
		}
		for _, a := range el.Attr {
			switch a.Name.Local {
			case "tests", "failures", "errors", "skipped":
				_, err := strconv.Atoi(a.Value)
				assert.NoError(t, err, "%s %s=%q", el.Name.Local, a.Name.Local, a.Value)
			case "time":
				_, err := strconv.ParseFloat(a.Value, 64)
				assert.NoError(t, err, "%s time=%q", el.Name.Local, a.Value)
			}
		}
	}
}

// A rule's details say each failure once: a warning's reason line (the first failure, with
// why it only warns) does not repeat the failure listed under it, and a message that says
// what was expected and what came back has no "expected:" and "got:" lines repeating it.
func TestDetailsSayEachFailureOnce(t *testing.T) {
	rep := failingReport(t)
	warned := 0
	for _, res := range rep.Results {
		if res.Status == conformance.Pass || len(res.Failures) == 0 {
			continue
		}
		warned += map[bool]int{true: 1}[res.Status == conformance.Warn]
		var b strings.Builder
		report.WriteDetails(&b, res)
		failed := map[string]int{} // a run of failures that differ only in location is said once
		for i, f := range res.Failures {
			if prev := res.Failures[max(i-1, 0)]; i == 0 || prev.Message != f.Message || prev.Exchange != f.Exchange || prev.Case != f.Case {
				failed[f.Message]++
			}
			if f.Expected != "" && strings.Contains(f.Message, f.Expected) && strings.Contains(f.Message, f.Actual) {
				assert.NotContains(t, b.String(), "expected: "+f.Expected+"\n", res.ID)
			}
		}
		for msg, n := range failed {
			said := 0
			for _, line := range strings.Split(b.String(), "\n") {
				if strings.Contains(line, msg) {
					said++
				}
			}
			assert.Equal(t, n, said, "%s says %q %d times for %d failures:\n%s", res.ID, msg, said, n, b.String())
		}
	}
	assert.NotZero(t, warned, "the run has warnings to look at")
}

// onesReport is a run of one rule with the given outcome: one case, one request, one animal
// created, one documented pair, one gate failure.
func onesReport(st conformance.Status) *conformance.Report {
	rep := &conformance.Report{Target: "http://127.0.0.1:8080/v1", SpecTitle: "Pet Store", SpecVersion: "1.0.0",
		Requests: 1, AnimalsCreated: 1, MaxCreates: 1, Seed: 1,
		Coverage: conformance.Coverage{Pairs: 1, Exercised: 1, Percent: 100, Operations: []conformance.OperationCoverage{
			{Operation: "listPets", Method: "GET", Path: "/pets", Requests: 1, Statuses: []report.StatusCount{{Status: 200, Count: 1}}}}},
		GateFailures: []conformance.GateFailure{{Gate: "coverage", Message: "below"}},
		Results: []conformance.Result{{ID: "listPets/x", Section: "4.1", Severity: conformance.Must, Title: "a rule",
			Status: st, Cases: 1, Reason: "what went wrong"}},
	}
	if st != conformance.Error {
		rep.Results[0].Failures = []conformance.Failure{{Message: "what went wrong", Exchange: -1}}
	}
	rep.Tally()
	return rep
}

// One of a thing is written in the singular in every report: no "1 rules", "1 cases", "1
// animals", "1 requests", "1 warnings".
func TestWritersSayOneInTheSingular(t *testing.T) {
	ones := regexp.MustCompile(`\b1 (rule|case|generated case|request|animal|failure|warning|error|cause|pair|run condition)s\b`)
	tags := regexp.MustCompile(`<[^>]*>`)
	for _, st := range []conformance.Status{conformance.Fail, conformance.Warn, conformance.Error} {
		rep := onesReport(st)
		for name, write := range conformance.Formats {
			var out bytes.Buffer
			require.NoError(t, write(&out, rep), name)
			page := strings.Join(strings.Fields(tags.ReplaceAllString(out.String(), " ")), " ")
			assert.Empty(t, ones.FindAllString(page, -1), "%s report of a %s rule", name, st)
		}
	}
}

// mustReport is a run of MUST rules with the given outcomes, and one SHOULD rule skipped
// (which the count of unjudged MUST rules leaves out).
func mustReport(outcomes ...conformance.Status) *conformance.Report {
	rep := &conformance.Report{SpecTitle: "Pet Store", SpecVersion: "1.0.0"}
	for i, st := range outcomes {
		res := conformance.Result{ID: fmt.Sprintf("listPets/r%d", i), Section: "4.1", Severity: conformance.Must, Status: st, Reason: "why"}
		if st == conformance.Fail {
			res.Failures = []conformance.Failure{{Message: "what", Exchange: -1}}
		}
		rep.Results = append(rep.Results, res)
	}
	rep.Results = append(rep.Results, conformance.Result{ID: "listPets/should", Section: "4.1", Severity: conformance.Should,
		Status: conformance.Skip, Reason: "why"})
	rep.Tally()
	return rep
}

func repeat(st conformance.Status, n int) []conformance.Status {
	out := make([]conformance.Status, n)
	for i := range out {
		out[i] = st
	}
	return out
}

// The verdict line says how many MUST rules were skipped or could not be judged, and a run
// that judged less than 80% of them is conforming only as far as it judged. The verdict
// itself, which decides the exit code, stays what it was.
func TestVerdictLineSaysWhatWasNotJudged(t *testing.T) {
	pass, skip := conformance.Pass, conformance.Skip
	for _, tt := range []struct {
		outcomes []conformance.Status
		verdict  string
		line     string
	}{
		{repeat(pass, 10), conformance.Conforming, "CONFORMING"},
		{append(repeat(pass, 9), skip), conformance.Conforming, "CONFORMING, but 1 of 10 MUST rules was not judged (skipped or error)"},
		{append(repeat(pass, 8), skip, skip), conformance.Conforming, "CONFORMING, but 2 of 10 MUST rules were not judged (skipped or error)"},
		{append(repeat(pass, 7), skip, skip, skip), conformance.Conforming,
			"CONFORMING AS FAR AS JUDGED: 3 of 10 MUST rules were not judged (skipped or error), more than the 20% a full verdict allows"},
		{append(repeat(pass, 8), conformance.Fail, conformance.Error), conformance.NotConforming,
			"NOT CONFORMING; 1 of 10 MUST rules was not judged (skipped or error)"},
		{append(repeat(pass, 9), conformance.Fail), conformance.NotConforming, "NOT CONFORMING"},
	} {
		rep := mustReport(tt.outcomes...)
		assert.Equal(t, tt.verdict, rep.Verdict, tt.line)
		assert.Equal(t, tt.line, report.VerdictLine(rep))
		for name, write := range map[string]conformance.Writer{"text": conformance.WriteText, "markdown": conformance.WriteMarkdown, "html": conformance.WriteHTML} {
			var out bytes.Buffer
			require.NoError(t, write(&out, rep))
			if rep.MustUnjudged > 0 {
				assert.Contains(t, out.String(), fmt.Sprintf("%d of 10 MUST rules", rep.MustUnjudged), name)
			}
			if !rep.FullyJudged() {
				assert.Contains(t, strings.ToLower(out.String()), "conforming as far as judged", name)
			}
		}
	}
}

// A read-only run against a store of 3 animals skips the rules that need more or that create
// some: it is not called CONFORMING without saying how much it judged.
func TestReadOnlyRunSaysWhatItDidNotJudge(t *testing.T) {
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})), conformance.Options{ReadOnly: true})
	require.Equal(t, conformance.Conforming, rep.Verdict)
	require.NotZero(t, rep.MustUnjudged)
	var out bytes.Buffer
	require.NoError(t, conformance.WriteText(&out, rep))
	assert.Regexp(t, fmt.Sprintf(`\n%d of %d MUST rules were not judged \(skipped or error\).*\n.*: CONFORMING AS FAR AS JUDGED\n$`,
		rep.MustUnjudged, rep.MustTotal), out.String())
}

// Every reproduce line runs as printed with $PETSTORE_API_KEY set, and sends the
// Authorization header the harness sent: the key's forms rebuilt from the variable, a
// made-up wrong key that holds a short key by chance ("KEY" in "conformance-wrong-key") as it
// is, an empty header as an empty header.
func TestCurlLinesRunAsPrinted(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	var mu sync.Mutex
	sent, replayed := map[string]bool{}, []string{}
	replaying := false
	h := openDoor(newReference(t, beforeSunset, reference.Config{}))
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := fmt.Sprintf("%q", r.Header.Values("Authorization"))
		mu.Lock()
		if replaying {
			replayed = append(replayed, auth)
		} else {
			sent[auth] = true
		}
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	target.APIKey = "KEY"
	rep := run(t, target, conformance.Options{Only: []string{"auth/listPets-*", "listPets/cases-auth"}, Workers: 1})
	mu.Lock()
	replaying = true
	mu.Unlock()
	lines := 0
	for _, res := range rep.Results {
		for _, ex := range res.Exchanges {
			cmd := exec.Command("sh", "-c", ex.Curl+" -o /dev/null")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PETSTORE_API_KEY=KEY"}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s: %s\n%s", res.ID, ex.Curl, out)
			lines++
			assert.NotContains(t, ex.Curl, "<redacted>", res.ID)
		}
	}
	require.Greater(t, lines, 10)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, replayed, lines)
	for _, auth := range replayed {
		assert.True(t, sent[auth], "a reproduce line sent Authorization %s, which the harness never sent", auth)
	}
	assert.Contains(t, replayed, `["Bearer conformance-wrong-key"]`)
	assert.Contains(t, replayed, `[""]`, "the empty header")
}

// When one fault explains most of the rules that did not pass (a gateway that answers every
// error in text/plain), the text, Markdown and HTML reports lead with it and its count,
// above the other causes and the rules; the values that differ between its spec nodes (the
// status) are blanked, those they share (the media type) kept.
func TestDominantCauseLeads(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	rep := run(t, serve(t, plainErrors(newReference(t, beforeSunset, reference.Config{}))), conformance.Options{})
	d, ok := report.Dominant(rep)
	require.True(t, ok)
	assert.Greater(t, 2*d.Rules, d.NotPassed)
	assert.Equal(t, rep.Counts.Fail+rep.Counts.Warn+rep.Counts.Error, d.NotPassed)
	lead := fmt.Sprintf(`Most failures have one cause: response breaks the spec: media type "text/plain; charset=utf-8" is not documented for status … (documented: application/json) (it explains %d of the %d rules that did not pass)`,
		d.Rules, d.NotPassed)
	for name, write := range map[string]conformance.Writer{"text": conformance.WriteText, "markdown": conformance.WriteMarkdown,
		"html": conformance.WriteHTML, "junit": conformance.WriteJUnit} {
		var out bytes.Buffer
		require.NoError(t, write(&out, rep))
		page := out.String()
		first := strings.Index(page, "Most failures have one cause")
		require.GreaterOrEqual(t, first, 0, name)
		for _, later := range []string{"other causes", "Other cause", "\n4.1 List all animals", "### Failed rules", `id="attention"`, `id="sec-`, `<testsuite name="4.1 `} {
			if i := strings.Index(page, later); i >= 0 {
				assert.Less(t, first, i, "%s: the dominant cause comes before %q", name, later)
			}
		}
		if name == "text" {
			assert.Contains(t, page, "\n"+lead+"\n")
			assert.Equal(t, 1, strings.Count(page, "Most failures have one cause"))
		}
	}

	// No fault explains more than half: the causes are listed, the largest first, and none leads.
	golden, _ := goldenReport(t)
	_, ok = report.Dominant(golden)
	assert.False(t, ok)
	var out bytes.Buffer
	require.NoError(t, conformance.WriteText(&out, golden))
	assert.Contains(t, out.String(), "causes of the failures, the largest first:")
	assert.NotContains(t, out.String(), "Most failures")
}

// A schema violation on every animal of a listing is said once, with where it occurs.
func TestRepeatedViolationSaidOnce(t *testing.T) {
	res := conformance.Result{ID: "listPets/bare-array", Section: "4.1", Severity: conformance.Must, Status: conformance.Fail,
		Reason:    `response breaks the spec: property "categoryId" is missing`,
		Exchanges: []conformance.Exchange{{Request: conformance.ExchangeRequest{Method: "GET", URL: "http://h/v1/pets"}, Curl: "curl 'http://h/v1/pets'"}}}
	for i := range 20 {
		res.Failures = append(res.Failures, conformance.Failure{Message: `response breaks the spec: property "categoryId" is missing`,
			Pointer: "#/components/schemas/Pet/required", Location: fmt.Sprintf("body/%d/categoryId", i)})
	}
	var b strings.Builder
	report.WriteDetails(&b, res)
	assert.Equal(t, 1, strings.Count(b.String(), `property "categoryId" is missing`), b.String())
	assert.Contains(t, b.String(), "spec: #/components/schemas/Pet/required (at body/0/categoryId, body/1/categoryId, body/2/categoryId and 17 more)\n")

	rep := &conformance.Report{Results: []conformance.Result{res}}
	rep.Tally()
	var out bytes.Buffer
	require.NoError(t, conformance.WriteHTML(&out, rep))
	assert.Equal(t, 1, strings.Count(out.String(), "body/1/categoryId"))
	assert.NotContains(t, out.String(), "body/5/categoryId")
	assert.Contains(t, out.String(), "<code>body/0/categoryId, body/1/categoryId, body/2/categoryId and 17 more</code>")
}

// The dominant fault's line blanks the values that differ between its failures and keeps
// those they share, even within one cause.
func TestDominantCauseBlanksWhatDiffers(t *testing.T) {
	rep := &conformance.Report{}
	for i, n := range []int{101, 150} {
		rep.Results = append(rep.Results, conformance.Result{ID: fmt.Sprintf("listPets/r%d", i), Section: "4.1", Severity: conformance.Must,
			Status: conformance.Fail, Failures: []conformance.Failure{{Message: fmt.Sprintf("the listing holds %d animals, want at most 100 animals", n), Exchange: -1}}})
	}
	rep.Tally()
	d, ok := report.Dominant(rep)
	require.True(t, ok)
	assert.Equal(t, "Most failures have one cause: the listing holds … animals, want at most 100 animals (it explains 2 of the 2 rules that did not pass)", d.Lead())
}

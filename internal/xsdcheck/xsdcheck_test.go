package xsdcheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const junitXSD = "../../testdata/schemas/junit-10.xsd"

// What is read from junit-10.xsd is what the file declares (a sample of it).
func TestLoadJUnit(t *testing.T) {
	s, err := Load(junitXSD)
	require.NoError(t, err)
	suites := s.Elements["testsuites"]
	require.NotNil(t, suites)
	assert.Equal(t, []string{"testsuite"}, keys(suites.Children))
	assert.False(t, suites.Text)
	suite := s.Elements["testsuite"]
	assert.Same(t, suite, suites.Children["testsuite"])
	assert.Same(t, suite, suite.Children["testsuite"], "a testsuite may hold testsuites")
	assert.Equal(t, []string{"properties", "system-err", "system-out", "testcase", "testsuite"}, keys(suite.Children))
	var required []string
	for _, a := range keys(suite.Attrs) {
		if suite.Attrs[a].Required {
			required = append(required, a)
		}
	}
	assert.Equal(t, []string{"errors", "failures", "name", "tests"}, required)
	require.NotNil(t, suite.Attrs["time"].Pattern, "SUREFIRE_TIME")
	assert.True(t, suite.Attrs["time"].Pattern.MatchString("1.250"))
	assert.False(t, suite.Attrs["time"].Pattern.MatchString("1.2500"), "three decimals at most")
	tc := s.Elements["testcase"]
	assert.Equal(t, []string{"error", "failure", "flakyError", "flakyFailure", "rerunError", "rerunFailure", "skipped", "system-err", "system-out"}, keys(tc.Children))
	assert.True(t, tc.Children["failure"].Text, "mixed")
	rerun := tc.Children["rerunFailure"]
	assert.True(t, rerun.Attrs["type"].Required, "from the named complexType rerunType")
	assert.Equal(t, []string{"stackTrace", "system-err", "system-out"}, keys(rerun.Children), "local element declarations")
	assert.True(t, s.Elements["system-out"].Text)
}

const good = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="n" tests="1" failures="1" errors="0" time="0.010">
  <testsuite name="s" tests="1" failures="1" errors="0" skipped="0" time="0.010" timestamp="2026-11-30T10:00:00">
    <properties><property name="seed" value="1"></property></properties>
    <testcase name="a" classname="c" time="0.010"><failure message="m" type="MUST">details</failure><system-out>out</system-out></testcase>
  </testsuite>
</testsuites>`

// A report that follows the schema passes; each kind of departure is caught and named.
func TestCheck(t *testing.T) {
	s, err := Load(junitXSD)
	require.NoError(t, err)
	assert.Empty(t, s.Check([]byte(good)))
	for _, tc := range []struct{ name, from, to, want string }{
		{"undeclared element", `<system-out>out</system-out>`, `<stdout>out</stdout>`,
			"/testsuites/testsuite/testcase/stdout: testcase may not hold stdout (allowed: error, failure, flakyError, flakyFailure, rerunError, rerunFailure, skipped, system-err, system-out)"},
		{"any order within a repeated choice", `<properties>`, `<testcase name="x"></testcase><properties>`, ""},
		{"misplaced element", `<properties><property`, `<properties><testcase name="x"></testcase><property`,
			"/testsuites/testsuite/properties/testcase: properties may not hold testcase (allowed: property)"},
		{"undeclared attribute", `classname="c"`, `classname="c" status="failed"`,
			"/testsuites/testsuite/testcase: attribute status is not declared for testcase (declared: classname, group, name, time)"},
		{"required attribute missing", `<testsuite name="s" tests="1"`, `<testsuite tests="1"`,
			"/testsuites/testsuite: the required attribute name is missing"},
		{"pattern", `skipped="0" time="0.010"`, `skipped="0" time="10ms"`,
			`/testsuites/testsuite: attribute time="10ms" does not match its type's pattern`},
		{"text where only elements go", `<properties>`, `stray text<properties>`,
			"/testsuites/testsuite: text within testsuite, which holds only elements"},
		{"unknown root", `<testsuites name="n" tests="1" failures="1" errors="0" time="0.010">`, `<report>`, ""},
		{"not well-formed", `</testsuites>`, ``, "not well-formed XML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(good, tc.from, tc.to, 1)
			if tc.name == "unknown root" {
				doc = strings.Replace(doc, "</testsuites>", "</report>", 1)
			}
			require.NotEqual(t, good, doc)
			errs := s.Check([]byte(doc))
			if tc.want == "" {
				if tc.name == "unknown root" {
					require.NotEmpty(t, errs)
					assert.Equal(t, "/report: the root is not an element the schema declares", errs[0].Error())
				} else {
					assert.Empty(t, errs, "children may come in any order: the order is not checked")
				}
				return
			}
			require.NotEmpty(t, errs)
			assert.Contains(t, fmt.Sprint(errs), tc.want)
		})
	}
}

// A schema construct the package does not read is an error, not a check that passes.
func TestParseRefusesWhatItCannotRead(t *testing.T) {
	for name, xsd := range map[string]string{
		"not a schema":    `<root/>`,
		"group":           `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:group name="g"/></xs:schema>`,
		"unknown type":    `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="xs:int"/></xs:schema>`,
		"attribute type":  `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"><xs:complexType><xs:attribute name="n" type="xs:int"/></xs:complexType></xs:element></xs:schema>`,
		"missing ref":     `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"><xs:complexType><xs:sequence><xs:element ref="b"/></xs:sequence></xs:complexType></xs:element></xs:schema>`,
		"facet":           `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:simpleType name="t"><xs:restriction base="xs:string"><xs:maxLength value="3"/></xs:restriction></xs:simpleType></xs:schema>`,
		"namespace":       `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:x"/>`,
		"attribute group": `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"><xs:complexType><xs:attributeGroup ref="g"/></xs:complexType></xs:element></xs:schema>`,
	} {
		_, err := Parse([]byte(xsd))
		assert.Error(t, err, name)
	}
}

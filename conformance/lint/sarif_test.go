package lint

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/document"
)

// sarifFindings are findings of every shape: placed, with a section, at the root, without
// a line.
func sarifFindings() []Finding {
	data := strings.Replace(string(document.Spec), "maximum: 100", "maximum: 50", 1)
	data = strings.Replace(data, "      summary: List all animals\n", "", 1)
	fs := LintData([]byte(data))
	return append(fs, Finding{Rule: RuleParse, Severity: Warning, Pointer: "#", Message: "no line"})
}

func TestSARIF(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteSARIF(&b, "spec/openapi.yaml", sarifFindings()))
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
				}
				Properties map[string]string
			}
		}
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &log), b.String())
	assert.Equal(t, "2.1.0", log.Version)
	require.Len(t, log.Runs, 1)
	run := log.Runs[0]
	require.Len(t, run.Results, 3)
	for _, r := range run.Results {
		assert.Equal(t, r.RuleID, run.Tool.Driver.Rules[r.RuleIndex].ID)
		assert.Equal(t, "spec/openapi.yaml", r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	dep := run.Results[0]
	assert.Equal(t, RuleDeparture, dep.RuleID)
	assert.Equal(t, "error", dep.Level)
	assert.Equal(t, "4.1; 8", dep.Properties["section"])
	require.NotNil(t, dep.Locations[0].PhysicalLocation.Region)
	assert.Positive(t, dep.Locations[0].PhysicalLocation.Region.StartLine)
	assert.Positive(t, dep.Locations[0].PhysicalLocation.Region.StartColumn)
	assert.Nil(t, run.Results[2].Locations[0].PhysicalLocation.Region, "no region without a line")
}

// sarifSchema is the official SARIF 2.1.0 schema (OASIS), kept in testdata/schemas with its
// source and licence.
const sarifSchema = "../../testdata/schemas/sarif-schema-2.1.0.json"

// The log validates against the official SARIF 2.1.0 schema, in every test run.
func TestSARIFValidatesAgainstTheSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	schema, err := c.Compile(sarifSchema)
	require.NoError(t, err)
	for name, fs := range map[string][]Finding{"findings": sarifFindings(), "none": nil} {
		var b bytes.Buffer
		require.NoError(t, WriteSARIF(&b, "spec/openapi.yaml", fs))
		doc, err := jsonschema.UnmarshalJSON(&b)
		require.NoError(t, err)
		assert.NoError(t, schema.Validate(doc), name)
	}
	// The schema does catch a broken log.
	bad, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]}`))
	require.NoError(t, err)
	assert.Error(t, schema.Validate(bad), "a driver without a name")
}

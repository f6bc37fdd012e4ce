package lint

import (
	"encoding/json"
	"io"
)

// SARIF 2.1.0 (OASIS), the format code-scanning tools read: one run of one tool, a result
// per finding with its rule, level, message and place in the file.

// SARIFSchema is the schema URI the log declares.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifText    `json:"shortDescription"`
	DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
}

type sarifDefault struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

// WriteSARIF writes findings about file (a path relative to the repository root, as
// code-scanning tools expect) as a SARIF 2.1.0 log. Every rule of Rules is listed, so a
// result's ruleIndex is stable from run to run.
func WriteSARIF(w io.Writer, file string, findings []Finding) error {
	driver := sarifDriver{Name: "conformance lint", InformationURI: "https://github.com/petstore/petstore/blob/main/docs/spec-authors.md"}
	index := map[string]int{}
	for i, r := range Rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{ID: r.ID, ShortDescription: sarifText{r.Title},
			DefaultConfiguration: sarifDefault{Level: string(r.Severity)}})
	}
	results := make([]sarifResult, 0, len(findings))
	for _, f := range findings {
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: file}},
			LogicalLocations: []sarifLogical{{FullyQualifiedName: f.Pointer, Kind: "object"}}}
		if f.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
		}
		res := sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: string(f.Severity),
			Message: sarifText{f.Message}, Locations: []sarifLocation{loc},
			Properties: map[string]any{"pointer": f.Pointer}}
		if f.Section != "" {
			res.Properties["section"] = f.Section
		}
		results = append(results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}})
}

package conformance

import (
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/spec"
)

// The result model and its writers live in conformance/report; the catalogue in
// conformance/rules; sending one request in conformance/exchange. These names keep the
// public surface in one place.

type (
	Report           = report.Report
	Result           = report.Result
	Failure          = report.Failure
	Exchange         = report.Exchange
	ExchangeRequest  = report.ExchangeRequest
	ExchangeResponse = report.ExchangeResponse
	Counts           = report.Counts
	GateFailure      = report.GateFailure
	Cause            = report.Cause
	CauseExample     = report.CauseExample
	Status           = report.Status
	Severity         = report.Severity
	Waiver           = report.Waiver
	Writer           = report.Writer
	Provenance       = report.Provenance

	Coverage          = report.Coverage
	OperationCoverage = report.OperationCoverage
	StatusCount       = report.StatusCount
	ParameterCoverage = report.ParameterCoverage
	ValueCount        = report.ValueCount

	Rule    = rules.Rule
	Needs   = rules.Needs
	Check   = rules.Check
	Clients = rules.Clients
	Fixture = rules.Fixture

	ClientOptions = exchange.ClientOptions
)

// Outcomes, severities and verdicts (see conformance/report).
const (
	Pass   = report.Pass
	Fail   = report.Fail
	Warn   = report.Warn
	Skip   = report.Skip
	Error  = report.Error
	Waived = report.Waived

	Must     = report.Must
	Should   = report.Should
	Advisory = report.Advisory
	// Deprecated: Info is the former name of Advisory.
	Info = report.Advisory

	Conforming    = report.Conforming
	NotConforming = report.NotConforming
	NotRun        = report.NotRun
	CannotJudge   = report.CannotJudge

	KeyPlaceholder = report.KeyPlaceholder
	NamePrefix     = cases.NamePrefix
	DefaultTimeout = exchange.DefaultTimeout
	// DefaultMaxCreates caps the animals a run creates when Options.MaxCreates is zero.
	DefaultMaxCreates = rules.DefaultMaxCreates
)

var (
	// Formats are the report writers by --format name.
	Formats        = report.Formats
	WriteText      = report.WriteText
	WriteColorText = report.WriteColorText
	WriteJSON      = report.WriteJSON
	WriteJUnit     = report.WriteJUnit
	WriteHTML      = report.WriteHTML
	WriteMarkdown  = report.WriteMarkdown
	RunLine        = report.RunLine
	CoverageLine   = report.CoverageLine
	BlankValues    = report.BlankValues

	// NewClient returns the HTTP client a run uses (see exchange.NewClient).
	NewClient = exchange.NewClient

	// Sections are the rule ID prefixes that are not operationIds.
	Sections = rules.Sections

	// ErrBaseURL is wrapped by Run's error when the base URL does not end with the spec's
	// version segment.
	ErrBaseURL = exchange.ErrBaseURL
)

// All returns the catalogue for doc: every rule, in report order (rules.All on its facts).
func All(doc *openapi3.T) ([]Rule, error) {
	f, err := spec.ReadFacts(doc)
	if err != nil {
		return nil, err
	}
	return rules.All(f), nil
}

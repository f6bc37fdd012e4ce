package conformance

import (
	"strings"
	"text/template"

	"github.com/gavv/httpexpect/v2"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
)

// assertionHandler records httpexpect's failed assertions into a rule's result instead of
// a testing.T, so checks run the same under `go test` and from the command line.
type assertionHandler struct{ rec *exchange.Recorder }

func (assertionHandler) Success(*httpexpect.AssertionContext) {}

func (h assertionHandler) Failure(ctx *httpexpect.AssertionContext, f *httpexpect.AssertionFailure) {
	h.rec.Fail(report.Failure{
		Message:  format(msgFormatter, ctx, f),
		Expected: format(expectedFormatter, ctx, f),
		Actual:   format(actualFormatter, ctx, f),
	})
}

// Formatters that render one piece of a failure each, on one line, without colour.
var (
	funcs             = template.FuncMap{"join": strings.Join}
	msgFormatter      = oneLineFormatter(`{{ if .AssertPath }}{{ index .AssertPath (len .AssertPath | dec) }}: {{ end }}{{ join .Errors "; " }}`)
	expectedFormatter = oneLineFormatter(`{{ if .HaveExpected }}{{ if .IsNegation }}not {{ end }}{{ .ExpectedKind }} {{ join .Expected ", " }}{{ end }}`)
	actualFormatter   = oneLineFormatter(`{{ if .HaveActual }}{{ .Actual }}{{ end }}`)
)

func oneLineFormatter(tmpl string) *httpexpect.DefaultFormatter {
	f := template.FuncMap{"dec": func(n int) int { return n - 1 }}
	for k, v := range funcs {
		f[k] = v
	}
	return &httpexpect.DefaultFormatter{
		ColorMode: httpexpect.ColorModeNever, LineWidth: -1, DisableDiffs: true,
		DisableRequests: true, DisableResponses: true,
		FailureTemplate: tmpl, TemplateFuncs: f,
	}
}

func format(f *httpexpect.DefaultFormatter, ctx *httpexpect.AssertionContext, fail *httpexpect.AssertionFailure) string {
	return strings.Join(strings.Fields(f.FormatFailure(ctx, fail)), " ")
}

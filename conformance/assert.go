package conformance

import (
	"fmt"
	"net/http"
	"strings"
	"text/template"

	"github.com/gavv/httpexpect/v2"
)

// assertionHandler records httpexpect's failed assertions into a rule's result instead of
// a testing.T, so checks run the same under `go test` and from the command line.
type assertionHandler struct{ rec *recorder }

func (assertionHandler) Success(*httpexpect.AssertionContext) {}

func (h assertionHandler) Failure(ctx *httpexpect.AssertionContext, f *httpexpect.AssertionFailure) {
	h.rec.fail(Failure{
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

// code returns the response's status, or 0 when the request failed.
func code(resp *httpexpect.Response) int {
	if raw := resp.Raw(); raw != nil {
		return raw.StatusCode
	}
	return 0
}

// expectError asserts that resp is an Error record (section 7) with one of the statuses.
func expectError(c *Check, resp *httpexpect.Response, statuses ...int) {
	got := code(resp)
	if got == 0 {
		return // the transport failure is already recorded
	}
	if !containsInt(statuses, got) {
		c.Expectf(statusList(statuses), statusText(got), "want status %s, got %s", statusList(statuses), statusText(got))
		return
	}
	obj := resp.JSON().Object()
	obj.Value("code").String().NotEmpty()
	obj.Value("message").String()
	obj.Value("status").Number().IsEqual(got)
}

// expectOpenAnswer asserts what any answer to a probe of what the document leaves open
// must hold: never a 5xx, a 4xx carries an Error record, a 2xx list holds at most max
// animals (max 0: the answer is not a list).
func expectOpenAnswer(c *Check, resp *httpexpect.Response, max int64) {
	switch got := code(resp); {
	case got == 0:
	case got >= 400 && got < 500:
		expectError(c, resp, got)
	case got >= 200 && got < 300:
		if max > 0 {
			resp.JSON().Array().Length().Le(max)
		}
	default:
		c.Expectf("a 4xx with an Error body, or a 2xx", statusText(got),
			"an input the document leaves open must never get %s", statusText(got))
	}
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func statusText(code int) string { return fmt.Sprintf("%d %s", code, http.StatusText(code)) }

func statusList(codes []int) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = statusText(c)
	}
	return strings.Join(parts, " or ")
}

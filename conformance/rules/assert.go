package rules

import (
	"github.com/gavv/httpexpect/v2"
	"github.com/petstore/petstore/conformance/report"
)

// code returns the response's status, or 0 when the request failed.
func code(resp *httpexpect.Response) int {
	if raw := resp.Raw(); raw != nil {
		return raw.StatusCode
	}
	return 0
}

// expectError asserts that resp has one of the statuses; that its body is an Error record
// (section 7) is judged for every answer by the session, with judge.ErrorRecord.
func expectError(resp *httpexpect.Response, statuses ...int) { resp.StatusList(statuses...) }

// expectOpenAnswer asserts what any answer to a probe of what the document leaves open
// must hold: never a 5xx, a 4xx carries an Error record, a 2xx list holds at most max
// animals (max 0: the answer is not a list).
func expectOpenAnswer(c *Check, resp *httpexpect.Response, max int64) {
	switch got := code(resp); {
	case got == 0:
	case got >= 400 && got < 500:
		expectError(resp, got)
	case got >= 200 && got < 300:
		if max > 0 {
			resp.JSON().Array().Length().Le(max)
		}
	default:
		c.Expectf("a 4xx with an Error body, or a 2xx", report.StatusText(got),
			"an input the document leaves open must never get %s", report.StatusText(got))
	}
}

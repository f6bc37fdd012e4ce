package rules

import (
	"net/http"
	"strings"

	"github.com/gavv/httpexpect/v2"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// authCase is one way of presenting (or not) credentials, run against every secured
// operation of the spec.
type authCase struct {
	slug, section, title string
	severity             Severity
	// header returns the Authorization value to send for key; ok false sends none. A value
	// derived from the key must be one of report.Credentials, so that reports can show it without
	// the key.
	header func(key string) (value string, ok bool)
	// more are further credentials the case sends, one request each (none: just header).
	more []report.Credential
	// status is the documented status the case relies on (0: none in particular).
	status int
	// expect checks the answer.
	expect func(c *Check, resp *httpexpect.Response)
}

var authCases = []authCase{
	{
		slug: "missing", section: "5.1; 5.3", severity: Must,
		title:  "without an Authorization header gets 401 with an Error body",
		header: func(string) (string, bool) { return "", false },
		expect: expect401, status: http.StatusUnauthorized,
	},
	{
		slug: "wrong-key", section: "5.3", severity: Must,
		title:  "with a bearer token that is not a valid key gets 401 with an Error body",
		header: func(string) (string, bool) { return "Bearer " + cases.WrongKey, true },
		expect: expect401, status: http.StatusUnauthorized,
	},
	{
		slug: "not-bearer", section: "5.2; 5.3", severity: Must,
		title:  "with the key under a scheme other than Bearer gets 401 with an Error body",
		header: func(key string) (string, bool) { return report.CredToken.Value(key), true },
		expect: expect401, status: http.StatusUnauthorized,
	},
	{
		// Servers that also take HTTP Basic credentials, the key as user name, are common.
		slug: "basic", section: "5.1; 5.2; 5.3", severity: Must,
		title:  "with the key as HTTP Basic credentials (the key as user name) gets 401 with an Error body",
		header: func(key string) (string, bool) { return report.CredBasic.Value(key), true },
		expect: expect401, status: http.StatusUnauthorized,
	},
	{
		// A key compared by prefix, or case-insensitively, lets in keys that are not it.
		slug: "near-key", section: "5.2; 5.3", severity: Must,
		title:  "with a bearer token near the key (the key and one more character, its last character changed, its case flipped) gets 401 with an Error body",
		header: func(key string) (string, bool) { return report.CredAppended.Value(key), true },
		more:   []report.Credential{report.CredLastChanged, report.CredCaseFlipped},
		expect: expect401, status: http.StatusUnauthorized,
	},
	{
		slug: "empty-token", section: "5.2; 5.3", severity: Must,
		title:  "with an empty bearer token gets 401 with an Error body",
		header: func(string) (string, bool) { return "Bearer ", true },
		expect: expect401, status: http.StatusUnauthorized,
	},
	{
		slug: "www-authenticate", section: "5.3; RFC 9110 11.6.1", severity: Should,
		title:  "without a key gets a 401 whose WWW-Authenticate header names the Bearer scheme",
		header: func(string) (string, bool) { return "", false },
		status: http.StatusUnauthorized,
		expect: func(c *Check, resp *httpexpect.Response) {
			if code(resp) != http.StatusUnauthorized {
				// A precondition, not the rule's requirement: worded as one, it is not
				// counted with the 401 rules' own failures as their cause.
				c.Expectf(report.StatusText(http.StatusUnauthorized), report.StatusText(code(resp)), "want a 401 to look at")
				return
			}
			challenge := resp.Raw().Header.Get("WWW-Authenticate")
			scheme, _, _ := strings.Cut(strings.TrimSpace(challenge), " ")
			if !strings.EqualFold(scheme, "Bearer") {
				c.Expectf("WWW-Authenticate: Bearer ...", "WWW-Authenticate: "+challenge,
					"the 401 does not challenge with the Bearer scheme")
			}
		},
	},
	{
		slug: "scheme-case", section: "5.2; RFC 9110 11.1", severity: Should,
		title:  "accepts the key under the scheme name in lower case (bearer): scheme names are case-insensitive",
		header: func(key string) (string, bool) { return report.CredBearerLower.Value(key), true },
		more:   []report.Credential{report.CredBearerUpper},
		expect: func(c *Check, resp *httpexpect.Response) {
			if code(resp) == http.StatusUnauthorized {
				c.Expectf("not 401", report.StatusText(code(resp)), "the valid key under the scheme name \"bearer\" was refused")
			}
		},
	},
}

func expect401(c *Check, resp *httpexpect.Response) { expectError(resp, http.StatusUnauthorized) }

// authRules generates every auth case for every secured operation of the spec.
func authRules(f *facts) []Rule {
	var rules []Rule
	for _, op := range f.Ops {
		if !op.Secured {
			continue
		}
		for _, ac := range authCases {
			rules = append(rules, Rule{
				ID:       "auth/" + op.ID + "-" + ac.slug,
				Section:  ac.section,
				Uses:     usesAuth,
				Severity: ac.severity,
				Title:    op.Method + " " + op.Path + " " + ac.title,
				Op:       op.ID,
				Expects:  ac.status,
				// A valid write that a broken target accepts would create an animal.
				Creates: op.Method != http.MethodGet,
				Run:     authCheck(op, ac),
			})
		}
	}
	return rules
}

func authCheck(op spec.Operation, ac authCase) func(*Check) {
	return func(c *Check) {
		key := c.Key
		req := exampleRequest(c.Anon, op)
		if v, ok := ac.header(key); ok {
			req = req.WithHeader("Authorization", v)
		}
		ac.expect(c, req.Expect())
		for _, cred := range ac.more {
			v := cred.Value(key)
			if c.Failed() || v == report.CredBearer.Value(key) { // a key without letters has no case to flip
				continue
			}
			ac.expect(c, exampleRequest(c.Anon, op).WithHeader("Authorization", v).Expect())
		}
	}
}

package rules

import (
	"math"
	"net/http"
	"regexp"
	"strconv"

	"github.com/gavv/httpexpect/v2"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// unknownPetID is an identifier no store will have assigned: the largest int64, the
// format of petId in the spec.
var unknownPetID = strconv.FormatInt(math.MaxInt64, 10)

// errorCase provokes one row of the table in section 7 of the interface document.
type errorCase struct {
	slug, title string
	op          string
	status      int
	creates     bool
	provoke     func(c *Check, path string) *httpexpect.Response // path: op's
}

var errorCases = []errorCase{
	{
		slug: "unauthorized", op: spec.OpList, status: http.StatusUnauthorized,
		title: "a request without a key gets 401 as an Error record",
		provoke: func(c *Check, path string) *httpexpect.Response {
			return c.Anon.GET(path).Expect()
		},
	},
	{
		slug: "bad-request", op: spec.OpCreate, status: http.StatusBadRequest, creates: true,
		title: "an invalid body to POST /pets gets 400 as an Error record",
		provoke: func(c *Check, path string) *httpexpect.Response {
			return c.Auth.POST(path).WithJSON(map[string]any{}).Expect()
		},
	},
	{
		slug: "not-found", op: spec.OpGet, status: http.StatusNotFound,
		title: "an unknown petId gets 404 as an Error record",
		provoke: func(c *Check, path string) *httpexpect.Response {
			return c.Auth.GET(path, unknownPetID).Expect()
		},
	},
}

// errorRules check section 7 on one response of each status the section lists. Every other
// error response of every rule is checked the same way by the runner.
func errorRules(f *facts) []Rule {
	rules := make([]Rule, 0, len(errorCases))
	for _, ec := range errorCases {
		rules = append(rules, Rule{
			ID:       "errors/" + ec.slug,
			Section:  "7",
			Severity: Must,
			Title:    ec.title + " (application/json; code, message, status equal to the HTTP status)",
			Op:       ec.op,
			Creates:  ec.creates,
			Run: func(c *Check) {
				// The Error record itself (media type, fields, status) is judged for every
				// answer by the session (judge.ErrorRecord); the rule provokes the status.
				expectError(ec.provoke(c, f.ByID[ec.op].Path), ec.status)
			},
		})
	}
	return append(rules, Rule{
		ID: "errors/machine-readable-code", Section: "7; 2 (Error)", Severity: Should, Op: spec.OpGet,
		Title: "an Error's code is a machine-readable token (no spaces), the same for the same cause, and its message is not empty",
		Run: func(c *Check) {
			// Two unknown ids are one cause: a code that varies with the request (one that
			// embeds the id, say) is not something a client can switch on.
			var codes []string
			for _, id := range []string{unknownPetID, strconv.FormatInt(math.MaxInt64-1, 10)} {
				resp := c.Auth.GET(f.ByID[spec.OpGet].Path, id).Expect()
				if code(resp) != http.StatusNotFound {
					// A precondition (see auth/*-www-authenticate).
					c.Expectf(report.StatusText(http.StatusNotFound), report.StatusText(code(resp)), "want a 404 to look at")
					return
				}
				obj := resp.JSON().Object()
				codes = append(codes, obj.Value("code").Alias("body/code").String().Raw())
				obj.Value("message").Alias("body/message").String().NotEmpty()
			}
			for _, got := range codes {
				if !codeToken.MatchString(got) {
					c.Expectf("a token such as not_found", strconv.Quote(got), "the code is not a machine-readable token")
					return
				}
			}
			if codes[0] != codes[1] {
				c.Expectf("the same code for the same cause", strconv.Quote(codes[0])+" and "+strconv.Quote(codes[1]),
					"two unknown ids got different codes")
			}
		},
	})
}

// codeToken is what a machine-readable code looks like: one word of letters, digits and
// _ . : - (snake_case, kebab-case, dotted and namespaced codes all pass).
var codeToken = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:/-]*$`)

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gavv/httpexpect/v2"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/words"
)

// assertionHandler records httpexpect's failed assertions into a rule's result instead of
// a testing.T, so checks run the same under `go test` and from the command line. It words
// each failure in the project's terms ("want status 200 OK, got 404 Not Found", "the
// listing holds 2 animals, want at most 1 animal") from what httpexpect hands it: the kind
// of assertion, the values expected and found, and the response they were read from. A
// value found that is the response's status is the status, one that is its media type or
// charset is the Content-Type; any other value is the body's, or the place of it a check
// named with httpexpect's Alias, as the spec validation writes places ("body/code"). What
// the spec validation of the same response already said is not said again.
type assertionHandler struct{ rec *exchange.Recorder }

func (assertionHandler) Success(*httpexpect.AssertionContext) {}

func (h assertionHandler) Failure(ctx *httpexpect.AssertionContext, f *httpexpect.AssertionFailure) {
	if f.Severity != httpexpect.SeverityError {
		return // a logged, non-failing check (httpexpect's Find and Filter try elements)
	}
	if f.Type == httpexpect.AssertOperation && (!h.rec.Answered() || h.rec.Accounted()) {
		return // no answer, not sent, or a dropped connection said already
	}
	fail := describe(ctx, f)
	if h.saidAlready(fail.Location) {
		return
	}
	h.rec.Fail(fail)
}

// saidAlready reports whether a failure about the same place of the latest response (its
// Content-Type, its body, a field of it) is recorded already: the spec validation runs
// before the check's assertions, and "media type text/plain is not documented" or
// "property "code" is missing" says what an assertion on the same place would say again.
// The status is not such a place: "status 410 is not documented" and "want status 200 OK,
// got 410 Gone" say different things.
func (h assertionHandler) saidAlready(loc string) bool {
	if loc == "" || loc == locStatus {
		return false
	}
	failures, exchanges := h.rec.Results()
	latest := len(exchanges) - 1
	for _, f := range failures {
		if f.Exchange == latest && f.Location == loc {
			return true
		}
	}
	return false
}

// Places of a response, as the spec validation writes them.
const (
	locStatus      = "status"
	locBody        = "body"
	locContentType = "header Content-Type"
)

// describe words one failed assertion.
func describe(ctx *httpexpect.AssertionContext, f *httpexpect.AssertionFailure) report.Failure {
	errs := make([]string, 0, len(f.Errors))
	for _, err := range f.Errors {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	switch f.Type {
	case httpexpect.AssertOperation:
		return report.Failure{Message: "the request failed: " + strings.Join(errs[min(1, len(errs)):], ": ")}
	case httpexpect.AssertUsage:
		return report.Failure{Message: "the check itself is wrong (a bug of the harness): " + strings.Join(errs, ": ")}
	}
	var exp, act any
	if f.Expected != nil {
		exp = f.Expected.Value
	}
	if f.Actual != nil {
		act = f.Actual.Value
	}
	var resp *http.Response
	if ctx.Response != nil {
		resp = ctx.Response.Raw()
	}
	alias := ""
	if n := len(ctx.AliasedPath); n > 0 && (len(ctx.Path) == 0 || ctx.AliasedPath[0] != ctx.Path[0]) {
		alias = ctx.AliasedPath[0]
	}
	if got, ok := act.(string); ok && resp != nil && alias == "" {
		if fail, ok := describeResponse(resp, f.Type, exp, got, errs); ok {
			return fail
		}
	}
	s := subject{loc: alias, listing: isListing(resp)}
	if s.loc == "" && resp != nil {
		s.loc = locBody
	}
	return s.describe(f.Type, exp, act, f.Actual != nil, errs)
}

// describeResponse words a failure whose value found is the response's own: its status,
// its media type or charset, or a body that is not JSON.
func describeResponse(resp *http.Response, typ httpexpect.AssertionType, exp any, got string, errs []string) (report.Failure, bool) {
	header := resp.Header.Get("Content-Type")
	media, params, err := mime.ParseMediaType(header)
	fail := func(loc, msg, expected, actual string) (report.Failure, bool) {
		return report.Failure{Location: loc, Message: msg, Expected: expected, Actual: actual}, true
	}
	switch {
	case exp != nil && got == statusText(resp.StatusCode):
		want := either(exp, " or ")
		return fail(locStatus, fmt.Sprintf("want status %s, got %s", want, got), want, got)
	case typ == httpexpect.AssertValid && got == header && err != nil:
		shown := "none"
		if got != "" {
			shown = strconv.Quote(got) + ", which is not a media type"
		}
		return fail(locContentType, "want Content-Type application/json, got "+shown, "application/json", shown)
	case err == nil && got == media && exp != nil:
		want := text(exp)
		return fail(locContentType, fmt.Sprintf("want Content-Type %s, got %s", want, got), want, got)
	case err == nil && got != "" && got == params["charset"]:
		want := "utf-8"
		if s, ok := exp.(string); ok {
			want = s
		}
		return fail(locContentType, fmt.Sprintf("want the Content-Type charset %s, got %s", want, got), "charset "+want, "charset "+got)
	case typ == httpexpect.AssertValid && len(errs) > 1 && !json.Valid([]byte(got)):
		return fail(locBody, fmt.Sprintf("the body is not valid JSON: %s", errs[len(errs)-1]), "a JSON document", clipped(got))
	}
	return report.Failure{}, false
}

// statusText is a status as httpexpect writes it ("404 Not Found").
func statusText(code int) string { return strings.TrimSpace(report.StatusText(code)) }

// isListing reports whether resp is a 2xx answer to GET /pets: its body's elements are
// animals.
func isListing(resp *http.Response) bool {
	return resp != nil && resp.Request != nil && resp.Request.Method == http.MethodGet &&
		strings.HasSuffix(resp.Request.URL.Path, "/pets") && resp.StatusCode/100 == 2
}

// subject is what a value was read from: its place in the response ("body", "body/code"),
// and whether the body is a listing.
type subject struct {
	loc     string
	listing bool
}

// String names the subject: "the listing", "the body", the field "code", the header X-Y.
func (s subject) String() string {
	switch {
	case s.loc == locBody && s.listing:
		return "the listing"
	case s.loc == locBody:
		return "the body"
	case strings.HasPrefix(s.loc, locBody+"/"):
		return fmt.Sprintf("the field %q", strings.TrimPrefix(s.loc, locBody+"/"))
	case strings.HasPrefix(s.loc, "header "):
		return "the " + s.loc
	case s.loc == "":
		return "the value"
	}
	return s.loc
}

// counted reports whether a number read from the subject is how many elements it has: a
// listing holds animals, and has no other number.
func (s subject) counted(act any) bool {
	_, isNumber := act.(float64)
	return isNumber && s.listing && s.loc == locBody
}

// count says "2 animals".
func count(n any) string {
	s, many := text(n), 2
	if s == "1" {
		many = 1
	}
	return s + " " + words.Noun(many, "animal")
}

// describe words a failed assertion on a value read from s.
func (s subject) describe(typ httpexpect.AssertionType, exp, act any, hasAct bool, errs []string) report.Failure {
	out := report.Failure{Location: s.loc}
	set := func(msg, expected, actual string) report.Failure {
		out.Message, out.Expected, out.Actual = msg, expected, actual
		return out
	}
	if s.counted(act) {
		want, got := wanted(typ, exp, true), count(act)
		return set(fmt.Sprintf("%s holds %s, want %s", s, got, want), want, got)
	}
	switch typ {
	case httpexpect.AssertValid, httpexpect.AssertType:
		want := typeWanted(errs)
		return set(fmt.Sprintf("%s is not %s: it is %s", s, want, kind(act)), want, kind(act))
	case httpexpect.AssertContainsKey:
		key := text(exp)
		out.Location = s.loc + "/" + key
		return set(fmt.Sprintf("%s has no field %q", s, key), fmt.Sprintf("a field %q", key), clipped(jsonText(act)))
	case httpexpect.AssertNotContainsKey:
		return set(fmt.Sprintf("%s has a field %q it must not have", s, text(exp)), fmt.Sprintf("no field %q", text(exp)), clipped(jsonText(act)))
	case httpexpect.AssertNotEmpty:
		if s.listing && s.loc == locBody {
			return set("the listing is empty, want at least 1 animal", "at least 1 animal", "none")
		}
		return set(fmt.Sprintf("%s is empty", s), "not empty", clipped(jsonText(act)))
	case httpexpect.AssertEmpty:
		return set(fmt.Sprintf("%s is %s, want it empty", s, clipped(jsonText(act))), "empty", clipped(jsonText(act)))
	case httpexpect.AssertNil:
		return set(fmt.Sprintf("%s is %s, want null", s, clipped(jsonText(act))), "null", clipped(jsonText(act)))
	case httpexpect.AssertNotNil:
		return set(fmt.Sprintf("%s is null", s), "a value", "null")
	}
	if exp != nil {
		want, got := wanted(typ, exp, false), clipped(jsonText(act))
		if !hasAct {
			got = "nothing"
		}
		return set(fmt.Sprintf("%s is %s, want %s", s, got, want), want, got)
	}
	// No expectation to state: say what the check found wrong.
	return set(fmt.Sprintf("%s: %s", s, strings.TrimPrefix(strings.Join(errs, ": "), "expected: ")), "", clipped(jsonText(act)))
}

// bounds are the words before a value an assertion wants, and before a count.
var bounds = map[httpexpect.AssertionType][2]string{
	httpexpect.AssertEqual:              {"", "exactly "},
	httpexpect.AssertNotEqual:           {"anything but ", "other than "},
	httpexpect.AssertLt:                 {"less than ", "fewer than "},
	httpexpect.AssertLe:                 {"at most ", "at most "},
	httpexpect.AssertGt:                 {"more than ", "more than "},
	httpexpect.AssertGe:                 {"at least ", "at least "},
	httpexpect.AssertMatchRegexp:        {"text matching ", ""},
	httpexpect.AssertNotMatchRegexp:     {"text not matching ", ""},
	httpexpect.AssertContainsElement:    {"an array holding ", ""},
	httpexpect.AssertNotContainsElement: {"an array without ", ""},
	httpexpect.AssertContainsSubset:     {"a value holding ", ""},
	httpexpect.AssertNotContainsSubset:  {"a value without ", ""},
}

// wanted says what an assertion of type typ on exp wants: a value as JSON, or, counting, a
// number of animals ("at most 1 animal", "exactly 20 animals").
func wanted(typ httpexpect.AssertionType, exp any, counting bool) string {
	show, i := jsonText, 0
	if counting {
		show, i = count, 1
	}
	switch typ {
	case httpexpect.AssertInRange, httpexpect.AssertNotInRange:
		r, _ := exp.(httpexpect.AssertionRange)
		lo, hi := text(r.Min), show(r.Max)
		switch {
		case typ == httpexpect.AssertNotInRange:
			return fmt.Sprintf("below %s or above %s", lo, hi)
		case lo == text(r.Max):
			return bounds[httpexpect.AssertEqual][i] + hi
		}
		return fmt.Sprintf("between %s and %s", lo, hi)
	case httpexpect.AssertBelongs:
		return "one of " + either(exp, ", ")
	case httpexpect.AssertNotBelongs:
		return "none of " + either(exp, ", ")
	case httpexpect.AssertMatchSchema:
		return "a value matching the schema"
	}
	return bounds[typ][i] + show(exp)
}

// either writes a list of allowed values joined by sep ("200 OK or 201 Created"), or one.
func either(v any, sep string) string {
	list, ok := v.(httpexpect.AssertionList)
	if !ok {
		return text(v)
	}
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = text(x)
	}
	return strings.Join(parts, sep)
}

// typeWanted is the kind of JSON value a conversion wanted, from httpexpect's statement of
// it ("expected: value is array").
func typeWanted(errs []string) string {
	for _, e := range errs {
		if _, kind, ok := strings.Cut(e, "value is "); ok {
			if w, ok := map[string]string{"object": "a JSON object", "array": "a JSON array", "number": "a number",
				"string": "a string", "boolean": "true or false"}[kind]; ok {
				return w
			}
		}
	}
	return "a value of the wanted type"
}

// kind says what JSON value v is, with the value: `the string "401"`, `an object {...}`.
func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + clipped(strconv.Quote(x))
	case bool:
		return strconv.FormatBool(x)
	case float64, json.Number:
		return "the number " + text(x)
	case map[string]any:
		return "an object " + clipped(jsonText(x))
	case []any:
		return "an array " + clipped(jsonText(x))
	}
	return clipped(jsonText(v))
}

// text writes v plainly: strings as they are, whole numbers without a fraction.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// jsonText writes v as JSON (strings quoted), or plainly when it is no JSON value.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return text(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func clipped(s string) string { return report.Clip(s, 120) }

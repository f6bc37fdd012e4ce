package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// listing holds 2 animals, want at most 1"), never in the library's (method names, "expected:
// value is array"), and it drops what the spec validation of the same response already said.
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

// Locations of what an assertion looked at, as the spec validation writes them.
const (
	locStatus      = "status"
	locBody        = "body"
	locContentType = "header Content-Type"
)

// target is what an assertion looked at, read from httpexpect's chain of calls
// (Expect().JSON().Object().Value("code").String()...).
type target struct {
	loc     string // "status", "header Content-Type", "body", "body/code"
	length  bool   // Length() of an array
	listing bool   // the body is a 2xx answer to GET /pets: its elements are animals
	last    string // the call that failed: "Status", "Value", "Le"...
	lastArg string // its argument, unquoted
}

func readTarget(ctx *httpexpect.AssertionContext) target {
	var t target
	for _, step := range ctx.Path {
		name, arg := splitCall(step)
		t.last, t.lastArg = name, arg
		switch name {
		case "Status", "StatusRange", "StatusList":
			t.loc = locStatus
		case "Header", "Headers":
			t.loc = "header " + arg
		case "HasContentType", "ContentType", "ContentEncoding", "TransferEncoding":
			t.loc = locContentType
		case "JSON", "Body", "Text", "Form", "Reader":
			t.loc = locBody
		case "Value", "Element", "Path":
			if t.loc != "" && arg != "" {
				t.loc += "/" + arg
			}
		case "Length":
			t.length = true
		}
	}
	if ctx.Response != nil {
		if raw := ctx.Response.Raw(); raw != nil && raw.Request != nil {
			req := raw.Request
			t.listing = req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/pets") && raw.StatusCode/100 == 2
		}
	}
	return t
}

// splitCall splits `Value("code")` into "Value" and "code".
func splitCall(step string) (name, arg string) {
	name, arg, _ = strings.Cut(step, "(")
	arg = strings.TrimSuffix(arg, ")")
	if s, err := strconv.Unquote(arg); err == nil {
		arg = s
	}
	return name, arg
}

// subject names what was looked at: "the status", "the body", "the listing", the field
// "code", the header X-Y.
func (t target) subject() string {
	switch {
	case t.loc == locStatus:
		return "the status"
	case t.loc == locBody && t.listing:
		return "the listing"
	case t.loc == locBody:
		return "the body"
	case strings.HasPrefix(t.loc, locBody+"/"):
		return fmt.Sprintf("the field %q", strings.TrimPrefix(t.loc, locBody+"/"))
	case strings.HasPrefix(t.loc, "header "):
		return "the " + t.loc
	case t.loc == "":
		return "the response"
	}
	return t.loc
}

// parent is the target without its last field: what a missing key is missing from.
func (t target) parent() target {
	p := t
	if i := strings.LastIndex(t.loc, "/"); i >= 0 {
		p.loc = t.loc[:i]
	}
	return p
}

// count says "2 animals" in a listing, "2 items" elsewhere.
func (t target) count(n any) string {
	noun := "item"
	if t.listing && t.loc == locBody {
		noun = "animal"
	}
	s, many := text(n), 2
	if s == "1" {
		many = 1
	}
	return s + " " + words.Noun(many, noun)
}

// describe words one failed assertion.
func describe(ctx *httpexpect.AssertionContext, f *httpexpect.AssertionFailure) report.Failure {
	t := readTarget(ctx)
	exp, act, hasExp, hasAct := values(f)
	errs := errorTexts(f)
	out := report.Failure{Location: t.loc}
	set := func(msg, expected, actual string) report.Failure {
		out.Message, out.Expected, out.Actual = msg, expected, actual
		return out
	}
	subject := t.subject()

	switch {
	case f.Type == httpexpect.AssertOperation:
		out.Location = ""
		return set("the request failed: "+strings.Join(errs[min(1, len(errs)):], ": "), "", "")
	case f.Type == httpexpect.AssertUsage:
		out.Location = ""
		return set("the check itself is wrong (a bug of the harness): "+strings.Join(errs, ": "), "", "")
	case t.loc == locStatus && hasExp && hasAct:
		want := text(exp)
		if f.Type == httpexpect.AssertBelongs {
			want = oneOf(exp)
		}
		return set(fmt.Sprintf("want status %s, got %s", want, text(act)), want, text(act))
	case mentions(errs, "charset"):
		out.Location = locContentType
		want := "utf-8"
		if hasExp && f.Type == httpexpect.AssertEqual {
			want = text(exp)
		}
		return set(fmt.Sprintf("want the Content-Type charset %s, got %s", want, text(act)), "charset "+want, "charset "+text(act))
	case mentions(errs, "Content-Type"):
		out.Location = locContentType
		want := "application/json"
		if hasExp {
			want = text(exp)
		}
		got := text(act)
		switch {
		case got == "":
			got = "none"
		case f.Type == httpexpect.AssertValid:
			got = strconv.Quote(got) + ", which is not a media type"
		}
		return set(fmt.Sprintf("want Content-Type %s, got %s", want, got), want, got)
	case mentions(errs, "failed to decode json"):
		return set(fmt.Sprintf("%s is not valid JSON: %s", subject, strings.Join(errs[min(1, len(errs)):], ": ")),
			"a JSON document", clipped(text(act)))
	}

	if t.length {
		return set(lengthMessage(t, f.Type, exp, act))
	}
	switch f.Type {
	case httpexpect.AssertValid, httpexpect.AssertType:
		if want := typeWanted(t.last); want != "" {
			return set(fmt.Sprintf("%s is not %s: it is %s", subject, want, kind(act)), want, kind(act))
		}
	case httpexpect.AssertContainsKey:
		key := text(exp)
		return set(fmt.Sprintf("%s has no field %q", t.parent().subject(), key), fmt.Sprintf("a field %q", key), clipped(jsonText(act)))
	case httpexpect.AssertNotContainsKey:
		return set(fmt.Sprintf("%s has a field %q it must not have", subject, text(exp)), fmt.Sprintf("no field %q", text(exp)), clipped(jsonText(act)))
	case httpexpect.AssertNotEmpty:
		if t.listing && t.loc == locBody {
			return set("the listing is empty, want at least 1 animal", "at least 1 animal", "none")
		}
		return set(fmt.Sprintf("%s is empty", subject), "not empty", clipped(jsonText(act)))
	case httpexpect.AssertEmpty:
		return set(fmt.Sprintf("%s is %s, want it empty", subject, clipped(jsonText(act))), "empty", clipped(jsonText(act)))
	case httpexpect.AssertNil:
		return set(fmt.Sprintf("%s is %s, want null", subject, clipped(jsonText(act))), "null", clipped(jsonText(act)))
	case httpexpect.AssertNotNil:
		return set(fmt.Sprintf("%s is null", subject), "a value", "null")
	}
	if hasExp {
		want := wanted(f.Type, exp, nil)
		got := clipped(jsonText(act))
		if !hasAct {
			got = "nothing"
		}
		return set(fmt.Sprintf("%s is %s, want %s", subject, got, want), want, got)
	}
	// No expectation to state: say what the check found wrong, in the library's words
	// without its method names.
	return set(fmt.Sprintf("%s: %s", subject, strings.TrimPrefix(strings.Join(errs, ": "), "expected: ")), "", clipped(jsonText(act)))
}

// lengthMessage words a bound on the length of an array: "the listing holds 2 animals,
// want at most 1 animal".
func lengthMessage(t target, typ httpexpect.AssertionType, exp, act any) (string, string, string) {
	want := wanted(typ, exp, t.count)
	got := t.count(act)
	return fmt.Sprintf("%s holds %s, want %s", t.subject(), got, want), want, got
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

// wanted says what an assertion of type typ on exp wants. show writes a value: as JSON, or
// as a count of animals when count is given ("at most 1 animal").
func wanted(typ httpexpect.AssertionType, exp any, count func(any) string) string {
	show, i := jsonText, 0
	if count != nil {
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
		return oneOf(exp)
	case httpexpect.AssertNotBelongs:
		return "none of " + strings.TrimPrefix(oneOf(exp), "one of ")
	case httpexpect.AssertMatchSchema:
		return "a value matching the schema"
	}
	if b, ok := bounds[typ]; ok {
		return b[i] + show(exp)
	}
	return show(exp)
}

// typeWanted is what a conversion of the chain wants the value to be.
func typeWanted(call string) string {
	return map[string]string{
		"Object": "a JSON object", "Array": "a JSON array", "Number": "a number",
		"String": "a string", "Boolean": "true or false",
	}[call]
}

// values returns the expected and actual values of f.
func values(f *httpexpect.AssertionFailure) (exp, act any, hasExp, hasAct bool) {
	if f.Expected != nil {
		exp, hasExp = f.Expected.Value, true
	}
	if f.Actual != nil {
		act, hasAct = f.Actual.Value, true
	}
	return exp, act, hasExp, hasAct
}

func errorTexts(f *httpexpect.AssertionFailure) []string {
	var out []string
	for _, err := range f.Errors {
		if err != nil {
			out = append(out, err.Error())
		}
	}
	return out
}

func mentions(errs []string, s string) bool {
	for _, e := range errs {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}

// oneOf writes a list of allowed values: "one of 200 OK, 201 Created".
func oneOf(v any) string {
	list, ok := v.(httpexpect.AssertionList)
	if !ok {
		return text(v)
	}
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = text(x)
	}
	return "one of " + strings.Join(parts, ", ")
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
	case float64, float32, int, int64, json.Number:
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

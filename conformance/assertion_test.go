package conformance

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gavv/httpexpect/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/report"
)

// Failed assertions read in the project's words, from the values httpexpect hands over: what
// was looked at (the status, the Content-Type, the body, a field a check named with Alias),
// what was wanted, what came back; never a method of the assertion library or its
// "expected: value is ...".
func TestAssertionFailuresInPlainWords(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := map[string]string{
			"/v1/pets":       `[{"id":1},{"id":2}]`,
			"/v1/empty/pets": `[]`,
			"/v1/wrapped":    `{"count":2,"items":[]}`,
			"/v1/error":      `{"message":"no","status":"401"}`,
			"/v1/bom":        "\ufeff[1]",
		}[r.URL.Path]
		switch r.URL.Path {
		case "/v1/text":
			w.Header().Set("Content-Type", "text/plain")
		case "/v1/none":
			w.Header()["Content-Type"] = nil
		case "/v1/latin1":
			w.Header().Set("Content-Type", "application/json; charset=latin1")
		default:
			w.Header().Set("Content-Type", "application/json")
		}
		if r.URL.Path == "/v1/error" {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()

	for _, tt := range []struct {
		name   string
		check  func(e *httpexpect.Expect)
		want   report.Failure
		absent bool
	}{
		{"status", func(e *httpexpect.Expect) { e.GET("/error").Expect().Status(http.StatusOK) },
			report.Failure{Message: "want status 200 OK, got 401 Unauthorized", Expected: "200 OK", Actual: "401 Unauthorized", Location: "status"}, false},
		{"status list", func(e *httpexpect.Expect) {
			e.GET("/error").Expect().StatusList(http.StatusBadRequest, http.StatusNotFound)
		},
			report.Failure{Message: "want status 400 Bad Request or 404 Not Found, got 401 Unauthorized", Expected: "400 Bad Request or 404 Not Found",
				Actual: "401 Unauthorized", Location: "status"}, false},
		{"media type", func(e *httpexpect.Expect) { e.GET("/text").Expect().JSON() },
			report.Failure{Message: "want Content-Type application/json, got text/plain", Expected: "application/json", Actual: "text/plain", Location: "header Content-Type"}, false},
		{"no media type", func(e *httpexpect.Expect) { e.GET("/none").Expect().JSON() },
			report.Failure{Message: "want Content-Type application/json, got none", Expected: "application/json", Actual: "none", Location: "header Content-Type"}, false},
		{"charset", func(e *httpexpect.Expect) { e.GET("/latin1").Expect().JSON() },
			report.Failure{Message: "want the Content-Type charset utf-8, got latin1", Expected: "charset utf-8", Actual: "charset latin1", Location: "header Content-Type"}, false},
		{"not JSON", func(e *httpexpect.Expect) { e.GET("/bom").Expect().JSON() },
			report.Failure{Message: "the body is not valid JSON: invalid character 'ï' looking for beginning of value", Expected: "a JSON document", Actual: "\ufeff[1]", Location: "body"}, false},
		{"at most", func(e *httpexpect.Expect) { e.GET("/pets").Expect().JSON().Array().Length().Le(1) },
			report.Failure{Message: "the listing holds 2 animals, want at most 1 animal", Expected: "at most 1 animal", Actual: "2 animals", Location: "body"}, false},
		{"exactly", func(e *httpexpect.Expect) { e.GET("/pets").Expect().JSON().Array().Length().IsEqual(20) },
			report.Failure{Message: "the listing holds 2 animals, want exactly 20 animals", Expected: "exactly 20 animals", Actual: "2 animals", Location: "body"}, false},
		{"range", func(e *httpexpect.Expect) { e.GET("/pets").Expect().JSON().Array().Length().InRange(5, 10) },
			report.Failure{Message: "the listing holds 2 animals, want between 5 and 10 animals", Expected: "between 5 and 10 animals", Actual: "2 animals", Location: "body"}, false},
		{"empty listing", func(e *httpexpect.Expect) { e.GET("/empty/pets").Expect().JSON().Array().NotEmpty() },
			report.Failure{Message: "the listing is empty, want at least 1 animal", Expected: "at least 1 animal", Actual: "none", Location: "body"}, false},
		{"not an array", func(e *httpexpect.Expect) { e.GET("/wrapped").Expect().JSON().Array() },
			report.Failure{Message: `the body is not a JSON array: it is an object {"count":2,"items":[]}`, Expected: "a JSON array",
				Actual: `an object {"count":2,"items":[]}`, Location: "body"}, false},
		{"missing field", func(e *httpexpect.Expect) { e.GET("/error").Expect().JSON().Object().Value("code") },
			report.Failure{Message: `the body has no field "code"`, Expected: `a field "code"`, Actual: `{"message":"no","status":"401"}`, Location: "body/code"}, false},
		{"field type", func(e *httpexpect.Expect) {
			e.GET("/error").Expect().JSON().Object().Value("status").Alias("body/status").Number()
		},
			report.Failure{Message: `the field "status" is not a number: it is the string "401"`, Expected: "a number", Actual: `the string "401"`, Location: "body/status"}, false},
		{"field value", func(e *httpexpect.Expect) {
			e.GET("/error").Expect().JSON().Object().Value("message").Alias("body/message").String().IsEqual("yes")
		},
			report.Failure{Message: `the field "message" is "no", want "yes"`, Expected: `"yes"`, Actual: `"no"`, Location: "body/message"}, false},
		{"empty field", func(e *httpexpect.Expect) {
			e.GET("/wrapped").Expect().JSON().Object().Value("items").Alias("body/items").Array().NotEmpty()
		},
			report.Failure{Message: `the field "items" is empty`, Expected: "not empty", Actual: "[]", Location: "body/items"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := exchange.NewRecorder(func(s string) string { return s })
			e := httpexpect.WithConfig(httpexpect.Config{BaseURL: srv.URL + "/v1", AssertionHandler: assertionHandler{rec: rec}})
			tt.check(e)
			failures, _ := rec.Results()
			require.Len(t, failures, 1)
			got := failures[0]
			got.Exchange = 0
			assert.Equal(t, tt.want, got)
			for _, internal := range []string{"()", "expected:", "value is", "assertion"} {
				assert.NotContains(t, got.Message, internal)
			}
		})
	}
}

// What the spec validation of a response already said about a place (its Content-Type, a
// field) is not said again by an assertion on the same place; the status is said by both,
// since "status 410 is not documented" and "want status 200 OK" are two statements.
func TestAssertionsDoNotRepeatTheValidation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusGone)
	}))
	defer srv.Close()
	rec := exchange.NewRecorder(func(s string) string { return s })
	rec.Fail(report.Failure{Message: `response breaks the spec: media type "text/plain" is not documented`, Location: "header Content-Type"})
	rec.Fail(report.Failure{Message: "response breaks the spec: status 410 is not documented", Location: "status"})
	e := httpexpect.WithConfig(httpexpect.Config{BaseURL: srv.URL, AssertionHandler: assertionHandler{rec: rec}})
	e.GET("/").Expect().JSON()
	e.GET("/").Expect().Status(http.StatusOK)
	failures, _ := rec.Results()
	var said []string
	for _, f := range failures {
		said = append(said, f.Message)
	}
	assert.Equal(t, []string{`response breaks the spec: media type "text/plain" is not documented`,
		"response breaks the spec: status 410 is not documented", "want status 200 OK, got 410 Gone"}, said)
	assert.False(t, strings.Contains(strings.Join(said, "\n"), "Content-Type application/json"))
}

package rules

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gavv/httpexpect/v2"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

func getRules(f *facts) []Rule {
	op := f.ByID[spec.OpGet]
	rules := []Rule{
		{
			ID: spec.OpGet + "/created-returned", Section: "4.3; 4.2", Severity: Must, Op: spec.OpGet,
			Title:   "an animal just created is returned by GET /pets/{petId} as created (its documented fields)",
			Creates: true, Expects: http.StatusOK,
			Run: func(c *Check) {
				pet := createAndCompare(c, f, f.createBody(c.Fixture))
				if pet == nil || c.Failed() {
					return
				}
				id, _ := judge.IDOf(pet)
				if got := getPet(c, f, id, true); got != nil {
					compareFields(c, f.PetFields, pet, got, "GET /pets/"+id)
				}
			},
		},
		{
			ID: spec.OpGet + "/listed-returned", Section: "4.3", Severity: Must, Op: spec.OpGet,
			Title: "an animal of the listing is returned by GET /pets/{petId} as listed (its documented fields)",
			Needs: Needs{Animals: 1, Listed: true}, Expects: http.StatusOK,
			Run: func(c *Check) {
				c.needPets(1)
				pet := c.Fixture.Pets[0]
				id, _ := judge.IDOf(pet)
				if got := getPet(c, f, id, false); got != nil {
					compareFields(c, f.PetFields, pet, got, "GET /pets/"+id)
				}
			},
		},
		{
			ID: spec.OpGet + "/unknown-id", Section: "4.3; 7", Severity: Must, Op: spec.OpGet,
			Title: "an unknown petId gets 404 with an Error body", Expects: http.StatusNotFound,
			Run: func(c *Check) {
				expectError(c.Auth.GET(f.ByID[spec.OpGet].Path, unknownPetID).Expect(), http.StatusNotFound)
			},
		},
		{
			ID: spec.OpGet + "/non-integer-id", Section: "4.3; 7", Severity: Must, Op: spec.OpGet,
			Title: "a petId that is not an integer: never a 5xx; a 4xx carries an Error body", Open: true,
			Run: func(c *Check) {
				expectOpenAnswer(c, c.Auth.GET(cases.FillPath(f.ByID[spec.OpGet].Path, "abc")).Expect(), 0)
			},
		},
	}
	if op.Deprecated {
		// READINGS.md: the document states the deprecation and the date but names no
		// header, so sending none is ADVISORY; a header that is sent and malformed, or that
		// names another date, contradicts 9.3 and is SHOULD. Two rules, so that each level
		// is the rule's own.
		deprecated := func(c *Check) http.Header {
			c.needPets(1)
			id, _ := judge.IDOf(c.Fixture.Pets[0])
			resp := c.Auth.GET(f.petPath(id)).Expect().Status(http.StatusOK)
			if code(resp) != http.StatusOK {
				return nil
			}
			return resp.Raw().Header
		}
		rules = append(rules, Rule{
			ID: spec.OpGet + "/deprecation-headers", Section: "4.3; 9.3; RFC 9745; RFC 8594", Uses: usesRemoval, Severity: Should, Op: spec.OpGet,
			Title: "a Deprecation or Sunset header that is sent is well formed and agrees with the removal date",
			Needs: Needs{Animals: 1},
			Run: func(c *Check) {
				if h := deprecated(c); h != nil {
					checkDeprecation(c, op, h, false)
				}
			},
		}, Rule{
			ID: spec.OpGet + "/deprecation-headers-sent", Section: "4.3; 9.3; RFC 9745; RFC 8594", Uses: usesRemoval, Severity: Advisory, Op: spec.OpGet,
			Title: "responses announce the deprecation with Deprecation and Sunset headers (the document names none)",
			Needs: Needs{Animals: 1},
			Run: func(c *Check) {
				if h := deprecated(c); h != nil {
					checkDeprecation(c, op, h, true)
				}
			},
		})
	}
	if !op.Sunset.IsZero() {
		rules = append(rules, Rule{
			ID: spec.OpGet + "/gone-after-sunset", Section: "9.3", Uses: usesRemoval, Severity: Must, Op: spec.OpGet, Gone: true, Open: true,
			Title: fmt.Sprintf("on and after its removal date (%s) the operation is gone: a 4xx other than 401 with an Error body (404, 405, 410...), or a redirect",
				op.Sunset.Format(time.DateOnly)),
			Run: func(c *Check) {
				id := "1"
				if len(c.Fixture.Pets) > 0 {
					id, _ = judge.IDOf(c.Fixture.Pets[0])
				}
				expectGone(c, c.Auth.GET(f.petPath(id)).Expect())
			},
		})
	}
	return rules
}

// expectGone judges an answer from a removed operation. The document says only that it is
// removed: any 4xx but 401 (the key is valid) with an Error body, or a 3xx to the
// replacement, passes; a 2xx (still there) or a 5xx fails.
func expectGone(c *Check, resp *httpexpect.Response) {
	switch got := code(resp); {
	case got == 0:
	case got/100 == 3:
	case got/100 == 4 && got != http.StatusUnauthorized:
		expectError(resp, got)
	default:
		c.Expectf("a 4xx other than 401 with an Error body, or a 3xx", report.StatusText(got), "the removed operation answered %s", report.StatusText(got))
	}
}

// checkDeprecation compares the Deprecation (RFC 9745: "@" and a Unix time) and Sunset
// (RFC 8594: an HTTP date) headers with the spec's x-deprecated-since and x-sunset: with
// absent, it fails a header that is not sent; without, one that is sent and malformed or
// disagrees with the spec's dates.
func checkDeprecation(c *Check, op spec.Operation, h http.Header, absent bool) {
	// The interface document says the operation is deprecated but not since when, so any
	// RFC 9745 date (@<unix seconds>) passes unless it falls after the removal date;
	// x-deprecated-since is the reference server's own choice and binds no one else.
	dep := strings.TrimSpace(h.Get("Deprecation"))
	since, err := parseDeprecation(dep)
	switch {
	case dep == "":
		if absent {
			c.Expectf("a Deprecation header", "none", "the deprecated operation sends no Deprecation header")
		}
	case absent:
	case err != nil:
		c.Expectf("Deprecation: @<unix seconds> (RFC 9745)", "Deprecation: "+dep, "the Deprecation header is not an RFC 9745 date")
	case !op.Sunset.IsZero() && since.After(op.Sunset):
		c.Expectf("a date no later than "+op.Sunset.Format(time.DateOnly), since.UTC().Format(time.DateOnly),
			"the Deprecation date falls after the removal date")
	}
	if op.Sunset.IsZero() {
		return
	}
	want := op.Sunset.UTC().Format(http.TimeFormat)
	got := h.Get("Sunset")
	if got == "" {
		if absent {
			c.Expectf("Sunset: "+want, "none", "the deprecated operation sends no Sunset header")
		}
		return
	}
	if absent {
		return
	}
	sunset, err := http.ParseTime(got)
	if err != nil || sunset.UTC().Format(time.DateOnly) != op.Sunset.Format(time.DateOnly) {
		c.Expectf("Sunset: "+want, "Sunset: "+got, "the Sunset header disagrees with x-sunset %s", op.Sunset.Format(time.DateOnly))
	}
}

// parseDeprecation reads an RFC 9745 Deprecation value: a structured-field date, "@" followed
// by an integer number of seconds since the epoch.
func parseDeprecation(v string) (time.Time, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(v, "@"), 10, 64)
	if err != nil || !strings.HasPrefix(v, "@") {
		return time.Time{}, fmt.Errorf("not an RFC 9745 date: %q", v)
	}
	return time.Unix(n, 0), nil
}

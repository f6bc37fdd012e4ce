package rules

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gavv/httpexpect/v2"
	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/spec"

	"net/http"
	"strconv"
)

// limitProbe is a value of limit that the document leaves open (out of range, not an
// integer), derived from the spec's bounds.
type limitProbe struct {
	slug, value, what string
	uses              []string // every probe is judged with the maximum; some are made of the minimum
}

func limitProbes(f *facts) []limitProbe {
	lo, hi := f.Limit.Min, f.Limit.Max
	return []limitProbe{
		{"limit-below-min", strconv.FormatInt(lo-1, 10), "one below the minimum", usesBounds},
		{"limit-negative", strconv.FormatInt(min(-1, lo-2), 10), "negative", usesBounds},
		{"limit-above-max", strconv.FormatInt(hi+1, 10), "one above the maximum", usesMax},
		{"limit-far-above-max", strconv.FormatInt(hi*10, 10), "ten times the maximum", usesMax},
		{"limit-not-integer", "abc", "not a number", usesMax},
		{"limit-fraction", strconv.FormatInt(lo, 10) + ".5", "a fraction", usesBounds},
	}
}

// unknownStatus is a status filter value outside the enumeration.
const unknownStatus = cases.NamePrefix + "unknown-status"

func listRules(f *facts) []Rule {
	list := f.ByID[spec.OpList].Path
	def, lo, hi := f.Limit.Default, f.Limit.Min, f.Limit.Max
	more := Needs{Animals: int(def) + 1}
	rules := []Rule{
		// No Needs: a listing that is not an array makes preparation fail, and this rule,
		// the one that names the fault, must still look.
		{ID: spec.OpList + "/bare-array", Section: "4.1 rule 3; 2", Severity: Must, Op: spec.OpList, Expects: http.StatusOK,
			Title: "GET /pets returns 200 and a bare JSON array of Pets with distinct ids",
			Run: func(c *Check) {
				arr := c.Auth.GET(list).Expect().Status(http.StatusOK).JSON().Array()
				if len(c.Fixture.Pets) > 0 {
					arr.NotEmpty()
				}
				expectList(c, c.Auth.GET(list).Expect())
			}},
		// The representation of nothing: READINGS.md makes an empty listing [] (MUST). The
		// run's own listings come after it created animals, so it judges the one preparation
		// made that held none: on a store that starts empty (a fresh deployment, the zoo, the
		// reference), or under a status no animal has.
		{ID: spec.OpList + "/empty-array", Section: "2 (Pets); 4.1", Severity: Must, Op: spec.OpList, Expects: http.StatusOK,
			Title: "a listing that holds no animal is the empty array [], not null or another value",
			Run: func(c *Check) {
				e := c.Fixture.Empty
				if e == nil {
					c.Skipf("every listing the run made held animals: it saw no empty one to judge (a store that starts empty shows one)")
				}
				var v []any
				if trimmed := bytes.TrimSpace(e.Body); len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &v) != nil {
					got := fmt.Sprintf("%.200s", e.Body)
					c.Expectf("[]", got, "%s held no animal and answered %s instead of an empty JSON array", e.Request, got)
				}
			}},
		{ID: spec.OpList + "/default-limit", Section: "4.1 rule 1; 8", Uses: usesDefault, Severity: Must, Op: spec.OpList, Expects: http.StatusOK, Needs: more,
			Title: fmt.Sprintf("without limit, at most %d animals are returned (with more present)", def),
			Run:   func(c *Check) { listing(c, c.Auth.GET(list), def, "") }},
		{ID: spec.OpList + "/default-limit-exact", Section: "4.1 rule 1; 8", Uses: usesDefault, Severity: Should, Op: spec.OpList, Expects: http.StatusOK, Needs: more,
			Title: fmt.Sprintf("without limit, exactly %d animals are returned when more are present", def),
			Run: func(c *Check) {
				if !c.Prepared {
					c.Skipf("preparation failed: the store may hold fewer than %d animals", def+1)
				}
				c.Auth.GET(list).Expect().Status(http.StatusOK).JSON().Array().Length().IsEqual(def)
			}},
		{ID: spec.OpList + "/limit-min", Section: "4.1; 8", Uses: usesMin, Severity: Must, Op: spec.OpList, Expects: http.StatusOK, Needs: more,
			Title: fmt.Sprintf("limit=%d is accepted and returns exactly %s", lo, judge.Animals(lo)),
			Run:   func(c *Check) { listing(c, c.Auth.GET(list).WithQuery("limit", lo), lo, "") }},
		// limit is a maximum (4.1): a service may page below it, so MUST asks only for at
		// most the limit and not nothing; the full page is a SHOULD.
		{ID: spec.OpList + "/limit-max", Section: "4.1; 8", Uses: usesMax, Severity: Must, Op: spec.OpList, Expects: http.StatusOK, Needs: Needs{Animals: 1, Listed: true},
			Title: fmt.Sprintf("limit=%d is accepted and returns at most %d animals, not none when animals exist", hi, hi),
			Run:   func(c *Check) { listing(c, c.Auth.GET(list).WithQuery("limit", hi), hi, "") }},
		// Needs the maximum itself: preparation counts what it creates, so a service that
		// caps listings below the maximum is found short. Only strict runs create that many.
		{ID: spec.OpList + "/limit-max-full", Section: "4.1; 8", Uses: usesMax, Severity: Should, Op: spec.OpList, Expects: http.StatusOK, Needs: Needs{Animals: int(hi)},
			Title: fmt.Sprintf("limit=%d returns every animal present up to %d (%d when at least %d exist)", hi, hi, hi, hi),
			Run: func(c *Check) {
				present := int64(len(c.Fixture.Pets))
				c.Auth.GET(list).WithQuery("limit", hi).Expect().
					Status(http.StatusOK).JSON().Array().Length().InRange(min(present, hi), hi)
			}},
	}
	for _, p := range limitProbes(f) {
		rules = append(rules, Rule{
			ID: spec.OpList + "/" + p.slug, Section: "4.1; 7; 8", Uses: p.uses, Severity: Must, Op: spec.OpList, Open: true,
			Title: fmt.Sprintf("limit=%s (%s): never a 5xx; a 4xx carries an Error body, a 2xx at most %d animals", p.value, p.what, hi),
			Run: func(c *Check) {
				expectOpenAnswer(c, c.Auth.GET(list).WithQueryString("limit="+p.value).Expect(), hi)
			},
		})
	}
	for _, s := range f.Statuses {
		rules = append(rules, Rule{ID: spec.OpList + "/status-" + s, Section: "4.1 rules 1-2", Uses: append(statusUses(s), usesDefault...), Severity: Must, Op: spec.OpList, Expects: http.StatusOK, Needs: Needs{PerStatus: 1},
			Title: fmt.Sprintf("status=%s returns only animals with status %s, at most %d without limit", s, s, def),
			Run:   func(c *Check) { listing(c, c.Auth.GET(list).WithQuery("status", s), def, s) }})
	}
	first := f.Statuses[0]
	rules = append(rules, Rule{ID: spec.OpList + "/status-default-limit", Section: "4.1 rules 1-2; 8", Uses: append(statusUses(first), usesDefault...), Severity: Must, Op: spec.OpList, Expects: http.StatusOK, Needs: Needs{OfStatus: int(def) + 1},
		Title: fmt.Sprintf("status=%s without limit returns at most %d animals (with more of that status present)", first, def),
		Run:   func(c *Check) { listing(c, c.Auth.GET(list).WithQuery("status", first), def, first) }})
	rules = append(rules,
		Rule{ID: spec.OpList + "/status-and-limit", Section: "4.1 rules 1-2; 8", Uses: append(statusUses(f.Statuses...), usesMin...), Severity: Must, Op: spec.OpList, Expects: http.StatusOK, Needs: Needs{PerStatus: int(lo) + 1},
			Title: fmt.Sprintf("status and limit=%d together return at most %d and not no animal of that status, for every status", lo, lo),
			Run: func(c *Check) {
				for _, s := range f.Statuses {
					listing(c, c.Auth.GET(list).WithQuery("status", s).WithQuery("limit", lo), lo, s)
				}
			}},
		Rule{
			ID: spec.OpList + "/status-unknown", Section: "4.1; 7", Uses: usesMax, Severity: Must, Op: spec.OpList, Open: true,
			Title: fmt.Sprintf("an unknown status value: never a 5xx; a 4xx carries an Error body, a 2xx at most %d animals", hi),
			Run: func(c *Check) {
				expectOpenAnswer(c, c.Auth.GET(list).WithQuery("status", unknownStatus).Expect(), hi)
			},
		})
	return rules
}

// listing sends req and checks what a listing the fixture filled must hold: 200, an array
// of Pets with distinct ids, what the shared judge asks of a listing (at most max, none of
// another status than status unless ""), and not none.
func listing(c *Check, req *httpexpect.Request, max int64, status string) {
	resp := req.Expect()
	list, _ := expectList(c, resp)
	if list == nil {
		return
	}
	asked := judge.Listing{Limit: max}
	if status != "" {
		asked.Statuses = []string{status}
	}
	c.fail(asked.Judge(list))
	if len(list) == 0 && c.Prepared {
		resp.JSON().Array().NotEmpty()
	}
}

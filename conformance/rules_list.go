package conformance

import (
	"fmt"
	"net/http"
	"strconv"
)

// limitProbe is a value of limit that the document leaves open (out of range, not an
// integer), derived from the spec's bounds.
type limitProbe struct{ slug, value, what string }

func limitProbes(f *facts) []limitProbe {
	lo, hi := f.limit.Min, f.limit.Max
	return []limitProbe{
		{"limit-below-min", strconv.FormatInt(lo-1, 10), "one below the minimum"},
		{"limit-negative", strconv.FormatInt(min(-1, lo-2), 10), "negative"},
		{"limit-above-max", strconv.FormatInt(hi+1, 10), "one above the maximum"},
		{"limit-far-above-max", strconv.FormatInt(hi*10, 10), "ten times the maximum"},
		{"limit-not-integer", "abc", "not a number"},
		{"limit-fraction", strconv.FormatInt(lo, 10) + ".5", "a fraction"},
	}
}

// unknownStatus is a status filter value outside the enumeration.
const unknownStatus = NamePrefix + "unknown-status"

func listRules(f *facts) []Rule {
	def, lo, hi := f.limit.Default, f.limit.Min, f.limit.Max
	rule := func(slug, section string, sev Severity, title string, needs Needs, check func(*Check)) Rule {
		return Rule{ID: opList + "/" + slug, Section: section, Severity: sev, Title: title, Op: opList, Needs: needs,
			Expects: http.StatusOK, Check: check}
	}
	more := Needs{Animals: int(def) + 1}
	rules := []Rule{
		// No Needs: a listing that is not an array makes preparation fail, and this rule,
		// the one that names the fault, must still look.
		rule("bare-array", "4.1 rule 3", Must, "GET /pets returns 200 and a bare JSON array of Pets", Needs{},
			func(c *Check) {
				arr := c.Auth.GET("/pets").Expect().Status(http.StatusOK).JSON().Array()
				if len(c.Fixture.Pets) > 0 {
					arr.NotEmpty()
				}
			}),
		rule("default-limit", "4.1 rule 1; 8", Must,
			fmt.Sprintf("without limit, at most %d animals are returned (with more present)", def), more,
			func(c *Check) {
				c.Auth.GET("/pets").Expect().Status(http.StatusOK).JSON().Array().Length().Le(def)
			}),
		rule("default-limit-exact", "4.1 rule 1; 8", Should,
			fmt.Sprintf("without limit, exactly %d animals are returned when more are present", def), more,
			func(c *Check) {
				c.Auth.GET("/pets").Expect().Status(http.StatusOK).JSON().Array().Length().IsEqual(def)
			}),
		rule("limit-min", "4.1; 8", Must, fmt.Sprintf("limit=%d is accepted and returns exactly %s", lo, animals(lo)), more,
			func(c *Check) {
				c.Auth.GET("/pets").WithQuery("limit", lo).Expect().
					Status(http.StatusOK).JSON().Array().Length().IsEqual(lo)
			}),
		// Needs the maximum itself: preparation counts what it creates, so a server that
		// quietly caps listings below the maximum is found short. (No more than the maximum:
		// without pagination a listing cannot show that more exist, and every run would
		// create one more animal.)
		rule("limit-max", "4.1; 8", Must,
			fmt.Sprintf("limit=%d is accepted and returns every animal present up to %d", hi, hi), Needs{Animals: int(hi)},
			func(c *Check) {
				present := int64(len(c.Fixture.Pets))
				c.Auth.GET("/pets").WithQuery("limit", hi).Expect().
					Status(http.StatusOK).JSON().Array().Length().InRange(min(present, hi), hi)
			}),
	}
	for _, p := range limitProbes(f) {
		rules = append(rules, Rule{
			ID: opList + "/" + p.slug, Section: "4.1; 7; 8", Severity: Must, Op: opList, Open: true,
			Title: fmt.Sprintf("limit=%s (%s): never a 5xx; a 4xx carries an Error body, a 2xx at most %d animals", p.value, p.what, hi),
			Check: func(c *Check) {
				expectOpenAnswer(c, c.Auth.GET("/pets").WithQueryString("limit="+p.value).Expect(), hi)
			},
		})
	}
	for _, s := range f.statuses {
		rules = append(rules, rule("status-"+s, "4.1 rule 2", Must,
			fmt.Sprintf("status=%s returns only animals with status %s", s, s), Needs{PerStatus: 1},
			func(c *Check) {
				arr := c.Auth.GET("/pets").WithQuery("status", s).Expect().Status(http.StatusOK).JSON().Array()
				arr.NotEmpty()
				for _, v := range arr.Iter() {
					v.Object().Value("status").IsEqual(s)
				}
			}))
	}
	rules = append(rules,
		rule("status-and-limit", "4.1 rules 1-2; 8", Must,
			fmt.Sprintf("status and limit=%d together return exactly %d animal(s) of that status, for every status", lo, lo),
			Needs{PerStatus: int(lo) + 1},
			func(c *Check) {
				for _, s := range f.statuses {
					arr := c.Auth.GET("/pets").WithQuery("status", s).WithQuery("limit", lo).Expect().
						Status(http.StatusOK).JSON().Array()
					arr.Length().IsEqual(lo)
					for _, v := range arr.Iter() {
						v.Object().Value("status").IsEqual(s)
					}
				}
			}),
		Rule{
			ID: opList + "/status-unknown", Section: "4.1; 7", Severity: Must, Op: opList, Open: true,
			Title: fmt.Sprintf("an unknown status value: never a 5xx; a 4xx carries an Error body, a 2xx at most %d animals", hi),
			Check: func(c *Check) {
				expectOpenAnswer(c, c.Auth.GET("/pets").WithQuery("status", unknownStatus).Expect(), hi)
			},
		})
	return rules
}

// animals says "1 animal" or "n animals".
func animals(n int64) string {
	if n == 1 {
		return "1 animal"
	}
	return fmt.Sprintf("%d animals", n)
}

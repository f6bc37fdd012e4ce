package rules

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/spec"
)

func versioningRules(f *facts) []Rule {
	segment := "/" + f.Version
	return []Rule{
		{
			ID: "versioning/base-url", Section: "9.2; 1", Severity: Must,
			Title: fmt.Sprintf("the base URL ends with the version segment %s, and the interface answers there", segment),
			Run: func(c *Check) {
				u, err := url.Parse(c.BaseURL)
				if err != nil || !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), segment) {
					c.Expectf("a path ending in "+segment, c.BaseURL, "the base URL does not end with %s", segment)
					return
				}
				c.Auth.GET(f.ByID[spec.OpList].Path).Expect().Status(http.StatusOK)
			},
		},
		{
			ID: "versioning/" + spec.OpGet + "-deprecated", Section: "9.3; 4.3", Uses: append(usesRemoval, document.FactReplacement), Severity: Must,
			Title: "the spec marks getPet deprecated, with its removal date and replacement",
			Run: func(c *Check) {
				op := f.ByID[spec.OpGet]
				if !op.Deprecated {
					c.Expectf("deprecated: true", "deprecated: false", "the spec does not mark %s deprecated", op.ID)
				}
				if op.Sunset.IsZero() {
					c.Expectf(spec.ExtSunset+": YYYY-MM-DD", "none", "the spec gives %s no removal date", op.ID)
				}
				if _, ok := f.ByID[op.ReplacedBy]; !ok {
					c.Expectf(spec.ExtReplacedBy+": an operationId", op.ReplacedBy, "the spec names no existing replacement for %s", op.ID)
				}
			},
		},
		{
			ID: "versioning/stability-values", Section: "9.4", Severity: Must,
			Title: fmt.Sprintf("a stability marking in the spec is one of %s", strings.Join(spec.StabilityValues, ", ")),
			Run: func(c *Check) {
				for _, op := range f.Ops {
					if op.Stability != "" && !slices.Contains(spec.StabilityValues, op.Stability) {
						c.Expectf(strings.Join(spec.StabilityValues, " or "), op.Stability,
							"%s carries %s: %q", op.ID, spec.ExtStability, op.Stability)
					}
				}
			},
		},
	}
}

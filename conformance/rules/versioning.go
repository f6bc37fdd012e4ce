package rules

import (
	"fmt"
	"net/http"

	"github.com/petstore/petstore/spec"
)

// versioningRules are the rules of section 9 that judge the server. That the base URL ends
// with the version segment the session checks before any rule runs (exchange refuses any
// other target); what the spec says of deprecation and stability `conformance lint` judges
// (deprecated-sunset, deprecated-replacement, stability-value and the document's removal
// facts), since every server would get the same verdict on them.
func versioningRules(f *facts) []Rule {
	segment := "/" + f.Version
	return []Rule{
		{
			ID: "versioning/base-url", Section: "9.2; 1", Severity: Must,
			Title: fmt.Sprintf("the base URL ends with the version segment %s, and the interface answers there", segment),
			Run: func(c *Check) {
				c.Auth.GET(f.ByID[spec.OpList].Path).Expect().Status(http.StatusOK)
			},
		},
	}
}

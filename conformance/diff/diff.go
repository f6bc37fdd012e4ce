// Package diff compares two versions of the OpenAPI description and classifies each change
// for clients as breaking or not. The comparison is oasdiff's (github.com/oasdiff/oasdiff, built
// on kin-openapi); this package maps its checks onto the kinds the spec authors' workflow
// names (issue 8) and adds what oasdiff cannot know: our removal date, x-sunset, brought
// forward is breaking whatever the grace period.
package diff

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	oasdiff "github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

// Change is one difference between the base and the head description.
type Change struct {
	Kind     string `json:"kind"`     // e.g. "operation-removed", see Kinds
	Breaking bool   `json:"breaking"` // whether existing clients can break
	// BreaksProviders says whether a deployment conforming to the base fails the head's
	// catalogue; Providers says why, or why not.
	BreaksProviders bool   `json:"breaksProviders"`
	Providers       string `json:"providers"`
	// Rules and Families are the rules and the generated case families of the change's
	// operation that differ between the base's catalogue and the head's: "+id" added, "-id"
	// removed, "~id" changed (see Effects). They are the operation's, the effect of all its
	// changes together: every change to one operation holds the same lists (the text report
	// writes them once).
	Rules       []string `json:"rules,omitempty"`
	Families    []string `json:"families,omitempty"`
	Method      string   `json:"method,omitempty"`      // upper case; "" for a change outside operations
	Path        string   `json:"path,omitempty"`        // as in the description, e.g. "/pets/{petId}"
	OperationID string   `json:"operationId,omitempty"` // of the head operation, or the base one if removed
	Message     string   `json:"message"`               // one line
	Check       string   `json:"check"`                 // the oasdiff check ID, or "x-sunset" for ours
}

// Kinds this package names. A change oasdiff reports that fits none keeps oasdiff's check ID
// as its kind, so nothing is hidden.
const (
	OperationRemoved     = "operation-removed"
	OperationAdded       = "operation-added"
	ResponseRemoved      = "response-removed"
	RequiredFieldAdded   = "required-request-field-added"
	OptionalFieldAdded   = "optional-request-field-added"
	EnumNarrowed         = "enum-narrowed"
	EnumWidened          = "enum-widened"
	BoundNarrowed        = "bound-narrowed"
	BoundWidened         = "bound-widened"
	TypeChanged          = "type-or-format-changed"
	ResponseFieldRemoved = "response-field-removed"
	ResponseFieldAdded   = "response-field-required"
	RequirementRelaxed   = "request-field-became-optional"
	DefaultChanged       = "default-changed"
	DeprecationAdded     = "deprecation-added"
	SunsetBroughtForward = "sunset-brought-forward"
	SunsetPostponed      = "sunset-postponed"
	SunsetRemoved        = "sunset-removed"
)

// kinds maps oasdiff check IDs onto our kinds: the first entry whose pattern the ID contains
// wins, so specific patterns come before general ones.
var kinds = []struct{ pattern, kind string }{
	{"api-removed", OperationRemoved},
	{"api-path-removed", OperationRemoved},
	{"endpoint-added", OperationAdded},
	{"status-removed", ResponseRemoved},
	{"new-required-request-", RequiredFieldAdded},
	{"request-body-added-required", RequiredFieldAdded},
	{"request-property-became-required", RequiredFieldAdded},
	{"request-parameter-became-required", RequiredFieldAdded},
	{"became-optional", RequirementRelaxed},
	{"default-value-", DefaultChanged},
	{"response-required-property-added", ResponseFieldAdded},
	{"response-property-became-required", ResponseFieldAdded},
	{"new-optional-request-", OptionalFieldAdded},
	{"enum-value-removed", EnumNarrowed},
	{"enum-value-added", EnumWidened},
	{"type-changed", TypeChanged},
	{"type-specialized", TypeChanged},
	{"type-generalized", TypeChanged},
	{"list-of-types", TypeChanged},
	{"response-optional-property-removed", ResponseFieldRemoved},
	{"response-required-property-removed", ResponseFieldRemoved},
	{"endpoint-deprecated", DeprecationAdded},
	{"sunset-deleted", SunsetRemoved},
	{"-max-decreased", BoundNarrowed},
	{"-min-increased", BoundNarrowed},
	{"-max-set", BoundNarrowed},
	{"-min-set", BoundNarrowed},
	{"-max-increased", BoundWidened},
	{"-min-decreased", BoundWidened},
	{"-max-unset", BoundWidened},
	{"-min-unset", BoundWidened},
}

func kindOf(check string) string {
	for _, k := range kinds {
		if strings.Contains(check, k.pattern) {
			return k.kind
		}
	}
	return check
}

// levels overrides oasdiff's defaults where issue 8 is stricter: a removed response (error
// statuses included) and a removed optional response field break clients that read them.
// The versioning policy is off: the version a client depends on is the /vN path segment,
// which lint checks, not info.version. oasdiff's own sunset-shortening check is off because
// sunsets() reports every date brought forward, not only those inside a grace period.
var levels = map[string]checker.Level{
	"response-non-success-status-removed":  checker.ERR,
	"response-optional-property-removed":   checker.ERR,
	checker.APIVersionNotBumpedId:          checker.NONE,
	checker.APIVersionDecreasedId:          checker.NONE,
	checker.APIMajorVersionNotBumpedId:     checker.NONE,
	checker.APISunsetDateChangedTooSmallId: checker.NONE,
}

// Load parses and validates one description for comparison. Examples are not validated:
// they do not change what a client may send or receive, and lint reports them.
func Load(data []byte) (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("invalid: %w", err)
	}
	return doc, nil
}

// Compare lists the changes from base to head, breaking ones first.
func Compare(base, head *openapi3.T) ([]Change, error) {
	d, sources, err := oasdiff.GetPathsDiff(oasdiff.NewConfig(),
		[]*load.SpecInfo{{Url: "base", Spec: base}}, []*load.SpecInfo{{Url: "head", Spec: head}})
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	config := checker.NewConfig(checker.GetAllChecks(), checker.WithSeverityLevels(levels))
	found := checker.CheckBackwardCompatibilityUntilLevel(config, d, sources, checker.INFO)
	localize := checker.NewDefaultLocalizer()
	changes := make([]Change, 0, len(found)+1)
	for _, c := range found {
		changes = append(changes, Change{
			Kind:        kindOf(c.GetId()),
			Breaking:    c.GetLevel() >= checker.WARN,
			Method:      c.GetOperation(),
			Path:        c.GetPath(),
			OperationID: c.GetOperationId(),
			Message:     integers(c.GetUncolorizedText(localize)),
			Check:       c.GetId(),
		})
	}
	changes = append(changes, sunsets(base, head, time.Now().UTC())...)
	for i := range changes {
		forProviders(&changes[i])
	}
	attribute(base, head, changes)
	sort.SliceStable(changes, func(i, j int) bool {
		a, b := changes[i], changes[j]
		if a.Breaking != b.Breaking {
			return a.Breaking
		}
		if a.BreaksProviders != b.BreaksProviders {
			return a.BreaksProviders
		}
		for _, p := range [][2]string{{a.Path, b.Path}, {a.Method, b.Method}, {a.Kind, b.Kind}} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return a.Message < b.Message
	})
	return changes, nil
}

// Breaking counts the changes that break clients.
func Breaking(changes []Change) int { return count(changes, func(c Change) bool { return c.Breaking }) }

// BreakingProviders counts the changes that break deployments conforming to the base.
func BreakingProviders(changes []Change) int {
	return count(changes, func(c Change) bool { return c.BreaksProviders })
}

// Breaks counts the changes that break clients or providers.
func Breaks(changes []Change) int { return count(changes, Change.Breaks) }

func count(changes []Change, f func(Change) bool) int {
	n := 0
	for _, c := range changes {
		if f(c) {
			n++
		}
	}
	return n
}

// Breaks reports whether a change breaks clients or providers.
func (c Change) Breaks() bool { return c.Breaking || c.BreaksProviders }

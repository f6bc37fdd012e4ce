package double

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/petstore/petstore/internal/clientrules"
	"github.com/petstore/petstore/internal/level"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The client rules: what the interface document asks of a client, judged on every request
// the double records by the module's one judge of a client's requests
// (internal/clientrules, which the proxy uses too), with IDs, sections and levels as the
// harness's rules have them (READINGS.md): MUST is fixed by the document's words, SHOULD by
// the HTTP standards it builds on, ADVISORY a practice no text requires.

// The levels of a client rule (the harness's levels: internal/level).
const (
	LevelMust     = level.Must
	LevelShould   = level.Should
	LevelAdvisory = level.Advisory
)

// The IDs of the client rules.
const (
	RuleAuthBearer      = clientrules.AuthBearer
	RuleLimitInBounds   = clientrules.LimitInBounds
	RuleStatusInEnum    = clientrules.StatusInEnum
	RuleJSONBody        = clientrules.JSONBody
	RuleRetryAfter      = clientrules.RetryAfter
	RuleRemovedOp       = clientrules.RemovedOp
	RuleDeprecatedOp    = clientrules.DeprecatedOp
	RuleDocumentedPaths = clientrules.DocumentedPaths
)

// ClientRule is one requirement on a client (ID, section, level, title) and how the client
// did against it.
type ClientRule struct {
	clientrules.Rule
	// Violations counts the requests that broke the rule; Examples are the first few, as
	// the journal would show them (keys masked).
	Violations int      `json:"violations"`
	Examples   []string `json:"examples"`
}

// maxRuleExamples is how many violations of a rule the report quotes.
const maxRuleExamples = 3

// clientRules returns the rules, their words read from the spec's facts, none broken yet.
func clientRules(facts *spec.Facts) []ClientRule {
	var out []ClientRule
	for _, r := range clientrules.Rules(facts) {
		out = append(out, ClientRule{Rule: r})
	}
	return out
}

// MustBroken returns the MUST rules the client broke, leaving out those in allowed.
func (r ClientReport) MustBroken(allowed ...string) []ClientRule {
	var out []ClientRule
	for _, rule := range r.Rules {
		if rule.Level == LevelMust && rule.Violations > 0 && !slices.Contains(allowed, rule.ID) {
			out = append(out, rule)
		}
	}
	return out
}

// String is a rule's verdict in one line, with its first example.
func (c ClientRule) String() string {
	s := fmt.Sprintf("%s (%s, section %s): %s", c.ID, c.Level, c.Section, c.Title)
	if c.Violations > 0 {
		s += fmt.Sprintf(" — broken by %s", words.Plural(c.Violations, "request"))
		if len(c.Examples) > 0 {
			s += ", first: " + c.Examples[0]
		}
	}
	return s
}

// judgeOptions are the double's: its masker (a text's, a header value's and a query's
// masking), its wall clock, and its own decoding and validation of a createPet body (the
// words of its 400).
func judgeOptions(facts *spec.Facts, mask masker, wall func() time.Time) clientrules.Options {
	return clientrules.Options{Mask: mask.mask, Value: mask.value, Query: mask.query, Wall: wall, NewPet: func(body []byte) error {
		p, err := core.DecodeNewPet(body)
		if err == nil {
			err = core.ValidateNewPet(p, facts.Statuses, core.StatusRequired(facts))
		}
		if e, ok := err.(*core.Error); ok {
			return errors.New(e.Message)
		}
		return err
	}}
}

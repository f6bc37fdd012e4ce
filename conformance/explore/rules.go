package explore

import (
	"fmt"
	"strings"
)

// Violation is one answer the interface document rules out: the rule of the catalogue it
// breaks, the section of the document it rests on, and what was seen.
type Violation struct {
	Rule    string `json:"rule"`
	Section string `json:"section"`
	Message string `json:"message"`
	// Cause is what makes two violations one finding (see causeOf), set once the step is
	// judged.
	Cause string `json:"cause,omitempty"`
	// detail is what the cause keeps of a message that names what was wrong, until the
	// cause is set.
	detail string
}

// The rules a violation cites: the catalogue's (docs/rules.md) where one judges the same
// property, else explore's own, under explore/ (docs/harness.md lists them): the catalogue
// judges a 5xx, an answer outside the description and no answer within each of its rules,
// and has no rule of a DELETE a spec adds.
const (
	ruleNo5xx        = "explore/no-5xx"
	ruleSpec         = "explore/spec-valid"
	ruleNoAnswer     = "explore/no-answer"
	ruleErrorRecord  = "explore/error-record" // a 4xx other than 400, 401 and 404
	ruleDelete       = "explore/delete-own"
	ruleDeletedGone  = "explore/deleted-gone"
	ruleUnauthorized = "errors/unauthorized"
	ruleBadRequest   = "errors/bad-request"
	ruleNotFound     = "errors/not-found"
	ruleCreateValid  = "createPet/valid"
	ruleCreateReject = "createPet/cases-fields"
	ruleIDsUnique    = "createPet/ids-unique"
	ruleListArray    = "listPets/bare-array"
	ruleListQuery    = "listPets/cases-query"
	ruleListStatus   = "listPets/status-" // and the status asked for: the catalogue has one per value
	rulePersist      = "getPet/created-returned"
	ruleGetUnknown   = "getPet/unknown-id"
	ruleGetNotID     = "getPet/non-integer-id"
)

// sections are the sections of the interface document each rule rests on, as explore
// judges it.
var sections = map[string]string{
	ruleNo5xx:        "4 (the documented responses); 7",
	ruleSpec:         "2; 4 (responses as the description gives them)",
	ruleNoAnswer:     "4",
	ruleErrorRecord:  "7",
	ruleDelete:       "the spec's DELETE of one animal; 2",
	ruleDeletedGone:  "the spec's DELETE of one animal; 4.1; 4.3",
	ruleUnauthorized: "5.3; 7",
	ruleBadRequest:   "7",
	ruleNotFound:     "7",
	ruleCreateValid:  "2; 4.2",
	ruleCreateReject: "4.2; 7",
	ruleIDsUnique:    "2 (Pet.id)",
	ruleListArray:    "4.1 rule 3; 2",
	ruleListQuery:    "4.1 rule 1; 8",
	rulePersist:      "2; 4.2; 4.3",
	ruleGetUnknown:   "4.3",
	ruleGetNotID:     "4.3; 7",
}

func violation(rule, format string, args ...any) *Violation {
	section := sections[rule]
	if strings.HasPrefix(rule, ruleListStatus) {
		section = "4.1 rule 2"
	}
	return &Violation{Rule: rule, Section: section, Message: fmt.Sprintf(format, args...)}
}

// errorRule is the rule of an answer with status that is no Error record.
func errorRule(status int) string {
	switch status {
	case 400:
		return ruleBadRequest
	case 401:
		return ruleUnauthorized
	case 404:
		return ruleNotFound
	}
	return ruleErrorRecord
}

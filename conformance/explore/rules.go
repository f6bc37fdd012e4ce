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

// rule is a rule a violation cites, with the sections of the interface document explore rests
// it on: the catalogue's (docs/rules.md) where one judges the same property, else explore's
// own under explore/ (docs/harness.md lists them): the catalogue judges a 5xx, an answer
// outside the description and no answer within each of its rules, and has no rule of a
// DELETE a spec adds.
type rule struct{ id, section string }

var (
	ruleNo5xx        = rule{"explore/no-5xx", "4 (the documented responses); 7"}
	ruleSpec         = rule{"explore/spec-valid", "2; 4 (responses as the description gives them)"}
	ruleNoAnswer     = rule{"explore/no-answer", "4"}
	ruleErrorRecord  = rule{"explore/error-record", "7"} // a 4xx other than 400, 401 and 404
	ruleDelete       = rule{"explore/delete-own", "the spec's DELETE of one animal; 2"}
	ruleDeletedGone  = rule{"explore/deleted-gone", "the spec's DELETE of one animal; 4.1; 4.3"}
	ruleUnauthorized = rule{"errors/unauthorized", "5.3; 7"}
	ruleBadRequest   = rule{"errors/bad-request", "7"}
	ruleNotFound     = rule{"errors/not-found", "7"}
	ruleCreateValid  = rule{"createPet/valid", "2; 4.2"}
	ruleCreateReject = rule{"createPet/cases-fields", "4.2; 7"}
	ruleIDsUnique    = rule{"createPet/ids-unique", "2 (Pet.id)"}
	ruleListArray    = rule{"listPets/bare-array", "4.1 rule 3; 2"}
	ruleListQuery    = rule{"listPets/cases-query", "4.1 rule 1; 8"}
	rulePersist      = rule{"getPet/created-returned", "2; 4.2; 4.3"}
	ruleGetUnknown   = rule{"getPet/unknown-id", "4.3"}
	ruleGetNotID     = rule{"getPet/non-integer-id", "4.3; 7"}
	allRules         = []rule{ruleNo5xx, ruleSpec, ruleNoAnswer, ruleErrorRecord, ruleDelete, ruleDeletedGone, ruleUnauthorized, ruleBadRequest,
		ruleNotFound, ruleCreateValid, ruleCreateReject, ruleIDsUnique, ruleListArray, ruleListQuery, rulePersist, ruleGetUnknown, ruleGetNotID}
)

// ruleListStatus is the catalogue's rule of a status filter, one per value.
func ruleListStatus(status string) rule { return rule{"listPets/status-" + status, "4.1 rule 2"} }

// ruleByID is the rule of id.
func ruleByID(id string) rule {
	for _, r := range allRules {
		if r.id == id {
			return r
		}
	}
	return ruleListStatus(strings.TrimPrefix(id, ruleListStatus("").id))
}

func violation(r rule, format string, args ...any) *Violation {
	return &Violation{Rule: r.id, Section: r.section, Message: fmt.Sprintf(format, args...)}
}

// errorRule is the rule of an answer with status that is no Error record.
func errorRule(status int) rule {
	if r, ok := map[int]rule{400: ruleBadRequest, 401: ruleUnauthorized, 404: ruleNotFound}[status]; ok {
		return r
	}
	return ruleErrorRecord
}

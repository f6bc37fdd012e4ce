package explore

import (
	"net/url"
	"strconv"
	"strings"
)

// Replay files before format 5 named explore's rules in words of their own; they still
// replay: Replay reads their finding and the causes they pass over in the catalogue's IDs.

// legacyRules are the rules of formats 1 to 4 that name one rule now; error-record, get-id,
// ids-unique and list-filter depend on the cause (see legacyRule).
var legacyRules = map[string]string{
	"no-5xx": ruleNo5xx, "spec": ruleSpec, "no-answer": ruleNoAnswer, "unauthorized": ruleUnauthorized,
	"create-accepted": ruleCreateValid, "create-fields": ruleCreateValid, "create-rejected": ruleCreateReject,
	"persist": rulePersist, "list-ok": ruleListArray, "list-limit": ruleListQuery,
}

// legacyCauses are a cause of formats 1 to 4 as causes now: its rule as now named (a
// list-filter's one per status, the value it was met with not being in the cause), and
// getPet's id kind left out (the rule says it).
func legacyCauses(cause string, statuses []string) []string {
	rule, rest, _ := strings.Cut(cause, ": ")
	rest = strings.Replace(strings.Replace(rest, " for an int64 id", "", 1), " for no int64 id", "", 1)
	if rule != "list-filter" {
		return []string{legacyRule(rule, cause) + ": " + rest}
	}
	out := make([]string, len(statuses))
	for i, s := range statuses {
		out[i] = ruleListStatus + s + ": " + rest
	}
	return out
}

// legacyRule is the rule of formats 1 to 4 as named now, given the violation's cause.
func legacyRule(rule, cause string) string {
	if r, ok := legacyRules[rule]; ok {
		return r
	}
	switch {
	case rule == "error-record":
		for _, status := range []int{400, 401, 404} {
			if strings.Contains(cause, " answered "+strconv.Itoa(status)) {
				return errorRule(status)
			}
		}
		return ruleErrorRecord
	case rule == "get-id" && strings.Contains(cause, "for no int64 id"):
		return ruleGetNotID
	case rule == "get-id":
		return ruleGetUnknown
	case rule == "ids-unique" && strings.Contains(cause, ": "+opList+" "):
		return ruleListArray
	case rule == "ids-unique":
		return ruleIDsUnique
	}
	return rule
}

// upgrade reads a file of formats 1 to 4 in today's rules (statuses: the PetStatus values).
func (rf *ReplayFile) upgrade(statuses []string) {
	if rf.Format == ReplayFormat {
		return
	}
	v := &rf.Finding
	if v.Rule == "list-filter" {
		// Its message starts with the listing asked for: listPets?limit=5&status=sold answered ...
		asked, _, _ := strings.Cut(v.Message, " ")
		_, query, _ := strings.Cut(asked, "?")
		q, _ := url.ParseQuery(query)
		v.Rule, v.Cause = ruleListStatus+q.Get(paramStatus), legacyCauses(v.Cause, []string{q.Get(paramStatus)})[0]
	} else {
		v.Rule, v.Cause = legacyRule(v.Rule, v.Cause), legacyCauses(v.Cause, nil)[0]
	}
	v.Section = violation(v.Rule, "").Section
	var pass []string
	for _, c := range rf.PassOver {
		pass = append(pass, legacyCauses(c, statuses)...)
	}
	rf.PassOver = pass
}

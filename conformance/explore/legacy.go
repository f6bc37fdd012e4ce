package explore

import (
	"cmp"
	"net/url"
	"strconv"
	"strings"
)

// Replay files before format 5 named explore's rules in words of their own; Replay reads their
// finding and the causes they pass over in today's rules. A cause was "<rule>: <operation>
// [for (no) int64 id] answered <status>[: ...]"; it is today's with the rule renamed.
var legacyRules = map[string]rule{
	"no-5xx": ruleNo5xx, "spec": ruleSpec, "no-answer": ruleNoAnswer, "unauthorized": ruleUnauthorized,
	"create-accepted": ruleCreateValid, "create-fields": ruleCreateValid, "create-rejected": ruleCreateReject,
	"persist": rulePersist, "list-ok": ruleListArray, "list-limit": ruleListQuery, "ids-unique": ruleIDsUnique,
	"get-id": ruleGetUnknown, "error-record": ruleErrorRecord,
}

// legacyCauses are an old cause as today's: one per status for list-filter, whose value the
// cause does not say, unless status gives it.
func legacyCauses(cause string, statuses ...string) []string {
	rule, rest, _ := strings.Cut(cause, ": ")
	if r, ok := legacyRules[rule]; ok {
		switch {
		case rule == "get-id" && strings.HasPrefix(rest, opGet+" for no int64 id"):
			r = ruleGetNotID
		case rule == "ids-unique" && strings.HasPrefix(rest, opList+" "):
			r = ruleListArray
		case rule == "error-record":
			_, status, _ := strings.Cut(rest, " answered ")
			n, _ := strconv.Atoi(status[:min(3, len(status))])
			r = errorRule(n)
		}
		rest = strings.Replace(strings.Replace(rest, " for an int64 id", "", 1), " for no int64 id", "", 1)
		return []string{r.id + ": " + rest}
	}
	out := make([]string, len(statuses))
	for i, s := range statuses {
		out[i] = ruleListStatus(s).id + ": " + rest
	}
	return out
}

// upgrade reads a file of formats 1 to 4 in today's rules (statuses: the PetStatus values).
func (rf *ReplayFile) upgrade(statuses []string) {
	if rf.Format == ReplayFormat {
		return
	}
	v, asked := &rf.Finding, statuses
	if v.Rule == "list-filter" { // its message starts with the listing: listPets?status=sold answered ...
		listing, _, _ := strings.Cut(v.Message, " ")
		_, query, _ := strings.Cut(listing, "?")
		q, _ := url.ParseQuery(query)
		asked = []string{q.Get(paramStatus)}
	}
	rule := legacyCauses(cmp.Or(v.Cause, v.Rule+": "), asked...)[0]
	if v.Cause != "" {
		v.Cause = rule
	}
	v.Rule, _, _ = strings.Cut(rule, ": ")
	v.Section = ruleByID(v.Rule).section
	var pass []string
	for _, c := range rf.PassOver {
		pass = append(pass, legacyCauses(c, statuses...)...)
	}
	rf.PassOver = pass
}

package anatomy

import "strings"

// Classes of a value (Value.Class).
const (
	ordinary  = "ordinary"
	odd       = "odd"
	invalid   = "invalid"
	oversized = "oversized"
)

// The operations of the interface document (operationIds), for Part.Ops.
const (
	listPets  = "listPets"
	createPet = "createPet"
	getPet    = "getPet"
)

// getOps are the operations whose method is GET.
var getOps = []string{listPets, getPet}

// Sections of the interface document and the readings that the Whys cite.
const (
	docJSON    = "§1: all traffic is HTTP with JSON bodies (application/json)"
	docSize    = "§8: request size limits are not shown"
	docAuth    = "§5.2: the key goes in the Authorization header as Bearer <API_KEY>; §5.3: missing or invalid, 401 with an Error body"
	docNothing = "the document (§4, §5) names no such field, parameter or form, so the answer must not change"
)

// Parts is every part of a request that a server, a framework or a front server may
// interpret, region by region, each with its sources, its meaning under the interface
// document and the values that exercise it.
func Parts() []Part {
	var all []Part
	for _, region := range [][]Part{methodParts(), targetParts(), queryParts(), headerParts(), forwardingParts(), conditionalParts(), authParts(), bodyParts(), framingParts()} {
		all = append(all, region...)
	}
	return all
}

// val is a deep value of a part; the helpers below change its level or meaning.
func val(slug, class, words, text string) Value {
	return Value{Slug: slug, Class: class, Words: words, Text: text, Level: LevelDeep}
}

// def puts a value in the default run.
func def(v Value) Value {
	v.Level = LevelDefault
	return v
}

// as gives a value a meaning other than its part's, with the reason.
func as(m Meaning, v Value, why string) Value {
	v.Meaning, v.Overrides, v.Why = m, true, why
	return v
}

// fault makes a value a Fault with its documented status (0: any 4xx with an Error body).
func fault(v Value, status int, why string) Value {
	v = as(Fault, v, why)
	v.Status = status
	return v
}

// allows limits an Open value's refusals to these statuses (Value.Allows).
func allows(v Value, statuses ...int) Value {
	v.Allows = statuses
	return v
}

// on limits a value to these operations (Value.Ops).
func on(v Value, ops ...string) Value {
	v.Ops = ops
	return v
}

// covered marks a value another family of generated cases sends already (Value.Covered).
func covered(v Value, by string) Value {
	v.Covered = by
	return v
}

// fields makes a value send these header fields instead of the part's single one.
func fields(v Value, f ...Field) Value {
	v.Fields = f
	return v
}

// omit makes a value send no field of its part's name at all.
func omit(v Value) Value {
	v.Omit = true
	return v
}

// pad is n bytes of "a": a value, a parameter or a field that reaches a server's limit.
func pad(n int) string { return strings.Repeat("a", n) }

// notSent is a part recorded for what it is, not sent, with the reason.
func notSent(id string, where Where, name string, defined []string, m Meaning, why, reason string) Part {
	return Part{ID: id, Where: where, Name: name, Defined: defined, Meaning: m, Why: why, NotSent: reason}
}

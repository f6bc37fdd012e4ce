package cases

import (
	"bytes"
	"encoding/json"
	"math/big"
	"regexp"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// plainName is a string no service could call invalid: the document shows no length or
// character limits (secOpenName), so only short ASCII text is sure to be accepted.
var plainName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _-]{0,39}$`)

// PlainReferenceMax is the largest reference (categoryId) a service is expected to accept:
// the document shows no Category records (secOpenRef), so it may refuse others.
const PlainReferenceMax = 1000

// BodyVerdict is what the document says of a JSON request body of schema s, by the
// generator's verdicts on its variants: Reject when it is no JSON (or not UTF-8) or breaks s (a required
// property missing, a value of another type or outside its enumeration or format), Accept
// when each property it sets is plain (a value of an enumeration, a short ASCII string, a
// reference from 1 to PlainReferenceMax, another integer), Open otherwise (a string or a
// reference the document is silent on, a property s does not name). The generator knows more
// of a body it builds (the target's own reference, a name that probes a normaliser):
// TestBodyVerdictIsTheGenerators holds the two to the same Reject.
func BodyVerdict(s *openapi3.Schema, body []byte) Verdict {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	if !utf8.Valid(body) || dec.Decode(&v) != nil || dec.More() || s.VisitJSON(v) != nil {
		return Reject
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return Open
	}
	for name, raw := range fields {
		p := s.Properties[name]
		if p == nil || p.Value == nil {
			return Open // whether other fields are refused: not shown (secUnknown)
		}
		var str string
		n, isInt := new(big.Int).SetString(string(raw), 10)
		lo, hi := formatRange(p.Value.Format)
		switch {
		case len(p.Value.Enum) > 0:
		case p.Value.Type.Is(openapi3.TypeInteger) && isInt && lo != nil && (n.Cmp(lo) < 0 || n.Cmp(hi) > 0):
			return Reject // outside its format, which a float64 schema check cannot see
		case p.Value.Type.Is(openapi3.TypeString) && (json.Unmarshal(raw, &str) != nil || !plainName.MatchString(str)):
			return Open
		case p.Value.Type.Is(openapi3.TypeInteger) && isReference(name) && (!isInt || n.Sign() <= 0 || n.Cmp(big.NewInt(PlainReferenceMax)) > 0):
			return Open
		}
	}
	return Accept
}

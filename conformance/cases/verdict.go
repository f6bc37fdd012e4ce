package cases

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
)

// plainName is a string no service could call invalid: the document shows no length or
// character limits (secOpenName), so only short ASCII text is sure to be accepted.
var plainName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _-]{0,39}$`)

// PlainReferenceMax is the largest reference (categoryId) a service is expected to accept:
// the document shows no Category records (secOpenRef), so it may refuse others.
const PlainReferenceMax = 1000

// BodyVerdict is what the document says of a JSON request body of schema s, by the
// generator's verdicts on its variants: Reject when it is no JSON or breaks s (a required
// property missing, a value of another type or outside its enumeration or format), Accept
// when each property of s it sets is plain (a value of an enumeration, a short ASCII string,
// a reference from 1 to PlainReferenceMax, another integer), Open otherwise (a string or a
// reference the document is silent on). Properties s does not name are left to the service.
func BodyVerdict(s *openapi3.Schema, body []byte) Verdict {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	if dec.Decode(&v) != nil || dec.More() || s.VisitJSON(v) != nil {
		return Reject
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return Open
	}
	for name, raw := range fields {
		p := s.Properties[name]
		if p == nil || p.Value == nil || len(p.Value.Enum) > 0 {
			continue
		}
		var str string
		switch {
		case p.Value.Type.Is(openapi3.TypeString):
			if json.Unmarshal(raw, &str) != nil || !plainName.MatchString(str) {
				return Open
			}
		case p.Value.Type.Is(openapi3.TypeInteger) && isReference(name):
			if n, err := strconv.ParseInt(string(raw), 10, 64); err != nil || n < 1 || n > PlainReferenceMax {
				return Open
			}
		}
	}
	return Accept
}

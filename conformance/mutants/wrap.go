package mutants

import (
	"encoding/json"
	"net/http"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// The plumbing of a fault (which requests, held-back replies, request and response
// rewriting) is conformance/mutants/kit; what only these mutants use is here.

// editErrorJSON changes the Error record of every error response.
func editErrorJSON(edit func(map[string]any)) func(http.Handler) http.Handler {
	return kit.OnErrors(func(rp *kit.Reply) { rp.EditJSON(kit.EachObject(edit)) })
}

// asNumber is v as a JSON number, or the empty number (which converts to nothing).
func asNumber(v any) json.Number {
	n, _ := v.(json.Number)
	return n
}

package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

// String formats the change as `conformance diff` prints it:
// breaking|non-breaking KIND METHOD PATH (operationId): MESSAGE [check].
func (c Change) String() string {
	verdict := "non-breaking"
	if c.Breaking {
		verdict = "breaking"
	}
	where := strings.TrimSpace(c.Method + " " + c.Path)
	if c.OperationID != "" {
		where += " (" + c.OperationID + ")"
	}
	if where != "" {
		where = " " + where
	}
	return fmt.Sprintf("%s %s%s: %s [%s]", verdict, c.Kind, where, c.Message, c.Check)
}

func writeText(w io.Writer, changes []Change) error {
	var b strings.Builder
	for _, c := range changes {
		b.WriteString(c.String())
		b.WriteString("\n")
	}
	if len(changes) == 0 {
		b.WriteString("no changes\n")
	} else {
		n := Breaking(changes)
		fmt.Fprintf(&b, "%s: %d breaking, %d non-breaking\n", words.Plural(len(changes), "change"), n, len(changes)-n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// report is the JSON document `conformance diff --format json` writes.
type report struct {
	Base     string   `json:"base"`
	Head     string   `json:"head"`
	Breaking int      `json:"breaking"`
	Changes  []Change `json:"changes"`
}

func writeJSON(w io.Writer, files []string, changes []Change) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report{Base: files[0], Head: files[1], Breaking: Breaking(changes), Changes: changes})
}

package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

// String formats the change's first line as `conformance diff` prints it:
// breaking|non-breaking KIND METHOD PATH (operationId): MESSAGE [check], breaking when it
// breaks clients or providers.
func (c Change) String() string {
	verdict := "non-breaking"
	if c.Breaks() {
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

// who says whom the change breaks, in one line under it.
func (c Change) who() string {
	clients := "not breaking"
	if c.Breaking {
		clients = "breaking"
	}
	providers := "not breaking"
	if c.BreaksProviders {
		providers = "breaking"
	}
	return fmt.Sprintf("clients: %s; providers: %s: %s", clients, providers, c.Providers)
}

func writeText(w io.Writer, changes []Change) error {
	var b strings.Builder
	said := map[string]bool{} // the operations whose catalogue changes are written already
	for _, c := range changes {
		b.WriteString(c.String())
		b.WriteString("\n  " + c.who() + "\n")
		if len(c.Rules)+len(c.Families) == 0 {
			continue
		}
		// The catalogue changes of an operation are those of all its changes together:
		// written once, under its first change.
		if said[c.OperationID] {
			fmt.Fprintf(&b, "  rules and case families that change: as under the first change to %s\n", c.OperationID)
			continue
		}
		said[c.OperationID] = true
		if len(c.Rules) > 0 {
			b.WriteString("  rules that change: " + strings.Join(c.Rules, ", ") + "\n")
		}
		if len(c.Families) > 0 {
			b.WriteString("  case families that change: " + strings.Join(c.Families, ", ") + "\n")
		}
	}
	if len(changes) == 0 {
		b.WriteString("no changes\n")
	} else {
		n := Breaks(changes)
		fmt.Fprintf(&b, "%s: %d breaking (%d for clients, %d for providers), %d non-breaking\n", words.Plural(len(changes), "change"),
			n, Breaking(changes), BreakingProviders(changes), len(changes)-n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// report is the JSON document `conformance diff --format json` writes.
type report struct {
	Base              string   `json:"base"`
	Head              string   `json:"head"`
	Breaking          int      `json:"breaking"`          // breaking clients
	BreakingProviders int      `json:"breakingProviders"` // breaking deployments conforming to the base
	Changes           []Change `json:"changes"`
}

func writeJSON(w io.Writer, files []string, changes []Change) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report{Base: files[0], Head: files[1], Breaking: Breaking(changes), BreakingProviders: BreakingProviders(changes), Changes: changes})
}

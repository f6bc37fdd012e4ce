package report

import (
	"encoding/json"
	"io"
)

// Writer writes a report in one format.
type Writer func(io.Writer, *Report) error

// Formats are the report writers by name, as --format takes them, each in its own file
// (write_<name>.go). Every one writes valid UTF-8: the JSON writer as encoding/json does, the
// others through Printable.
var Formats = map[string]Writer{
	"text":     WriteText,
	"json":     WriteJSON,
	"junit":    WriteJUnit,
	"html":     WriteHTML,
	"markdown": WriteMarkdown,
}

// WriteJSON writes the report as indented JSON (the fields of Report).
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

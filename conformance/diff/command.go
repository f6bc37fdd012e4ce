package diff

import "io"

// What `conformance diff` asks of this package; the command itself (flags, stdin, exit
// codes) lives in cmd/conformance.

// WriteText writes one line per change, as Change.String formats it, and a closing count
// ("no changes" when there are none).
func WriteText(w io.Writer, changes []Change) error { return writeText(w, changes) }

// WriteJSON writes the changes from base to head (the names the files were given by) as
// one JSON document: {base, head, breaking, changes}.
func WriteJSON(w io.Writer, base, head string, changes []Change) error {
	return writeJSON(w, []string{base, head}, changes)
}

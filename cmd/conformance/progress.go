package main

import (
	"fmt"
	"io"
	"os"
)

// terminal reports whether w is a terminal.
func (e env) terminal(w io.Writer) bool {
	if e.isTerminal != nil {
		return e.isTerminal(w)
	}
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := file.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// colour is on for a terminal, unless NO_COLOR is set.
func (e env) colour() bool {
	return e.getenv("NO_COLOR") == "" && e.terminal(e.stdout)
}

// progress returns the callback that shows "rule n/N ID" on stderr while the run goes on,
// and the function that erases it; both do nothing unless stderr is a terminal, so logs and
// CI output never collect the line.
func progress(e env) (func(n, total int, id string), func()) {
	if !e.terminal(e.stderr) {
		return nil, func() {}
	}
	return progressLine(e.stderr)
}

// progressLine writes the progress line to w, rewriting it in place.
func progressLine(w io.Writer) (func(n, total int, id string), func()) {
	shown := false
	update := func(n, total int, id string) {
		shown = true
		fmt.Fprintf(w, "\r\x1b[Krule %d/%d %s", n, total, id)
	}
	return update, func() {
		if shown {
			fmt.Fprint(w, "\r\x1b[K")
		}
	}
}

package main

import (
	"bytes"
	"log"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Go's HTTP client logs an answer no request asked for with the raw bytes it read (an HTML
// page, 600 characters of it); the command says it once, in its own words, and cuts any other
// line the standard logger gets to one line.
func TestTransportLogIsWorded(t *testing.T) {
	var out bytes.Buffer
	l := log.New(&transportLog{w: &out}, "", log.LstdFlags)
	raw := `Unsolicited response received on idle HTTP channel starting with "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/html\r\n\r\n<html>` +
		strings.Repeat("x", 600) + `"; err=<nil>`
	l.Print(raw)
	l.Print(raw)
	assert.Equal(t, unsolicitedLine, out.String(), "once, worded, none of the raw bytes")
	out.Reset()
	l.Print("something else\nwith a second line " + strings.Repeat("y", 300))
	assert.Equal(t, 1, strings.Count(out.String(), "\n"))
	assert.LessOrEqual(t, len(out.String()), 250)
	assert.True(t, strings.HasPrefix(out.String(), "conformance: "))
}

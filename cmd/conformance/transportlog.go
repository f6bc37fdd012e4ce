package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// transportLog takes what Go's HTTP client writes to the standard logger on its own (the
// answer to no request that a target sent on an idle kept-alive connection, quoted with up to
// hundreds of bytes of it) and says it once, in the command's words: the run's report already
// names the request that left the connection so (a body left unread), where one failed. Any
// other line is passed on, cut to one line of at most 200 bytes.
type transportLog struct {
	mu          sync.Mutex
	w           io.Writer
	unsolicited bool
}

const unsolicitedLine = "conformance: the target sent answers on idle kept-alive connections that no request asked for " +
	"(a server that answers a request without reading its body leaves the body to be read as the next request); " +
	"the report names the request that left a connection so, where an answer failed\n"

func (t *transportLog) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	line := string(bytes.TrimSpace(p))
	switch {
	case strings.Contains(line, "Unsolicited response received on idle HTTP channel"):
		if !t.unsolicited {
			t.unsolicited = true
			_, _ = io.WriteString(t.w, unsolicitedLine)
		}
	default:
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if len(line) > 200 {
			line = line[:200] + "…"
		}
		_, _ = io.WriteString(t.w, "conformance: "+line+"\n")
	}
	return len(p), nil
}

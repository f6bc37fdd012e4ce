package core

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
)

// The description GET /openapi.yaml serves lists this server's own base URL first, before
// the deployments the spec names, so that a client generated from it talks to the server
// it was fetched from as is.

// serversKey is the top-level servers key of a YAML description, with the indentation of
// the list that follows it.
var serversKey = regexp.MustCompile(`(?m)^servers:[ \t]*\r?\n([ \t]*)- `)

// withOwnServer returns raw with an entry for base (scheme, host and base path of this
// server) first in its servers. A description whose servers are not a block list (or that
// has none) gets a servers list of its own when it has none, and is left as written
// otherwise.
func WithOwnServer(raw []byte, base string) []byte {
	url, _ := json.Marshal(base) // a JSON string is a YAML double-quoted scalar
	m := serversKey.FindSubmatchIndex(raw)
	if m == nil {
		if regexp.MustCompile(`(?m)^servers:`).Match(raw) {
			return raw
		}
		out := append(bytes.TrimRight(bytes.Clone(raw), "\n"), "\nservers:\n  - url: "...)
		return append(append(out, url...), "\n    description: This server.\n"...)
	}
	indent := raw[m[2]:m[3]]
	var entry bytes.Buffer
	entry.Write(indent)
	entry.WriteString("- url: ")
	entry.Write(url)
	entry.WriteString("\n")
	entry.Write(indent)
	entry.WriteString("  description: This server, which served this description.\n")
	at := m[2] // the start of the first item's line
	out := make([]byte, 0, len(raw)+entry.Len())
	out = append(out, raw[:at]...)
	out = append(out, entry.Bytes()...)
	return append(out, raw[at:]...)
}

// ownBase is the base URL a client reached this server by: the scheme (https under TLS, or
// as a trusted proxy forwarded it), the Host it asked for, and the spec's base path.
func OwnBase(r *http.Request, basePath string) string {
	scheme := "http"
	switch {
	case r.URL.Scheme != "":
		scheme = r.URL.Scheme // set by the proxy headers, when trusted
	case r.TLS != nil:
		scheme = "https"
	}
	return scheme + "://" + r.Host + basePath
}

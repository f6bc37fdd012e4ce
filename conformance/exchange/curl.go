package exchange

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/petstore/petstore/conformance/report"
)

// curlCmd is a command that repeats one request: curl's arguments, and the printf that
// writes a body curl reads from its input (--data-binary @-), if there is one.
type curlCmd struct{ pipe, args string }

func (c curlCmd) String() string { return c.pipe + c.args }

// curl writes a command that repeats req; the key and every other secret given come from
// the environment ($PETSTORE_API_KEY, $PETSTORE_HEADER_1: Secrets.Vars).
func (s *Session) curl(req *http.Request, body []byte) string { return s.curlCmd(req, body).String() }

func (s *Session) curlCmd(req *http.Request, body []byte) curlCmd {
	raw := rawOf(req)
	if raw != nil && !curlCan(raw) {
		return s.rawPipe(req, raw, body)
	}
	var b strings.Builder
	b.WriteString("curl -sS -i")
	if req.Method != http.MethodGet && !(req.Method == http.MethodPost && len(body) > 0) {
		b.WriteString(" -X " + req.Method)
	}
	for _, f := range fieldsInOrder(req.Header) {
		k, v := f[0], f[1]
		if strings.TrimSpace(v) == "" {
			// curl drops a header given as "Name: " and sends an empty one given as "Name;".
			b.WriteString(" -H " + shellQuote(k+";"))
			continue
		}
		if http.CanonicalHeaderKey(k) == "Authorization" {
			b.WriteString(" -H " + s.red.authCurl(v))
			continue
		}
		b.WriteString(" -H " + s.red.shellQuote(k+": "+s.red.value(v)))
	}
	if req.Host != "" && req.Host != req.URL.Host {
		b.WriteString(" -H " + s.red.shellQuote("Host: "+s.red.value(req.Host)))
	}
	if len(req.TransferEncoding) > 0 {
		// curl sends a body of its own choosing with its length; this asks for chunks.
		b.WriteString(" -H " + shellQuote("Transfer-Encoding: "+strings.Join(req.TransferEncoding, ", ")))
	}
	pipe := ""
	switch {
	case len(body) > 0 && unprintable(body) && !strings.Contains(s.Redact(string(body)), report.KeyPlaceholder):
		// Bytes that are not UTF-8, and control characters, cannot stand in a report or a
		// terminal as they are: printf writes them from octal escapes (POSIX), and curl
		// reads them from its input.
		pipe = "printf " + printfFormat(s.Redact(string(body))) + " | "
		b.WriteString(" --data-binary @-")
	case len(body) > 0:
		b.WriteString(" --data-binary " + s.red.shellQuote(s.Redact(string(body))))
	case req.Method == http.MethodPost || req.Method == http.MethodPut || req.Method == http.MethodPatch:
		// What Go sends for an empty body of these methods; curl sends none without it.
		b.WriteString(" -H 'Content-Length: 0'")
	}
	if raw != nil {
		b.WriteString(s.rawCurlOptions(req, raw))
	}
	b.WriteString(" " + s.red.shellQuote(s.red.url(req.URL)))
	return curlCmd{pipe: pipe, args: b.String()}
}

// unprintable reports whether body holds bytes that are not UTF-8 or control characters
// other than tab, line feed and carriage return.
func unprintable(body []byte) bool {
	if !utf8.Valid(body) {
		return true
	}
	return bytes.ContainsFunc(body, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f })
}

// printfFormat is a single-quoted printf format that writes body byte for byte: printable
// ASCII as it is (% and \ doubled), every other byte as an octal escape.
func printfFormat(body string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '%':
			b.WriteString("%%")
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\'' || c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// shellQuote quotes str for a POSIX shell, the key placeholder as the variable it names.
func shellQuote(str string) string { return quoteVars(str, []string{report.KeyPlaceholder}) }

// shellQuote quotes str for a POSIX shell, every placeholder of a secret as the variable it
// names.
func (r *redactor) shellQuote(str string) string { return quoteVars(str, r.vars) }

// quoteVars quotes str for a POSIX shell. A string that holds one of the placeholders vars
// ("$PETSTORE_API_KEY") is double-quoted so that the shell expands each (as ${NAME} where a
// letter, digit or underscore follows, which would otherwise lengthen the variable's name);
// everything else is single-quoted.
func quoteVars(str string, vars []string) string {
	vars = slices.Clone(vars)
	slices.SortFunc(vars, func(a, b string) int { return len(b) - len(a) }) // $X_10 before $X_1
	var word []string
	last := 0
	for i := 0; i < len(str); i++ {
		if str[i] != '$' {
			continue
		}
		for _, v := range vars {
			if strings.HasPrefix(str[i:], v) {
				word = append(word, str[last:i], varExpansion(v, str[i+len(v):]))
				i += len(v) - 1
				last = i + 1
				break
			}
		}
	}
	word = append(word, str[last:])
	return shellWord(word...)
}

// varExpansion is the expansion of the placeholder v ("$NAME") before the text next.
func varExpansion(v, next string) string {
	if next != "" && strings.IndexByte(nameBytes, next[0]) >= 0 {
		return "${" + strings.TrimPrefix(v, "$") + "}"
	}
	return v
}

// nameBytes are the bytes of a shell variable's name.
const nameBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

// shellWord quotes one word for a POSIX shell from parts that alternate between text, kept
// as it is, and shell expansions ($VAR, $(...)), which the shell performs: text at the even
// indexes, expansions at the odd ones. A word without expansions is single-quoted.
func shellWord(parts ...string) string {
	if len(parts) == 1 {
		return "'" + strings.ReplaceAll(parts[0], "'", `'\''`) + "'"
	}
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`)
	var b strings.Builder
	b.WriteByte('"')
	for i, p := range parts {
		if i%2 == 0 {
			p = esc.Replace(p)
		}
		b.WriteString(p)
	}
	b.WriteByte('"')
	return b.String()
}

// fieldsInOrder are h's fields as name and value, names sorted, each name's values in order:
// the order a curl line and the raw sender write them in.
func fieldsInOrder(h http.Header) [][2]string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var out [][2]string
	for _, k := range names {
		for _, v := range h[k] {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

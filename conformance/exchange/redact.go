package exchange

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/petstore/petstore/conformance/report"
)

// Redaction. The key reaches a report in three ways: in the Authorization header the harness
// sends (plain, base64 for Basic, altered for the near-key probes), in what a target echoes
// (bodies, headers, error texts), and in a base URL with user:pass@. Authorization values are
// replaced whole by a form that holds no key material; everything else has every known
// encoding of the key replaced.

// minRedactLen is the shortest key that is replaced inside bodies and texts: a shorter one
// ("1") would garble every number in a report, and its secrecy is nil anyway. The forms of
// the key the harness sends (report.Credentials) are replaced whatever the key's length.
const minRedactLen = 6

// redactedAuth stands for an Authorization value that holds key material the harness cannot
// describe or rebuild (the key in a mixed case, or inside base64 of more than the key).
const redactedAuth = "<redacted>"

// redactor replaces the key in what reports keep.
type redactor struct {
	key      string
	replacer *strings.Replacer // nil when the key is too short to replace in texts
	auth     map[string]report.Credential
}

func newRedactor(key string) *redactor {
	r := &redactor{key: key, auth: map[string]report.Credential{}}
	if key == "" {
		return r
	}
	for _, c := range report.Credentials {
		if _, ok := r.auth[c.Value(key)]; !ok { // a key without letters flips to itself
			r.auth[c.Value(key)] = c
		}
	}
	if len(key) < minRedactLen {
		return r
	}
	// Longest first, so that base64 of key+":" wins over the key's own base64 prefix.
	forms := map[string]string{key: report.KeyPlaceholder, url.QueryEscape(key): report.KeyPlaceholder, url.PathEscape(key): report.KeyPlaceholder}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		forms[enc.EncodeToString([]byte(key))] = "<base64 of the API key>"
		forms[enc.EncodeToString([]byte(key+":"))] = "<base64 of the API key:>"
		// The key inside a longer base64 text ("user:KEY" for Basic): the characters that
		// only the key's bytes decide, at each of the three alignments.
		for off := 0; off < 3; off++ {
			b := enc.EncodeToString(append(make([]byte, off), key...))
			from, to := 0, (off+len(key))/3*4
			if off > 0 {
				from = 4
			}
			if to-from >= minRedactLen {
				if _, ok := forms[b[from:to]]; !ok {
					forms[b[from:to]] = "<base64 of the API key>"
				}
			}
		}
	}
	// The key as a JSON string holds it (a target that echoes it with encoding/json, which
	// escapes <, > and & too).
	for _, esc := range jsonForms(key) {
		if _, ok := forms[esc]; !ok {
			forms[esc] = report.KeyPlaceholder
		}
	}
	olds := make([]string, 0, len(forms))
	for o := range forms {
		olds = append(olds, o)
	}
	sort.Slice(olds, func(i, j int) bool {
		return len(olds[i]) > len(olds[j]) || len(olds[i]) == len(olds[j]) && olds[i] < olds[j]
	})
	pairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		pairs = append(pairs, o, forms[o])
	}
	r.replacer = strings.NewReplacer(pairs...)
	return r
}

// text replaces every known encoding of the key in s, and the key in any letter case.
func (r *redactor) text(s string) string {
	if r.replacer == nil {
		return s
	}
	return foldReplace(r.replacer.Replace(s), r.key, report.KeyPlaceholder)
}

// jsonForms are the ways a JSON string can hold key, without its quotes: as encoding/json
// writes it (<, > and & escaped), without HTML escaping, and with "/" written "\/".
func jsonForms(key string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(key) != nil {
			continue
		}
		esc := strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)[1:]
		out = append(out, esc, strings.ReplaceAll(esc, "/", `\/`))
	}
	return out
}

// foldReplace replaces every occurrence of old in s, in any ASCII letter case, with repl.
// It allocates only when it replaces: it runs on every text a report keeps.
func foldReplace(s, old, repl string) string {
	if old == "" || old[0] >= 0x80 {
		return s // the exact forms are the replacer's; case is folded for ASCII only
	}
	first := string([]byte{lowerASCII(old[0]), upperASCII(old[0])})
	var b strings.Builder
	last := 0
	for i := 0; i+len(old) <= len(s); {
		j := strings.IndexAny(s[i:], first)
		if j < 0 || i+j+len(old) > len(s) {
			break
		}
		i += j
		if !strings.EqualFold(s[i:i+len(old)], old) {
			i++
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		i += len(old)
		last = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// authValue is how a report shows an Authorization value the harness sent.
func (r *redactor) authValue(v string) string {
	if c, ok := r.auth[v]; ok {
		return c.Shown
	}
	if !r.secret(v) {
		return v
	}
	parts, ok := r.keyParts(v)
	if !ok {
		return redactedAuth
	}
	for i := 1; i < len(parts); i += 2 {
		parts[i] = keyFormShown[parts[i]]
	}
	return strings.Join(parts, "")
}

// authCurl is the Authorization header as a shell word of a curl line, which sends the value
// the harness sent once $PETSTORE_API_KEY is set.
func (r *redactor) authCurl(v string) string {
	if c, ok := r.auth[v]; ok {
		return `"Authorization: ` + c.Curl(r.key) + `"`
	}
	if !r.secret(v) {
		return shellWord("Authorization: " + v)
	}
	parts, ok := r.keyParts(v)
	if !ok {
		return shellWord("Authorization: " + redactedAuth)
	}
	parts[0] = "Authorization: " + parts[0]
	for i := 1; i < len(parts); i += 2 {
		parts[i] = keyFormCurl[parts[i]]
	}
	return shellWord(parts...)
}

// secret reports whether v, an Authorization value that is none of report.Credentials, must
// not be written as it is. Every value the harness derives from the key is one of those
// credentials, so any other value is one it made up ("Bearer conformance-wrong-key") or one
// the command line gave (-H): a key no shorter than minRedactLen that it holds must not be
// shown. A shorter key ("KEY", which "conformance-wrong-key" holds by chance) is left in
// every text of a report, and left here too: such a value goes out and into the curl line as
// it was made up.
func (r *redactor) secret(v string) bool { return len(r.key) >= minRedactLen && r.holdsKey(v) }

// Forms of the key an Authorization value the harness did not build may hold, each with how
// a report shows it and the shell expansion that rebuilds it from $PETSTORE_API_KEY.
const (
	formKey      = "key"
	formUpper    = "upper"
	formLower    = "lower"
	formBase64   = "base64"
	formBase64Co = "base64:"
)

var (
	keyFormShown = map[string]string{formKey: report.KeyPlaceholder, formUpper: "<the API key in upper case>",
		formLower: "<the API key in lower case>", formBase64: "<base64 of the API key>", formBase64Co: "<base64 of the API key:>"}
	keyFormCurl = map[string]string{
		formKey:      "${" + strings.TrimPrefix(report.KeyPlaceholder, "$") + "}",
		formUpper:    `$(printf %s "` + report.KeyPlaceholder + `" | tr a-z A-Z)`,
		formLower:    `$(printf %s "` + report.KeyPlaceholder + `" | tr A-Z a-z)`,
		formBase64:   `$(printf %s "` + report.KeyPlaceholder + `" | base64 | tr -d '\n')`,
		formBase64Co: `$(printf '%s:' "` + report.KeyPlaceholder + `" | base64 | tr -d '\n')`,
	}
)

// keyParts splits v into text (even indexes) and the forms of the key between (odd indexes:
// formKey...), longest form first where two overlap; false when key material would remain
// in the text.
func (r *redactor) keyParts(v string) ([]string, bool) {
	forms := map[string]string{
		base64.StdEncoding.EncodeToString([]byte(r.key + ":")): formBase64Co,
		base64.StdEncoding.EncodeToString([]byte(r.key)):       formBase64,
		strings.ToUpper(r.key):                                 formUpper,
		strings.ToLower(r.key):                                 formLower,
		r.key:                                                  formKey, // last: where the key has no letters, it is its upper case too
	}
	olds := make([]string, 0, len(forms))
	for o := range forms {
		olds = append(olds, o)
	}
	sort.Slice(olds, func(i, j int) bool {
		return len(olds[i]) > len(olds[j]) || len(olds[i]) == len(olds[j]) && olds[i] < olds[j]
	})
	var parts []string
	text := 0
	for i := 0; i < len(v); {
		j := slices.IndexFunc(olds, func(o string) bool { return strings.HasPrefix(v[i:], o) })
		if j < 0 {
			i++
			continue
		}
		parts = append(parts, v[text:i], forms[olds[j]])
		i += len(olds[j])
		text = i
	}
	parts = append(parts, v[text:])
	for k := 0; k < len(parts); k += 2 {
		if r.holdsKey(parts[k]) {
			return nil, false
		}
	}
	return parts, true
}

// holdsKey reports whether v might carry the key: it contains it (in any case), or its
// credentials decode (base64) to something that does.
func (r *redactor) holdsKey(v string) bool {
	if r.key == "" {
		return false
	}
	lower, key := strings.ToLower(v), strings.ToLower(r.key)
	if strings.Contains(lower, key) {
		return true
	}
	_, cred, _ := strings.Cut(v, " ")
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(strings.TrimSpace(cred)); err == nil && strings.Contains(strings.ToLower(string(b)), key) {
			return true
		}
	}
	return false
}

// Caps on the headers an exchange keeps.
const (
	maxKeptHeaderValue = 1 << 10
	maxKeptHeaders     = 16 << 10
)

// header copies h for a report: Authorization replaced whole, the key replaced in the other
// values, each value cut at maxKeptHeaderValue and the whole at maxKeptHeaders.
func (r *redactor) header(h http.Header) http.Header {
	if len(h) == 0 {
		return nil
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(http.Header, len(h))
	budget := maxKeptHeaders
	for _, k := range keys {
		for _, v := range h[k] {
			if http.CanonicalHeaderKey(k) == "Authorization" {
				v = r.authValue(v)
			} else {
				v = r.text(v)
			}
			if len(v) > maxKeptHeaderValue {
				v = v[:maxKeptHeaderValue] + "... (cut)"
			}
			if budget -= len(k) + len(v); budget < 0 {
				out["X-Conformance-Cut"] = []string{"further headers left out"}
				return out
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// redactURL hides a password in u (user:pass@) and the key wherever it appears.
func (r *redactor) url(u *url.URL) string { return r.text(u.Redacted()) }

// Package secret holds the forms in which a secret value the user gives (an API key, an
// admin key, a header's value, a base URL's userinfo or query value) can reach an output, and
// masks them. It imports only the standard library, so that the harness, the proxy and the
// reference's double, which must not import the harness, mask with the same code; each of
// them picks its placeholders.
//
// The forms: the value as it is and in any ASCII letter case, URL-escaped (query and path
// escapes, upper or lower hex digits), JSON-escaped (with and without HTML escaping, "/" as
// "\/"), base64 (standard and URL alphabets, padded or not) of the value, of "value:" and of
// ":value" (Basic credentials), and the value inside a longer base64 text at each of the
// three alignments (the characters only the value's bytes decide).
//
// Where a form is masked depends on the secret's length, and this is the one line the package
// draws. A secret of any length is masked wherever it is a value: a header's value, a query
// parameter's value, a cookie, URL userinfo (Masker.Value, Masker.Query, Masker.URL); there
// a form is masked where it stands as a token of its own, bounded by the ends of the value or
// by a character that is neither a letter nor a digit ("Bearer Qz7", "a=Qz7; b=1"). In free
// text (bodies, error messages; Masker.Text) a secret shorter than MinTextLen is masked only
// where the text itself shows it as a value, right after "=" (a query parameter or a cookie
// quoted in a message, as net/http's errors quote the URL) or "//" (userinfo), and left
// elsewhere: a key "1" or "id" would garble every number or word of a report, and a base64
// fragment of two or three characters would match inside any other base64. A secret of at
// least MinTextLen is masked in every form wherever it occurs.
package secret

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// MinTextLen is the shortest secret masked inside free text (see the package doc).
const MinTextLen = 6

// Secret is a value to mask and what replaces it.
type Secret struct {
	// Value is the secret; an empty one masks nothing.
	Value string
	// Placeholder replaces the value in every form that is not base64.
	Placeholder string
	// Base64 replaces base64 of the value (and of ":value", and the value inside a longer
	// base64 text); empty means Placeholder.
	Base64 string
	// Base64Colon replaces base64 of "value:" (Basic credentials with the value as user);
	// empty means Base64.
	Base64Colon string
}

// form is one written form of a secret and what replaces it.
type form struct {
	text, repl string
	fold       bool // matched in any ASCII letter case
}

// Forms are the written forms of v this package masks, exact (the letter case of v aside),
// longest first: what a test looks for in an output.
func Forms(v string) []string {
	var out []string
	for _, f := range forms(Secret{Value: v}, true) {
		out = append(out, f.text)
	}
	return out
}

// forms lists the forms of s; inner adds the value inside longer base64 texts, where such a
// fragment is at least MinTextLen long.
func forms(s Secret, inner bool) []form {
	v := s.Value
	if v == "" {
		return nil
	}
	b64, colon := s.Base64, s.Base64Colon
	if b64 == "" {
		b64 = s.Placeholder
	}
	if colon == "" {
		colon = b64
	}
	seen := map[string]bool{}
	var out []form
	add := func(text, repl string, fold bool) {
		if text != "" && !seen[text] {
			seen[text] = true
			out = append(out, form{text, repl, fold})
		}
	}
	add(v, s.Placeholder, true)
	for _, esc := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		add(esc, s.Placeholder, false)
		add(lowerHex(esc), s.Placeholder, false)
	}
	for _, esc := range jsonForms(v) {
		add(esc, s.Placeholder, false)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		add(enc.EncodeToString([]byte(v+":")), colon, false)
		add(enc.EncodeToString([]byte(":"+v)), b64, false)
		add(enc.EncodeToString([]byte(v)), b64, false)
		if !inner {
			continue
		}
		for off := 0; off < 3; off++ {
			b := enc.EncodeToString(append(make([]byte, off), v...))
			from, to := 0, (off+len(v))/3*4
			if off > 0 {
				from = 4
			}
			if to-from >= MinTextLen {
				add(b[from:to], b64, false)
			}
		}
	}
	// Longest first, so that base64 of "value:" wins over the value's own base64 prefix.
	slices.SortStableFunc(out, func(a, b form) int { return len(b.text) - len(a.text) })
	return out
}

// lowerHex writes the hex digits of percent escapes in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerASCII(b[i+1]), lowerASCII(b[i+2])
		}
	}
	return string(b)
}

// jsonForms are the ways a JSON string can hold v, without its quotes: as encoding/json
// writes it (<, > and & escaped), without HTML escaping, and with "/" written "\/".
func jsonForms(v string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(v) != nil {
			continue
		}
		esc := strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)[1:]
		out = append(out, esc, strings.ReplaceAll(esc, "/", `\/`))
	}
	return out
}

// Masker masks a set of secrets. The zero value and nil mask nothing.
type Masker struct {
	secrets []Secret
	text    *strings.Replacer // exact forms of the secrets of at least MinTextLen
	exact   []string          // the same forms: a text that holds none is not copied
	fold    []form            // the same secrets as they are, matched in any letter case
	value   []form            // every form of every secret, for tokens of values
	short   bool              // some secret is shorter than MinTextLen
}

// New returns a masker of secrets; empty values are left out, and of two secrets with the
// same value the first one's placeholders are used.
func New(secrets ...Secret) *Masker {
	m := &Masker{}
	seen := map[string]bool{}
	var pairs []string
	var long []form
	for _, s := range secrets {
		if s.Value == "" || seen[s.Value] {
			continue
		}
		seen[s.Value] = true
		m.secrets = append(m.secrets, s)
		m.value = append(m.value, forms(s, false)...)
		m.short = m.short || len(s.Value) < MinTextLen
		if len(s.Value) >= MinTextLen {
			for _, f := range forms(s, true) {
				long = append(long, f)
				if f.fold {
					m.fold = append(m.fold, f)
				}
			}
		}
	}
	slices.SortStableFunc(long, func(a, b form) int { return len(b.text) - len(a.text) })
	for _, f := range long {
		pairs = append(pairs, f.text, f.repl)
		m.exact = append(m.exact, f.text)
	}
	if len(pairs) > 0 {
		m.text = strings.NewReplacer(pairs...)
	}
	slices.SortStableFunc(m.value, func(a, b form) int { return len(b.text) - len(a.text) })
	return m
}

// Secrets are the secrets m masks.
func (m *Masker) Secrets() []Secret {
	if m == nil {
		return nil
	}
	return m.secrets
}

// With returns a masker of m's secrets and more.
func (m *Masker) With(more ...Secret) *Masker {
	return New(append(slices.Clone(m.Secrets()), more...)...)
}

// Text masks every form of every secret of at least MinTextLen in free text s, and a shorter
// one where the text shows it as a value: a token right after "=" (a query parameter or a
// cookie in a URL or a message) or right after "//" (a URL's userinfo).
func (m *Masker) Text(s string) string {
	if m == nil {
		return s
	}
	if m.text != nil && slices.ContainsFunc(m.exact, func(f string) bool { return strings.Contains(s, f) }) {
		s = m.text.Replace(s) // Replace copies s even when it replaces nothing
	}
	for _, f := range m.fold {
		s = foldReplace(s, f.text, f.repl)
	}
	if !m.short {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 1; i < len(s); i++ {
		if s[i-1] != '=' && (s[i-1] != '/' || i < 2 || s[i-2] != '/') {
			continue
		}
		n, repl := m.tokenAt(s, i)
		if n == 0 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		i += n - 1
		last = i + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Value masks a header's value, a cookie or one query parameter's value: Text, and every form
// of every secret, whatever its length, where it stands as a token.
func (m *Masker) Value(v string) string {
	if m == nil || len(m.value) == 0 {
		return v
	}
	v = m.Text(v)
	var b strings.Builder
	last := 0
	for i := 0; i < len(v); {
		if i > 0 && alnum(v[i-1]) {
			i++
			continue
		}
		n, repl := m.tokenAt(v, i)
		if n == 0 {
			i++
			continue
		}
		b.WriteString(v[last:i])
		b.WriteString(repl)
		i += n
		last = i
	}
	if last == 0 {
		return v
	}
	b.WriteString(v[last:])
	return b.String()
}

// tokenAt is the length of the form of a secret that stands as a token at v[i:], and what
// replaces it; 0 when none does.
func (m *Masker) tokenAt(v string, i int) (int, string) {
	for _, f := range m.value {
		end := i + len(f.text)
		if end > len(v) || end < len(v) && alnum(v[end]) {
			continue
		}
		if v[i:end] == f.text || f.fold && strings.EqualFold(v[i:end], f.text) {
			return len(f.text), f.repl
		}
	}
	return 0, ""
}

// Holds reports whether s holds a secret: a form of one as a token or, for one of at least
// MinTextLen, anywhere; or s (after a scheme, as in "Basic ...") decodes from base64 to a
// text that does.
func (m *Masker) Holds(s string) bool {
	if m == nil || len(m.secrets) == 0 {
		return false
	}
	if m.Value(s) != s {
		return true
	}
	_, cred, _ := strings.Cut(s, " ")
	for _, t := range []string{s, cred} {
		t = strings.TrimSpace(t)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(t); err == nil && len(b) > 0 && m.holdsDecoded(string(b)) {
				return true
			}
		}
	}
	return false
}

// holdsDecoded reports whether a decoded credential holds a secret, in any letter case.
func (m *Masker) holdsDecoded(s string) bool {
	lower := strings.ToLower(s)
	for _, sec := range m.secrets {
		if strings.Contains(lower, strings.ToLower(sec.Value)) {
			return true
		}
	}
	return false
}

// Query masks the values of a raw query string (a=1&b=2), keeping its order and encoding;
// the names are masked as free text. It returns raw itself when nothing is masked.
func (m *Masker) Query(raw string) string {
	if m == nil || raw == "" || len(m.value) == 0 {
		return raw
	}
	var b strings.Builder
	changed := false
	for rest := raw; ; {
		kv, tail, more := strings.Cut(rest, "&")
		k, v, ok := strings.Cut(kv, "=")
		part := m.Value(kv)
		if ok {
			part = m.Text(k) + "=" + m.Value(v)
		}
		if part != kv && !changed {
			changed = true
			b.WriteString(raw[:len(raw)-len(rest)])
		}
		if changed {
			b.WriteString(part)
			if more {
				b.WriteByte('&')
			}
		}
		if !more {
			break
		}
		rest = tail
	}
	if !changed {
		return raw
	}
	return b.String()
}

// URL writes u with its userinfo and query values masked as values and the rest as free
// text; a password m does not know is written as url.URL.Redacted writes it.
func (m *Masker) URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.RawQuery = m.Query(c.RawQuery)
	userinfo := ""
	if c.User != nil {
		userinfo = m.Value(c.User.Username())
		if p, ok := c.User.Password(); ok {
			if masked := m.Value(p); masked != p {
				p = masked
			} else {
				p = "xxxxx"
			}
			userinfo += ":" + p
		}
		c.User = nil
	}
	s := c.String()
	if userinfo != "" {
		scheme := c.Scheme + "://"
		s = strings.Replace(s, scheme, scheme+userinfo+"@", 1)
	}
	return m.Text(s)
}

// foldReplace replaces every occurrence of old in s, in any ASCII letter case, with repl.
// It allocates only when it replaces.
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

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

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

package exchange

import (
	"encoding/base64"
	"net/http"
	"net/url"
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
// ("1") would garble every number in a report, and its secrecy is nil anyway. Authorization
// headers are replaced whole whatever the key's length.
const minRedactLen = 6

// redactedAuth stands for an Authorization value that holds key material the harness cannot
// describe.
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

// text replaces every known encoding of the key in s.
func (r *redactor) text(s string) string {
	if r.replacer == nil {
		return s
	}
	return r.replacer.Replace(s)
}

// authValue is how a report shows an Authorization value the harness sent.
func (r *redactor) authValue(v string) string {
	if c, ok := r.auth[v]; ok {
		return c.Shown
	}
	if r.holdsKey(v) {
		return redactedAuth
	}
	return v
}

// authCurl is the Authorization header as a double-quoted shell word of a curl line.
func (r *redactor) authCurl(v string) string {
	if c, ok := r.auth[v]; ok {
		return `"Authorization: ` + c.Curl(r.key) + `"`
	}
	if r.holdsKey(v) {
		return shellQuote("Authorization: " + redactedAuth)
	}
	return shellQuote("Authorization: " + v)
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

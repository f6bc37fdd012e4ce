package exchange

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/secret"
)

// Redaction. The key reaches a report in three ways: in the Authorization header the harness
// sends (plain, base64 for Basic, altered for the near-key probes), in what a target echoes
// (bodies, headers, error texts), and in a base URL with user:pass@. Authorization values are
// replaced whole by a form that holds no key material; everything else is masked by
// internal/secret, with the key and every other value the user gave (Secrets: the -H values,
// the base URL's userinfo and query values, the admin key) as secrets, each shown as the
// environment variable a curl line reads it from ($PETSTORE_API_KEY, $PETSTORE_HEADER_1).
// A key of any length is masked where it is a value (a header's, a query parameter's, a
// cookie, userinfo); in bodies and texts one shorter than secret.MinTextLen is left, as the
// package doc of internal/secret says why.

// redactedAuth stands for an Authorization value that holds key material the harness cannot
// describe or rebuild (the key in a mixed case, or inside base64 of more than the key).
const redactedAuth = "<redacted>"

// SecretVar is a value given to a run that no output shows: reports write Var's placeholder
// ("$" + Var) instead, and curl lines read it from the environment variable Var.
type SecretVar struct {
	Var   string // PETSTORE_HEADER_1
	What  string // what the value is: "the value of the header X-Gateway"
	Value string
	// Also is another form of the value that is masked too, wherever it is echoed: a query
	// value's decoded form, where the user wrote it percent-encoded ("Q%2BSECRET%20v" in the
	// URL, and so in the variable a curl line puts there; "Q+SECRET v" decoded).
	Also string
}

// Placeholder is what reports write for the value.
func (v SecretVar) Placeholder() string { return "$" + v.Var }

// Secrets are the values given to a run that no output may show.
type Secrets struct {
	BaseURL  string      // its userinfo and query values
	APIKey   string      // $PETSTORE_API_KEY
	AdminKey string      // $PETSTORE_ADMIN_KEY
	Headers  http.Header // each value, $PETSTORE_HEADER_1... in the order of the names
}

// Vars are the secrets other than the API key, each with its variable: the ones a user
// exports, beside PETSTORE_API_KEY, to run the curl lines of a report.
func (s Secrets) Vars() []SecretVar {
	var out []SecretVar
	if s.AdminKey != "" {
		out = append(out, SecretVar{Var: "PETSTORE_ADMIN_KEY", What: "the admin key", Value: s.AdminKey})
	}
	names := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	n := 0
	for _, k := range names {
		for _, v := range s.Headers[k] {
			if strings.TrimSpace(v) == "" {
				continue
			}
			n++
			out = append(out, SecretVar{Var: fmt.Sprintf("PETSTORE_HEADER_%d", n), What: "the value of the header " + k, Value: strings.TrimSpace(v)})
		}
	}
	if u, err := url.Parse(s.BaseURL); err == nil {
		out = append(out, urlVars(u)...)
	}
	return out
}

// urlVars are the secrets of a base URL: its userinfo and its query values.
func urlVars(u *url.URL) []SecretVar {
	var out []SecretVar
	if u.User != nil {
		if name := u.User.Username(); name != "" {
			out = append(out, SecretVar{Var: "PETSTORE_URL_USER", What: "the user of the base URL", Value: name})
		}
		if p, ok := u.User.Password(); ok && p != "" {
			out = append(out, SecretVar{Var: "PETSTORE_URL_PASSWORD", What: "the password of the base URL", Value: p})
		}
	}
	n := 0
	for _, kv := range strings.Split(u.RawQuery, "&") {
		name, v, _ := strings.Cut(kv, "=")
		decoded, err := url.QueryUnescape(v)
		if err != nil || decoded == v {
			decoded = ""
		}
		if v == "" {
			continue
		}
		what := "the value of " + name + "= in the base URL's query"
		if decoded != "" {
			what += ", percent-encoded as written there"
		}
		n++
		out = append(out, SecretVar{Var: fmt.Sprintf("PETSTORE_QUERY_%d", n), What: what, Value: v, Also: decoded})
	}
	return out
}

// keySecret is the API key as internal/secret masks it, with the placeholders reports
// have always written.
func keySecret(key string) secret.Secret {
	return secret.Secret{Value: key, Placeholder: report.KeyPlaceholder, Base64: "<base64 of the API key>", Base64Colon: "<base64 of the API key:>"}
}

func varSecrets(vars []SecretVar) []secret.Secret {
	var out []secret.Secret
	for _, v := range vars {
		for _, value := range []string{v.Value, v.Also} {
			out = append(out, secret.Secret{Value: value, Placeholder: v.Placeholder(), Base64: "<base64 of " + v.Placeholder() + ">"})
		}
	}
	return out
}

// redactor replaces the key, and every other secret given, in what reports keep.
type redactor struct {
	key  string
	m    *secret.Masker // the key first, then Secrets.Vars
	keyM *secret.Masker // the key alone
	vars []string       // the placeholders of the secrets, the key's first
	auth map[string]report.Credential
}

func newRedactor(key string) *redactor { return Secrets{APIKey: key}.redactor() }

func (s Secrets) redactor() *redactor {
	vars := s.Vars()
	r := &redactor{key: s.APIKey, auth: map[string]report.Credential{}, keyM: secret.New(keySecret(s.APIKey)),
		m: secret.New(append([]secret.Secret{keySecret(s.APIKey)}, varSecrets(vars)...)...), vars: []string{report.KeyPlaceholder}}
	for _, v := range vars {
		r.vars = append(r.vars, v.Placeholder())
	}
	if s.APIKey == "" {
		return r
	}
	for _, c := range report.Credentials {
		if _, ok := r.auth[c.Value(s.APIKey)]; !ok { // a key without letters flips to itself
			r.auth[c.Value(s.APIKey)] = c
		}
	}
	return r
}

// text replaces every secret in free text s (internal/secret: a short one is left).
func (r *redactor) text(s string) string { return r.m.Text(s) }

// value replaces every secret in a header's value or a query parameter's, whatever its length.
func (r *redactor) value(s string) string { return r.m.Value(s) }

// authValue is how a report shows an Authorization value the harness sent.
func (r *redactor) authValue(v string) string {
	if c, ok := r.auth[v]; ok {
		return c.Shown
	}
	if !r.secret(v) {
		return r.value(v)
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
func (r *redactor) authCurl(v string) string { return r.authWord("Authorization: ", v) }

// authWord is prefix and the Authorization value v as one shell word, which writes the value
// the harness sent once $PETSTORE_API_KEY is set.
func (r *redactor) authWord(prefix, v string) string {
	if c, ok := r.auth[v]; ok {
		return `"` + prefix + c.Curl(r.key) + `"`
	}
	if !r.secret(v) {
		return r.shellQuote(prefix + r.value(v))
	}
	parts, ok := r.keyParts(v)
	if !ok {
		return shellWord(prefix + redactedAuth)
	}
	parts[0] = prefix + parts[0]
	for i := 1; i < len(parts); i += 2 {
		parts[i] = keyFormCurl[parts[i]]
	}
	return shellWord(parts...)
}

// secret reports whether v, an Authorization value that is none of report.Credentials, must
// not be written as it is. Every value the harness derives from the key is one of those
// credentials, so any other value is one it made up ("Bearer conformance-wrong-key") or one
// the command line gave (-H): a key it holds must not be shown, whatever the key's length
// (a short one where it stands as a token, as internal/secret masks values).
func (r *redactor) secret(v string) bool { return r.keyM.Holds(v) }

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
	return r.key != "" && (strings.Contains(strings.ToLower(v), strings.ToLower(r.key)) || r.keyM.Holds(v))
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
				v = r.value(v)
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

// url writes a request's URL with its userinfo and the values of its query that are secrets
// masked, and every secret replaced elsewhere.
func (r *redactor) url(u *url.URL) string { return r.m.URL(u) }

// baseURL writes a base URL as url does, its own userinfo and query values masked as well
// whether given or not, so that every redactor writes a base URL alike (a replay file's
// target is compared with the base URL given to replay, written by a redactor without it).
func (r *redactor) baseURL(u *url.URL) string { return r.m.With(varSecrets(urlVars(u))...).URL(u) }

package proxy

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/petstore/petstore/internal/secret"
)

// mask replaces a credential wherever the proxy writes something down.
const mask = "***"

// maxSecrets bounds the keys remembered for scrubbing; headers are masked regardless.
const maxSecrets = 64

// sensitiveHeaders are masked in HAR files; their values are also remembered as secrets so
// that a server echoing a key in a body or an error message does not leak it either.
var sensitiveHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key"}

// sensitiveParams are query parameters that commonly carry a key.
var sensitiveParams = map[string]bool{
	"api_key": true, "apikey": true, "api-key": true, "key": true, "token": true, "access_token": true,
}

// secrets remembers the API keys seen in traffic (and the one in PETSTORE_API_KEY), and
// masks them, with internal/secret's forms, in every text the proxy logs, reports or
// records: a key of any length where it is a value (a header's, a query parameter's), one of
// at least secret.MinTextLen in free text too (bodies, messages), as that package's doc says.
//
// Of these, the keys (the Authorization credential, X-Api-Key, a query parameter named for a
// key, the secrets given) are what the judge of a client's requests looks for elsewhere in a
// request (client/auth-bearer); a cookie or a Proxy-Authorization credential is masked but
// is not the API key.
type secrets struct {
	mu   sync.RWMutex
	list []string
	m    *secret.Masker // of list, rebuilt when a secret is learned
	keys *secret.Masker // of the keys among list
	// recorded: the traffic comes from a HAR file, whose keys are masked already ("***"):
	// a value that is the mask alone stands for a key.
	recorded bool
}

// add remembers a secret; addKey one that is an API key.
func (s *secrets) add(v string)    { s.remember(v, false) }
func (s *secrets) addKey(v string) { s.remember(v, true) }

func (s *secrets) remember(v string, key bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sec := secret.Secret{Value: v, Placeholder: mask}
	if key && len(s.keys.Secrets()) < maxSecrets && !slices.Contains(s.keys.Secrets(), sec) {
		s.keys = s.keys.With(sec)
	}
	if len(s.list) < maxSecrets && !slices.Contains(s.list, v) {
		s.list = append(s.list, v)
		s.m = s.m.With(sec)
	}
}

// schemeNames are authentication schemes (the IANA registry's, lower-cased): an
// Authorization value that is one of them alone carries no credential, and learning it would
// mask the scheme of every later request that does ("*** ***").
var schemeNames = map[string]bool{"basic": true, "bearer": true, "digest": true, "dpop": true, "hoba": true,
	"mutual": true, "negotiate": true, "ntlm": true, "oauth": true, "privatetoken": true, "scram-sha-1": true,
	"scram-sha-256": true, "vapid": true}

// schemeOnly reports whether an Authorization value names a scheme and nothing else.
func schemeOnly(v string) bool { return schemeNames[strings.ToLower(strings.TrimSpace(v))] }

// keyHeaders are the sensitiveHeaders that carry the API key. A value of a query parameter
// named token or key is masked like every credential but not taken for the key: taken, it
// made a well-behaved client's later requests fail wherever the same text came again (?key=20
// failed every ?limit=20).
var keyHeaders = map[string]bool{"Authorization": true, "X-Api-Key": true}

// learn remembers the credentials req carries.
func (s *secrets) learn(h http.Header, rawQuery string) {
	for _, name := range sensitiveHeaders {
		for _, v := range h.Values(name) {
			if scheme, cred, ok := strings.Cut(v, " "); ok && name != "Cookie" && name != "Set-Cookie" && scheme != "" {
				v = cred
			}
			if schemeOnly(v) {
				continue
			}
			s.remember(v, keyHeaders[name])
		}
	}
	for _, kv := range strings.Split(rawQuery, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok && sensitiveParams[strings.ToLower(k)] {
			s.add(v)
		}
	}
}

// keyValue is the judge's masking of a header field's value: a value that holds a key comes
// back changed (and, in a HAR file, one masked already).
func (s *secrets) keyValue(v string) string {
	if s.recorded && strings.TrimSpace(v) == mask {
		return ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keys.Value(v)
}

// keyQuery is the judge's masking of a raw query: a query one of whose values is a key comes
// back changed (and, in a HAR file, one whose value is masked already).
func (s *secrets) keyQuery(q string) string {
	if s.recorded {
		for _, kv := range strings.Split(q, "&") {
			if _, v, _ := strings.Cut(kv, "="); v == mask || strings.EqualFold(v, url.QueryEscape(mask)) {
				return ""
			}
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keys.Query(q)
}

// scrub masks every remembered secret in a text (a body, a message, a URL).
func (s *secrets) scrub(text string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.Text(text)
}

// value masks every remembered secret, whatever its length, in a header's or a query
// parameter's value.
func (s *secrets) value(v string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.Value(v)
}

// url masks every remembered secret in a URL's text, its query values whatever their length.
func (s *secrets) url(u string) string {
	path, query, ok := strings.Cut(u, "?")
	if !ok {
		return s.scrub(u)
	}
	return s.scrub(path) + "?" + s.query(query)
}

// query masks every remembered secret in the values of a raw query, whatever their length.
func (s *secrets) query(q string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.Query(q)
}

// maskHeader returns a copy of h with credentials masked. Authorization keeps its scheme
// ("Bearer ***"), so a masked HAR still shows that a key was sent, and re-checking it gives
// the same verdict on authentication.
func maskHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, name := range sensitiveHeaders {
		vals := out.Values(name)
		if len(vals) == 0 {
			continue
		}
		masked := make([]string, len(vals))
		for i, v := range vals {
			masked[i] = mask
			if schemeOnly(v) {
				masked[i] = v
				continue
			}
			if scheme, cred, ok := strings.Cut(v, " "); ok && (name == "Authorization" || name == "Proxy-Authorization") {
				masked[i] = scheme + " " + mask
				if strings.TrimSpace(cred) == "" {
					masked[i] = v
				}
			}
		}
		out[http.CanonicalHeaderKey(name)] = masked
	}
	return out
}

// maskQuery masks the values of sensitiveParams in a raw query, keeping order and encoding.
func maskQuery(raw string) string {
	parts := strings.Split(raw, "&")
	for i, kv := range parts {
		if k, _, ok := strings.Cut(kv, "="); ok && sensitiveParams[strings.ToLower(k)] {
			parts[i] = k + "=" + mask
		}
	}
	return strings.Join(parts, "&")
}

// judged is r as the judge of a client's requests is to see it: in a HAR file, without the
// masked values of the header fields that carry a secret but not the key (a cookie), which
// keyValue would take for a key.
func (s *secrets) judged(r *http.Request) *http.Request {
	if !s.recorded {
		return r
	}
	out := r.Clone(r.Context())
	for _, name := range sensitiveHeaders {
		if keyHeaders[name] {
			continue
		}
		if vs := out.Header.Values(name); slices.Contains(vs, mask) {
			out.Header[http.CanonicalHeaderKey(name)] = slices.DeleteFunc(slices.Clone(vs), func(v string) bool { return v == mask })
		}
	}
	return out
}

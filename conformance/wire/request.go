// Package wire is the request value every sender of the harness builds: method, target,
// query, header fields, body, framing and the key's presentation, varied part by part by the
// case generator and the request anatomy, and built into an HTTP request only by the session
// (conformance/exchange), the one door to the target.
package wire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/petstore/petstore/conformance/report"
)

// Request is one request as the harness sends it, relative to the target's base URL: the
// one value every sender builds (a case, a preparation, a clean-up, an exploration step, the
// probe that asks whether the target still answers) and the session sends. The case
// generator and the request anatomy vary it part by part.
type Request struct {
	Method string
	// Path is the path below the base URL, already percent-encoded ("/pets/1"); a query
	// after "?" goes before Query's parameters.
	Path string
	// Target, when set, is the path sent, a template in which {base} stands for the base
	// URL's path ("/v1") and {path} for Path: "{base}/.{path}", "{base}{path}/". Empty: the
	// base path and Path.
	Target string
	Query  []Param
	// ExtraQuery is query text appended after Query's parameters exactly as written (the
	// anatomy's "limit[]=5", "conformance", "=1").
	ExtraQuery string
	// Header are sent as written, the name's letter case too; a value may hold Key.
	Header []Header
	// Host, when set, is the Host field sent instead of the base URL's host.
	Host string
	Auth Auth
	// KeyAt offers the key somewhere else too (the zero Place: nowhere).
	KeyAt Place
	// Body is nil for a request without one.
	Body *Body
	// Chunked sends the body with Transfer-Encoding: chunked and no Content-Length; by
	// default a body goes with its length.
	Chunked bool
	// Raw, when set, is what the request sends that Go's client refuses to write (no Host,
	// two, a Content-Length or Transfer-Encoding of the request's choosing, a target no URL
	// parser takes): the session writes such a request's bytes itself.
	Raw *Raw
}

// Raw is the wire form of a request that Go's client cannot send: the session writes it
// on a connection of its own, reads one answer and closes (GET and HEAD only). The zero
// Raw sends what Go would.
type Raw struct {
	// Hosts, when HostSet, are the Host lines sent instead of the base URL's host: none
	// (no Host at all), "" (an empty one), two. {host} stands for the base URL's host.
	Hosts   []string
	HostSet bool
	// Lengths, when set, are the Content-Length lines sent, as written, instead of the
	// body's length.
	Lengths []string
	// TransferEncoding, when set, is the Transfer-Encoding line sent, as written; the body
	// is chunked when its last coding is chunked (an empty body is the last chunk alone),
	// sent as it is otherwise.
	TransferEncoding string
	// Target, when set, is the request-target sent verbatim, a template as Request.Target
	// is ("{base}{path}%zz"); the request is built, guarded and recorded with the
	// operation's path.
	Target string
	// CloseWrite closes the sending side of the connection once the request is written: the
	// bytes a longer Content-Length announced never come, and the server reads the end of
	// them at once instead of waiting out a timeout of its own. An incomplete request may be
	// answered or not (RFC 9112 §8): no answer is no finding.
	CloseWrite bool
}

// HostLines are the Host lines r sends for a base URL's host.
func (r *Raw) HostLines(host string) []string {
	if r == nil || !r.HostSet {
		return []string{host}
	}
	out := make([]string, len(r.Hosts))
	for i, h := range r.Hosts {
		out[i] = strings.ReplaceAll(h, "{host}", host)
	}
	return out
}

// TargetPath is the request-target r sends for the base path and the request's path
// ("/v1", "/pets"), or "" when it sends the request's own.
func (r *Raw) TargetPath(basePath, path string) string {
	if r == nil || r.Target == "" {
		return ""
	}
	return strings.NewReplacer("{base}", basePath, "{path}", path).Replace(r.Target)
}

// ChunksLast says whether a Transfer-Encoding value's last coding is chunked.
func ChunksLast(te string) bool {
	codings := strings.Split(te, ",")
	return strings.EqualFold(strings.TrimSpace(codings[len(codings)-1]), "chunked")
}

// ChunkedBody is body in chunked transfer coding (RFC 9112 §7.1): one chunk and the last.
func ChunkedBody(body []byte) []byte {
	var b bytes.Buffer
	if len(body) > 0 {
		fmt.Fprintf(&b, "%x\r\n", len(body))
		b.Write(body)
		b.WriteString("\r\n")
	}
	b.WriteString("0\r\n\r\n")
	return b.Bytes()
}

// Clone is r with slices and body of its own.
func (r Request) Clone() Request {
	r.Query = slices.Clone(r.Query)
	r.Header = slices.Clone(r.Header)
	r.Body = r.Body.clone()
	if r.Raw != nil {
		raw := *r.Raw
		raw.Hosts, raw.Lengths = slices.Clone(raw.Hosts), slices.Clone(raw.Lengths)
		r.Raw = &raw
	}
	return r
}

// RawQuery is the query string as sent.
func (r Request) RawQuery() string {
	parts := make([]string, len(r.Query), len(r.Query)+1)
	for i, p := range r.Query {
		parts[i] = p.Name + "=" + p.Value
	}
	if r.ExtraQuery != "" {
		parts = append(parts, r.ExtraQuery)
	}
	return strings.Join(parts, "&")
}

// Key stands for the key in a header value ("Bearer {key}"): the request anatomy's ways of
// writing the Authorization field otherwise than Auth does.
const Key = "{key}"

// Auth is how a request presents the API key; the session, which knows the key, writes it.
type Auth int

// Ways of presenting the key.
const (
	AuthKey          Auth = iota // Authorization: Bearer <key>
	AuthNone                     // no Authorization header
	AuthEmpty                    // Authorization with an empty value
	AuthSchemeOnly               // Authorization: Bearer
	AuthOtherScheme              // Authorization: Token <key>
	AuthJunkAfter                // Authorization: Bearer <key> junk
	AuthWrongKey                 // Authorization: Bearer conformance-wrong-key
	AuthLowerScheme              // Authorization: bearer <key>
	AuthDoubleSpace              // Authorization: Bearer  <key>
	AuthTwice                    // two Authorization fields, both Bearer <key>
	AuthWrongThenKey             // two Authorization fields: a wrong key, then the key
	AuthOddToken                 // Authorization: Bearer conformance-wrong!key
	AuthQuotedKey                // Authorization: Bearer "<key>"
	AuthKeyAlone                 // Authorization: <key>, no scheme
)

// WrongKey is a bearer token no target should accept.
const WrongKey = "conformance-wrong-key"

// authValues are the Authorization fields a request sends.
func authValues(a Auth, key string) []string {
	switch a {
	case AuthKey:
		return []string{report.CredBearer.Value(key)}
	case AuthEmpty:
		return []string{""}
	case AuthSchemeOnly:
		return []string{"Bearer"}
	case AuthOtherScheme:
		return []string{report.CredToken.Value(key)}
	case AuthJunkAfter:
		return []string{report.CredJunkAfter.Value(key)}
	case AuthLowerScheme:
		return []string{report.CredBearerLower.Value(key)}
	case AuthDoubleSpace:
		return []string{report.CredDoubleSpace.Value(key)}
	case AuthTwice:
		return []string{report.CredBearer.Value(key), report.CredBearer.Value(key)}
	case AuthWrongThenKey:
		return []string{"Bearer " + WrongKey, report.CredBearer.Value(key)}
	case AuthOddToken:
		return []string{"Bearer conformance-wrong!key"}
	case AuthWrongKey:
		return []string{"Bearer " + WrongKey}
	case AuthQuotedKey:
		return []string{report.CredQuoted.Value(key)}
	case AuthKeyAlone:
		return []string{report.CredKeyAlone.Value(key)}
	}
	return nil
}

// Place is where else than the Authorization field a request offers the key: a query
// parameter, a cookie or another header field, under Name, after Prefix ("Bearer " in a
// field named like Authorization). The zero Place offers it nowhere else.
type Place struct{ In, Name, Prefix string }

// Where a Place is.
const (
	InQuery  = "query"
	InCookie = "cookie"
	InHeader = "header"
)

func (p Place) String() string {
	switch p.In {
	case InQuery:
		return "?" + p.Name + "=<key>"
	case InCookie:
		return "Cookie: " + p.Name + "=<key>"
	case InHeader:
		return p.Name + ": " + p.Prefix + "<key>"
	}
	return "nowhere else"
}

// Param is one query parameter as sent: name and value already percent-encoded.
type Param struct{ Name, Value string }

// Header is one request header field.
type Header struct{ Name, Value string }

// Field is one member of a JSON object body, in order (a name may come twice).
type Field struct {
	Name string
	// JSON is the member's value as written.
	JSON string
	// Want are the values (as JSON) a service that answers 2xx may have stored for Name;
	// nil: not compared (an unknown property, a default the document leaves open).
	Want []string
}

// Body is a request body: an object built from Fields, or Raw bytes. When Raw is set,
// Fields still describe what a service that accepts it must store.
type Body struct {
	Fields []Field
	Raw    []byte
	// Pad, when set, is a member written before the closing brace of the object the body
	// otherwise is: the oversized body's megabyte, made when the body is sent, not with every
	// case generated.
	Pad string
}

// JSONBody is a body of raw JSON bytes (v marshalled by the caller).
func JSONBody(b []byte) *Body { return &Body{Raw: b} }

// Bytes is the body as sent.
func (b *Body) Bytes() []byte {
	out := b.object()
	if n := len(out); b.Pad != "" && n > 0 && out[n-1] == '}' {
		return append(append(append(make([]byte, 0, n+len(b.Pad)), out[:n-1]...), b.Pad...), '}')
	}
	return out
}

func (b *Body) object() []byte {
	if b.Raw != nil {
		return b.Raw
	}
	var s strings.Builder
	s.WriteByte('{')
	for i, f := range b.Fields {
		if i > 0 {
			s.WriteByte(',')
		}
		fmt.Fprintf(&s, "%q:%s", f.Name, f.JSON)
	}
	s.WriteByte('}')
	return []byte(s.String())
}

// Wants maps each compared field to the values a service may have stored for it. A field
// sent twice may hold either value; a field any of whose members is not compared is left out.
func (b *Body) Wants() map[string][]string {
	out := map[string][]string{}
	skip := map[string]bool{}
	for _, f := range b.Fields {
		if f.Want == nil {
			skip[f.Name] = true
			continue
		}
		out[f.Name] = append(out[f.Name], f.Want...)
	}
	for n := range skip {
		delete(out, n)
	}
	return out
}

func (b *Body) clone() *Body {
	if b == nil {
		return nil
	}
	return &Body{Fields: slices.Clone(b.Fields), Raw: b.Raw, Pad: b.Pad}
}

// HTTP builds the HTTP request of r against baseURL (the target's base URL, no query) with
// key: the path and query exactly as written, the key presented as r says.
func (r Request) HTTP(ctx context.Context, baseURL string, key string) (*http.Request, error) {
	target := baseURL + r.Path
	if r.Target != "" {
		b, err := url.Parse(baseURL)
		if err != nil {
			return nil, err
		}
		basePath := b.EscapedPath()
		b.Path, b.RawPath = "", ""
		target = b.String() + strings.NewReplacer("{base}", basePath, "{path}", r.Path).Replace(r.Target)
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	switch q := r.RawQuery(); {
	case u.RawQuery == "":
		u.RawQuery = q
	case q != "":
		u.RawQuery += "&" + q // a path that carries a query of its own (an exploration step's)
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body.Bytes())
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.URL = u // keep the path's encoding as written
	for _, h := range r.Header {
		// As written: a lower-case name stays lower-case on the wire.
		req.Header[h.Name] = append(req.Header[h.Name], strings.ReplaceAll(h.Value, Key, key))
	}
	for _, v := range authValues(r.Auth, key) {
		req.Header.Add("Authorization", v)
	}
	switch r.KeyAt.In {
	case InQuery:
		s := url.QueryEscape(r.KeyAt.Name) + "=" + url.QueryEscape(key)
		if req.URL.RawQuery != "" {
			s = req.URL.RawQuery + "&" + s
		}
		req.URL.RawQuery = s
	case InCookie:
		req.Header.Add("Cookie", r.KeyAt.Name+"="+key)
	case InHeader:
		req.Header.Add(r.KeyAt.Name, r.KeyAt.Prefix+key)
	}
	if r.Host != "" {
		req.Host = r.Host
	}
	if r.Chunked && r.Body != nil {
		req.TransferEncoding = []string{"chunked"}
		req.ContentLength = -1
	}
	return req, nil
}

package exchange

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/petstore/petstore/conformance/wire"
)

// The raw sender: a request whose wire form Go's client refuses to write (no Host, two, a
// Content-Length or Transfer-Encoding of the request's choosing, a target no URL parser
// takes) is written byte for byte on a connection of its own, its one answer read with
// http.ReadResponse, and the connection closed. It goes through the same door as every
// other request (Session.DoRead: the guard, the record, the masking, the validation, the
// timeout); only the round trip differs. The request carries its wire.Raw in its context.

type rawKey struct{}

// withRaw is ctx carrying raw, the wire form its request is sent in.
func withRaw(ctx context.Context, raw *wire.Raw) context.Context {
	return context.WithValue(ctx, rawKey{}, raw)
}

// rawOf is the wire form req is sent in, or nil for a request Go's client writes.
func rawOf(req *http.Request) *wire.Raw {
	if req == nil {
		return nil
	}
	raw, _ := req.Context().Value(rawKey{}).(*wire.Raw)
	return raw
}

// rawMethods are the methods a raw request may have: a request whose framing the target may
// read otherwise than the harness must not be one that changes anything.
var rawMethods = []string{http.MethodGet, http.MethodHead}

// rawTarget is the request-target raw sends for req: its own template, or req's path and query.
func (s *Session) rawTarget(req *http.Request, raw *wire.Raw) string {
	t := cmp.Or(s.rawPath(req, raw), req.URL.EscapedPath())
	if req.URL.RawQuery != "" {
		t += "?" + req.URL.RawQuery
	}
	return t
}

// rawPath is the path raw sends instead of req's own, or "".
func (s *Session) rawPath(req *http.Request, raw *wire.Raw) string {
	base := strings.TrimSuffix(s.base.EscapedPath(), "/")
	return raw.TargetPath(base, strings.TrimPrefix(req.URL.EscapedPath(), base))
}

// rawHeader is the header raw sends for req, in the order it is written: the Host lines,
// req's fields by name, then the framing.
func (s *Session) rawHeader(req *http.Request, raw *wire.Raw, body []byte) (lines [][2]string, sent []byte) {
	for _, h := range raw.HostLines(cmp.Or(req.Host, req.URL.Host)) {
		lines = append(lines, [2]string{"Host", h})
	}
	lines = append(lines, fieldsInOrder(req.Header)...)
	sent = body
	if raw.TransferEncoding != "" {
		lines = append(lines, [2]string{"Transfer-Encoding", raw.TransferEncoding})
		if wire.ChunksLast(raw.TransferEncoding) {
			sent = wire.ChunkedBody(body)
		}
	}
	switch {
	case raw.Lengths != nil:
		for _, n := range raw.Lengths {
			lines = append(lines, [2]string{"Content-Length", n})
		}
	case raw.TransferEncoding == "" && len(body) > 0:
		lines = append(lines, [2]string{"Content-Length", fmt.Sprint(len(body))})
	}
	return lines, sent
}

// rawBytes are the bytes raw sends for req with body.
func (s *Session) rawBytes(req *http.Request, raw *wire.Raw, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", req.Method, s.rawTarget(req, raw))
	lines, sent := s.rawHeader(req, raw, body)
	for _, l := range lines {
		fmt.Fprintf(&b, "%s: %s\r\n", l[0], l[1])
	}
	b.WriteString("\r\n")
	b.Write(sent)
	return b.Bytes()
}

// rawRoundTrip writes req's bytes on a fresh connection (TLS when the base URL is https,
// with the session client's TLS settings), reads one answer and closes the connection
// once its body is read; ctx bounds it all.
func (s *Session) rawRoundTrip(ctx context.Context, req *http.Request, raw *wire.Raw, body []byte) (*http.Response, error) {
	addr := net.JoinHostPort(req.URL.Hostname(), cmp.Or(req.URL.Port(), defaultPort(req.URL.Scheme)))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	if req.URL.Scheme == "https" {
		tc := tls.Client(conn, s.tlsConfig(req.URL.Hostname()))
		if err := tc.HandshakeContext(ctx); err != nil {
			stop()
			conn.Close()
			return nil, err
		}
		conn = tc
	}
	fail := func(err error) (*http.Response, error) {
		stop()
		conn.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, err
	}
	if _, err := conn.Write(s.rawBytes(req, raw, body)); err != nil {
		return fail(err)
	}
	if cw, ok := conn.(interface{ CloseWrite() error }); ok && raw.CloseWrite {
		if err := cw.CloseWrite(); err != nil {
			return fail(err)
		}
	}
	// Headers over the cap are an error, as the client's MaxResponseHeaderBytes makes them.
	br := bufio.NewReader(io.LimitReader(conn, maxResponseHeaderBytes+maxResponseBytes+1))
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return fail(err)
	}
	resp.Body = &closingBody{ReadCloser: resp.Body, close: func() { stop(); conn.Close() }}
	return resp, nil
}

// closingBody closes the connection of its answer with itself.
type closingBody struct {
	io.ReadCloser
	close func()
}

func (b *closingBody) Close() error {
	err := b.ReadCloser.Close()
	b.close()
	return err
}

// tlsConfig is the TLS configuration of the session's client (its authorities, --insecure)
// for host, speaking HTTP/1.1.
func (s *Session) tlsConfig(host string) *tls.Config {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if tr, ok := s.client.Transport.(*http.Transport); ok && tr.TLSClientConfig != nil {
		conf = tr.TLSClientConfig.Clone()
	}
	if conf.ServerName == "" {
		conf.ServerName = host
	}
	conf.NextProtos = []string{"http/1.1"}
	return conf
}

// rawExchangeHeader is the header of a raw request as a report shows it, every line as sent
// (unmasked: the caller masks it).
func (s *Session) rawExchangeHeader(req *http.Request, raw *wire.Raw, body []byte) http.Header {
	lines, _ := s.rawHeader(req, raw, body)
	h := http.Header{}
	for _, l := range lines {
		h[l[0]] = append(h[l[0]], l[1])
	}
	return h
}

// curlCan says whether curl sends raw as it is: no Host (-H 'Host:'), an empty one
// (-H 'Host;'), a verbatim target (--request-target); not two Hosts or a framing of its
// own.
func curlCan(raw *wire.Raw) bool {
	return raw.Lengths == nil && raw.TransferEncoding == "" && (!raw.HostSet || len(raw.Hosts) <= 1)
}

// rawCurlOptions are the options that make curl send req as raw does (curlCan).
func (s *Session) rawCurlOptions(req *http.Request, raw *wire.Raw) string {
	var b strings.Builder
	if raw.HostSet {
		switch hosts := raw.HostLines(req.URL.Host); {
		case len(hosts) == 0:
			b.WriteString(" -H 'Host:'")
		case hosts[0] == "":
			b.WriteString(" -H 'Host;'")
		default:
			b.WriteString(" -H " + s.red.shellQuote("Host: "+s.red.value(hosts[0])))
		}
	}
	if raw.Target != "" {
		b.WriteString(" --request-target " + s.red.shellQuote(s.rawTargetShown(req, raw)))
	}
	return b.String()
}

// rawPipe is the command that sends req as raw does where curl cannot: printf writes the
// bytes into nc, or into openssl s_client for https. Every secret is masked as a report
// masks it, and comes back from the variable that holds it through a %s of the format: the
// key's forms in the Authorization field, the other secrets wherever they stand.
func (s *Session) rawPipe(req *http.Request, raw *wire.Raw, body []byte) curlCmd {
	var format strings.Builder
	var args []string
	text := func(t string) {
		f := printfFormat(t)
		format.WriteString(s.varsAsArgs(f[1:len(f)-1], &args))
	}
	text(req.Method + " " + s.rawTargetShown(req, raw) + " HTTP/1.1\r\n")
	lines, sent := s.rawHeader(req, raw, body)
	for _, l := range lines {
		if http.CanonicalHeaderKey(l[0]) == "Authorization" {
			text(l[0] + ": ")
			format.WriteString("%s")
			args = append(args, s.red.authWord("", l[1]))
			text("\r\n")
			continue
		}
		text(l[0] + ": " + s.red.value(l[1]) + "\r\n")
	}
	text("\r\n" + s.Redact(string(sent)))
	pipe := "printf '" + format.String() + "'"
	for _, a := range args {
		pipe += " " + a
	}
	host, port := req.URL.Hostname(), req.URL.Port()
	if req.URL.Scheme == "https" {
		return curlCmd{pipe: pipe + " | ", args: "openssl s_client -quiet -connect " + shellQuote(net.JoinHostPort(host, cmp.Or(port, "443"))) + " -servername " + shellQuote(host)}
	}
	return curlCmd{pipe: pipe + " | ", args: "nc " + shellQuote(host) + " " + cmp.Or(port, "80")}
}

// varsAsArgs is f, part of a printf format, with each placeholder of a secret ("$PETSTORE_HEADER_1")
// replaced by %s and the variable added to args.
func (s *Session) varsAsArgs(f string, args *[]string) string {
	vars := slices.Clone(s.red.vars)
	slices.SortFunc(vars, func(a, b string) int { return len(b) - len(a) }) // $X_10 before $X_1
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		v := ""
		for _, name := range vars {
			if strings.HasPrefix(f[i:], name) {
				v = name
				break
			}
		}
		if v == "" {
			b.WriteByte(f[i])
			continue
		}
		b.WriteString("%s")
		*args = append(*args, `"`+v+`"`)
		i += len(v) - 1
	}
	return b.String()
}

// rawTargetShown is the request-target raw sends for req as a report shows it: the query's
// secrets masked as in every URL a report writes.
func (s *Session) rawTargetShown(req *http.Request, raw *wire.Raw) string {
	shown := s.red.url(req.URL)
	if i := strings.Index(shown, "://"); i >= 0 {
		if j := strings.IndexByte(shown[i+3:], '/'); j >= 0 {
			shown = shown[i+3+j:]
		}
	}
	path, query, _ := strings.Cut(shown, "?")
	if t := s.rawPath(req, raw); t != "" {
		path = s.Redact(t)
	}
	if query != "" {
		return path + "?" + query
	}
	return path
}

// defaultPort is the port of a URL of scheme that names none.
func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

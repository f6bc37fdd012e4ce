package cases

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/petstore/petstore/conformance/anatomy"
	"github.com/petstore/petstore/conformance/wire"
	"github.com/petstore/petstore/spec"
)

// FamilyAnatomy varies every part of the request that a server, a framework or a front server
// may interpret, from the request's anatomy (conformance/anatomy, docs/anatomy.md).
const FamilyAnatomy = "anatomy"

// anatomyCases are op's cases of the anatomy at the generator's depth: each value of each
// part that applies to op, with the key (the verdict its meaning gives: none, the valid
// request's answer; a fault, the document's answer; open, anything but a 5xx, an error
// without an Error record or a success that contradicts the request) and without it (401,
// whatever the value, section 5.3; where the value may address another resource than the
// operation, keyFirst, any 4xx with an Error record or a redirect); and the values of parts
// that can interact, pairwise, with the key.
func (g *Generator) anatomyCases(op spec.Operation) []Case {
	noKey := g.noKey()
	var out []Case
	byPart := map[string][]Mutation{}
	parts := anatomy.Parts()
	for _, p := range parts {
		for _, m := range g.anatomyMutations(op, p) {
			byPart[p.ID] = append(byPart[p.ID], m)
			if !p.NoCredentials {
				out = append(out, Combine(op.ID, g.Valid(op), m))
			}
			if !op.Secured || p.ID == "header/authorization" {
				continue
			}
			out = append(out, keylessAnswer(Combine(op.ID, g.Valid(op), m, noKey), p))
		}
	}
	byID := map[string]anatomy.Part{}
	for _, p := range parts {
		byID[p.ID] = p
	}
	for _, p := range parts {
		for _, other := range p.Interacts {
			for _, a := range byPart[p.ID] {
				for _, b := range byPart[other] {
					switch {
					case sameRequestTwice(a, b):
					case p.NoCredentials:
						out = append(out, keylessAnswer(Combine(op.ID, g.Valid(op), a, b, noKey), p))
					case byID[other].NoCredentials: // a TRACE beside Max-Forwards carries no key either
						out = append(out, keylessAnswer(Combine(op.ID, g.Valid(op), a, b, noKey), byID[other]))
					default:
						out = append(out, Combine(op.ID, g.Valid(op), a, b))
					}
				}
			}
		}
	}
	return out
}

// keylessAnswer is c, a case of a value of part p sent without a key, with the answers the
// document leaves it: 401 first (Combine's verdict) where the key comes first; where the HTTP
// layer or another resource may answer first, any 4xx with an Error record, and no success
// but where the answer is no resource's content (a CORS preflight, a TRACE's echo, another
// host's site).
func keylessAnswer(c Case, p anatomy.Part) Case {
	switch {
	case p.HTTPLayer:
		c.Verdict, c.Statuses, c.Keyless = Open, nil, true
		c.Reason = "the HTTP layer answers a fault of the request's framing, Host or target before any handler reads the key " +
			"(RFC 9112 sections 3.2 and 6.3): without a key any 4xx with an Error record is an answer, never a success (5.3)"
	case !keyFirst(p):
		c.Verdict, c.Statuses, c.Keyless = Open, nil, !p.NoContent
		c.Reason = "the value may address another resource than the operation, which the document does not show: " +
			"without a key any 4xx with an Error record or a redirect is an answer"
		if c.Keyless {
			c.Reason += ", never a success (5.3)"
		}
	}
	return c
}

// sameRequestTwice: two mutations that each replace the method cannot both hold.
func sameRequestTwice(a, b Mutation) bool {
	return strings.HasPrefix(a.Part, "method/") && strings.HasPrefix(b.Part, "method/")
}

// noKey is the mutation that leaves the key out.
func (g *Generator) noKey() Mutation {
	for _, m := range authMutations(false) {
		if m.Name == "no-key" {
			return m
		}
	}
	panic("cases: no no-key mutation")
}

// anatomyMutations are the values of part p that op's requests carry at the generator's
// depth: none of a part recorded as not sent, of a value another family sends already, or
// of a value that could make the request act on what the run did not create.
func (g *Generator) anatomyMutations(op spec.Operation, p anatomy.Part) []Mutation {
	_, body := requestBody(op)
	switch {
	case p.NotSent != "",
		len(p.Ops) > 0 && !slices.Contains(p.Ops, op.ID),
		p.BodyOnly && body == nil:
		return nil
	}
	var out []Mutation
	for _, v := range p.Values {
		if v.Covered != "" || v.Level == anatomy.LevelDeep && g.depth < DepthDeep || len(v.Ops) > 0 && !slices.Contains(v.Ops, op.ID) {
			continue
		}
		own, ok := anatomySafe(op, p, v)
		if !ok {
			continue
		}
		meaning, why := p.Meaning, p.Why
		if v.Overrides {
			meaning = v.Meaning
		}
		if v.Why != "" {
			why = v.Why
		}
		verdict := map[anatomy.Meaning]Verdict{anatomy.None: Accept, anatomy.Fault: Reject, anatomy.Open: Open}[meaning]
		apply := anatomyApply(op, p, v)
		if own {
			apply = func(r *Request) {
				r.Path = FillPath(op.Path, OwnAnimal)
				anatomyApply(op, p, v)(r)
			}
		}
		m := mut(p.ID, strings.ReplaceAll(p.ID, "/", "-")+"-"+v.Slug, v.Words, verdict, v.Status,
			"docs/anatomy.md "+p.ID+": "+why, apply)
		if p.Should || meaning == anatomy.Fault && strings.HasPrefix(why, "SHOULD") {
			m = should(m)
		}
		m.elsewhere, m.allows, m.notImplemented = addressesElsewhere(p), v.Allows, p.NotImplemented
		out = append(out, m)
	}
	return out
}

// anatomySafe says whether value v of part p may go on op's requests, and whether it must go
// to an animal the run created for it alone (own): a value that can change what a request
// does (another method named by an override, another method, another target) goes only
// where the changed request reads, or acts on the run's own animal; on an operation without
// an animal to name, not at all.
func anatomySafe(op spec.Operation, p anatomy.Part, v anatomy.Value) (own, ok bool) {
	method := op.Method
	switch {
	case p.MethodOverride:
		method = overrideMethod(v)
	case p.Where == anatomy.Method:
		method = v.Text
	}
	// A part that sends the request elsewhere (another target, host or prefix).
	retargets := p.Unsafe && !p.MethodOverride && p.Where != anatomy.Method
	switch {
	case !p.Unsafe && method == op.Method:
		return false, true // it changes nothing of what the request does
	case !Unsafe(method) && !(retargets && Unsafe(op.Method)):
		return false, true // the changed request reads, wherever it goes
	case strings.Contains(op.Path, "{"):
		return true, true
	}
	return false, false
}

// keyFirst says whether the document's 401 comes before whatever a value of part p does to a
// request without a key: not where the value may address another resource than the
// operation (another target, host or method, HEAD too: a server may serve no HEAD at all),
// which the document does not show, nor for an expectation, which the HTTP layer answers
// first; there any 4xx with an Error record, or a redirect, is an answer, and a success
// only where it is no resource's content (an OPTIONS, another host).
func keyFirst(p anatomy.Part) bool {
	switch {
	case p.Where == anatomy.Target, p.Where == anatomy.Method, p.ID == "header/host":
		return false
	case p.HTTPLayer, p.ID == "header/expect":
		return false // the HTTP layer answers an expectation before any handler reads the key
	}
	return true
}

// addressesElsewhere: a value of p makes the request another than the operation's (another
// method than HEAD, another host), so a success is that resource's answer, not the
// operation's: an OPTIONS that lists the methods, a site the front server does not serve.
// A CORS preflight (OPTIONS) is answered without a key, as browsers send it.
func addressesElsewhere(p anatomy.Part) bool {
	return p.Where == anatomy.Method && p.ID != "method/head" || p.ID == "header/host"
}

// overrideMethod is the method a method-override value names ("DELETE", "_method=DELETE").
func overrideMethod(v anatomy.Value) string {
	text := v.Text
	if len(v.Fields) > 0 {
		text = v.Fields[0].Value
	}
	if _, after, ok := strings.Cut(text, "="); ok {
		text = after
	}
	return strings.ToUpper(text)
}

// anatomyApply writes value v of part p into a request of op.
func anatomyApply(op spec.Operation, p anatomy.Part, v anatomy.Value) func(*Request) {
	switch p.Where {
	case anatomy.Method:
		return func(r *Request) {
			r.Method = v.Text
			if !Unsafe(strings.ToUpper(v.Text)) {
				r.Body, r.Header = nil, deleteHeader(r.Header, "Content-Type")
			}
		}
	case anatomy.Target:
		if _, err := url.PathUnescape(v.Text); err != nil {
			// A target no URL parser takes: the session sends it verbatim.
			return func(r *Request) { r.Raw = &wire.Raw{Target: v.Text} }
		}
		return func(r *Request) { r.Target = v.Text }
	case anatomy.Query:
		return func(r *Request) {
			if r.ExtraQuery != "" {
				r.ExtraQuery += "&"
			}
			r.ExtraQuery += v.Text
		}
	case anatomy.Header:
		if raw := hostFraming(p, v); raw != nil {
			return func(r *Request) { r.Raw = raw }
		}
		return func(r *Request) {
			fields := v.Fields
			if len(fields) == 0 {
				fields = []anatomy.Field{{Name: p.Name, Value: v.Text}}
			}
			for _, f := range fields {
				if strings.EqualFold(f.Name, "Host") {
					r.Host = f.Value
					continue
				}
				if strings.EqualFold(f.Name, "Authorization") {
					r.Auth = AuthNone
				}
				r.Header = deleteHeader(r.Header, f.Name)
			}
			for _, f := range fields {
				if !strings.EqualFold(f.Name, "Host") {
					r.Header = append(r.Header, Header{Name: f.Name, Value: strings.ReplaceAll(f.Value, anatomy.Key, wire.Key)})
				}
			}
		}
	case anatomy.Body:
		return func(r *Request) { bodyTransform(r, v.Text) }
	case anatomy.Framing:
		return func(r *Request) {
			switch v.Text {
			case anatomy.FramingChunked:
				r.Chunked = true
			case anatomy.FramingChunkedLarge:
				r.Chunked = true
				if r.Body != nil {
					r.Body.Pad = whitespacePad() // insignificant (RFC 8259 2): still the valid body
				}
			case anatomy.FramingExpect:
				r.Header = append(r.Header, Header{Name: "Expect", Value: "100-continue"})
			case anatomy.FramingLength:
				// What every sender does.
			default:
				r.Raw, r.Body = rawFraming(v.Text)
			}
		}
	}
	panic("cases: anatomy part " + p.ID + " in an unknown region " + string(p.Where))
}

// hostFraming is the wire form of a value of the Host field that Go's client cannot write
// (none, an empty one, two), or nil for one it writes.
func hostFraming(p anatomy.Part, v anatomy.Value) *wire.Raw {
	if !strings.EqualFold(p.Name, "Host") {
		return nil
	}
	if v.Omit {
		return &wire.Raw{HostSet: true}
	}
	var hosts []string
	for _, f := range v.Fields {
		if strings.EqualFold(f.Name, "Host") {
			hosts = append(hosts, strings.ReplaceAll(f.Value, anatomy.Host, "{host}"))
		}
	}
	if len(hosts) > 1 || len(hosts) == 1 && hosts[0] == "" {
		return &wire.Raw{HostSet: true, Hosts: hosts}
	}
	return nil
}

// rawFraming is the wire form and the body of a framing choice Go's client cannot write.
func rawFraming(choice string) (*wire.Raw, *Body) {
	two := &Body{Raw: []byte("{}")}
	switch choice {
	case anatomy.FramingTwoLengths:
		return &wire.Raw{Lengths: []string{"0", "2"}}, two
	case anatomy.FramingLengthAndChunked:
		return &wire.Raw{TransferEncoding: "chunked", Lengths: []string{"5"}}, nil // "0\r\n\r\n": 5 bytes
	case anatomy.FramingLongLength:
		return &wire.Raw{Lengths: []string{"100"}, CloseWrite: true}, two
	case anatomy.FramingTEGzip:
		return &wire.Raw{TransferEncoding: "gzip"}, nil
	case anatomy.FramingChunkedNotLast:
		return &wire.Raw{TransferEncoding: "chunked, gzip"}, nil
	}
	panic("cases: unknown framing " + choice)
}

// bodyTransform changes r's body as the anatomy's body value names; the fields a service that
// accepts it must store stay those of the valid body.
func bodyTransform(r *Request, transform string) {
	if transform == anatomy.BodyOnGet {
		r.Body = &Body{Raw: []byte(`{"conformance":1}`)}
		r.Header = append(deleteHeader(r.Header, "Content-Type"), Header{Name: "Content-Type", Value: "application/json"})
		return
	}
	if r.Body == nil {
		return
	}
	valid := r.Body.Bytes()
	switch transform {
	case anatomy.BodyWhitespace:
		var b strings.Builder
		b.WriteString("{\n")
		for i, f := range r.Body.Fields {
			if i > 0 {
				b.WriteString(" ,\r\n")
			}
			b.WriteString("\t" + jsonOf(f.Name) + " :\t" + f.JSON)
		}
		b.WriteString("\n}\n")
		r.Body.Raw = []byte(b.String())
	case anatomy.BodyBOM:
		r.Body.Raw = append([]byte("\xef\xbb\xbf"), valid...)
	case anatomy.BodyNewline:
		r.Body.Raw = append(valid, '\n')
	case anatomy.BodyGzip, anatomy.BodyDeflate:
		var buf bytes.Buffer
		coding := "gzip"
		if transform == anatomy.BodyGzip {
			w := gzip.NewWriter(&buf)
			_, _ = w.Write(valid)
			_ = w.Close()
		} else {
			coding = "deflate"
			w := zlib.NewWriter(&buf)
			_, _ = w.Write(valid)
			_ = w.Close()
		}
		r.Body.Raw = buf.Bytes()
		r.Header = append(deleteHeader(r.Header, "Content-Encoding"), Header{Name: "Content-Encoding", Value: coding})
	case anatomy.BodyEmpty:
		r.Body.Raw, r.Body.Fields = []byte{}, nil
	case anatomy.BodyPad64K:
		r.Body.Pad = `,"conformancePad":"` + strings.Repeat("x", 64<<10) + `"`
	case anatomy.BodyPad1M:
		r.Body.Pad = oversizePad()
	case anatomy.BodyFormEncode:
		form := url.Values{}
		for _, f := range r.Body.Fields {
			form.Add(f.Name, strings.Trim(f.JSON, `"`))
		}
		r.Body.Raw = []byte(form.Encode())
		r.Header = append(deleteHeader(r.Header, "Content-Type"), Header{Name: "Content-Type", Value: "application/x-www-form-urlencoded"})
	default:
		panic("cases: unknown body transform " + transform)
	}
}

// whitespacePad is the insignificant whitespace the large chunked body ends with, made once:
// the body stays just under 64 KiB, past the 16 KiB where a front server's buffer ends and
// under the size a limit in front of the key would refuse (the mutant
// auth-oversized-body-first, which only the key's family is to catch).
var whitespacePad = sync.OnceValue(func() string { return strings.Repeat(" ", 64<<10-512) })

// headCase: a HEAD request, whose success carries no content to judge (RFC 9110 9.3.2).
func headCase(k Case) bool { return k.Request.Method == http.MethodHead }

package anatomy

// bodyParts vary the body of the operations that take one, and send one to those that do not.
func bodyParts() []Part {
	return []Part{
		{
			ID: "body/bom", Where: Body, Name: "byte order mark",
			Defined:  []string{"RFC 8259 §8.1"},
			Meaning:  Open,
			Why:      "RFC 8259 §8.1: a sender MUST NOT add a BOM, and a parser MAY ignore one rather than treat it as an error: refused (400) or parsed, open",
			BodyOnly: true,
			Values:   []Value{covered(def(val("bom", odd, "a UTF-8 BOM before the JSON text", BodyBOM)), "createPet/cases-body bom")},
		},
		{
			ID: "body/whitespace", Where: Body, Name: "insignificant whitespace",
			Defined:  []string{"RFC 8259 §2"},
			Meaning:  None,
			Why:      "RFC 8259 §2: whitespace around and between tokens is insignificant; the body is still NewPet as JSON (§4.2): the answer must not change",
			BodyOnly: true,
			Values: []Value{
				def(val("spaces", odd, "spaces, tabs and newlines between the tokens", BodyWhitespace)),
				covered(val("newline", ordinary, "a line feed after the JSON text", BodyNewline), "createPet/cases-body trailing-newline"),
			},
		},
		{
			ID: "body/coding", Where: Body, Name: "content coding",
			Defined:  []string{"RFC 9110 §8.4", "RFC 9110 §8.4.1", "RFC 9110 §15.5.16", "RFC 1952 (gzip)", "RFC 1950 (zlib)"},
			Meaning:  Open,
			Why:      "RFC 9110 §8.4: a server decodes a coding it supports or answers 415 (§15.5.16); the document names no coding: open",
			BodyOnly: true,
			Values: []Value{
				def(val("gzip", odd, "the body gzip-compressed, Content-Encoding: gzip", BodyGzip)),
				val("deflate", odd, "the body zlib-compressed, Content-Encoding: deflate", BodyDeflate),
			},
			Interacts:    []string{"framing/chunked"},
			InteractsWhy: "a coded body of unknown length is where decompression limits (zip bombs) and chunked reading meet",
		},
		{
			ID: "body/empty", Where: Body, Name: "no body",
			Defined:  []string{"RFC 9110 §6.4", "RFC 9110 §8.6"},
			Meaning:  Fault,
			Why:      "§4.2: the request body is required; without one the body misses the required fields: 400 with an Error body",
			BodyOnly: true,
			Values:   []Value{covered(fault(val("empty", invalid, "no bytes at all (Content-Length: 0)", BodyEmpty), 400, "§4.2 and §7: body missing required fields, 400"), "createPet/cases-body body-none")},
		},
		{
			ID: "body/size", Where: Body, Name: "body size",
			Defined:  []string{"RFC 9110 §15.5.14", "nginx client_max_body_size 1m", "Express json limit 100kb", "Fastify bodyLimit 1 MiB", "Kestrel MaxRequestBodySize 30 MB", "AWS API Gateway 10 MB"},
			Meaning:  Open,
			Why:      docSize + "; an unknown member padding the body is kept or dropped as the document allows, and a server may refuse the size (413): open",
			BodyOnly: true,
			Values: []Value{
				val("64k", odd, "an unknown member making the body about 64 KiB (under Express's 100 KiB)", BodyPad64K),
				covered(def(val("1m", oversized, "an unknown member making the body about 1 MiB (nginx client_max_body_size 1m, Express json 100kb, Fastify 1 MiB)", BodyPad1M)), "createPet/cases-body body-oversized"),
			},
			Interacts:    []string{"framing/expect-100"},
			InteractsWhy: "a server that refuses the size should answer the expectation with 413 before the body (RFC 9110 §10.1.1)",
		},
		{
			ID: "body/form", Where: Body, Name: "form-encoded body",
			Defined:  []string{"WHATWG URL application/x-www-form-urlencoded", "Express urlencoded", "Rails params", "PHP $_POST"},
			Meaning:  Open,
			Why:      docJSON + "; READINGS: a form-encoded POST is open: refused (415, 400) or parsed into the same fields",
			BodyOnly: true,
			Values:   []Value{def(val("form", odd, "the same fields as application/x-www-form-urlencoded", BodyFormEncode))},
		},
		{
			ID: "body/on-get", Where: Body, Name: "content on GET",
			Defined: []string{"RFC 9110 §9.3.1", "RFC 9110 §6.4.1"},
			Meaning: Open,
			Why:     "RFC 9110 §9.3.1: content in a GET has no generally defined semantics and some implementations reject it; the document's GETs take none: open",
			Ops:     getOps,
			Values:  []Value{def(val("json", odd, "a JSON body on GET", BodyOnGet))},
		},
	}
}

// framingParts vary how the body's length is framed, and record what Go's client cannot frame.
func framingParts() []Part {
	raw := "Go's client writes Content-Length and Transfer-Encoding itself"
	rawOnly := " (sent on the listing alone: Go's client cannot write it, and the session writes it itself for GET and HEAD only)"
	return []Part{
		{
			ID: "framing/content-length", Where: Framing, Name: "Content-Length",
			Defined:  []string{"RFC 9110 §8.6", "RFC 9112 §6.2"},
			Meaning:  None,
			Why:      "what every sender does: the answer must not change",
			BodyOnly: true,
			Values:   []Value{val("length", ordinary, "Content-Length with the body's length", FramingLength)},
		},
		{
			ID: "framing/chunked", Where: Framing, Name: "Transfer-Encoding: chunked",
			Defined:  []string{"RFC 9112 §7.1", "RFC 9112 §6.1", "RFC 9112 §6.3", "RFC 9110 §15.5.12"},
			Meaning:  Open,
			Why:      "RFC 9112 §7.1: an HTTP/1.1 recipient MUST parse chunked, but §6.3 lets a server refuse a body without Content-Length with 411: open",
			BodyOnly: true,
			Values: []Value{
				def(val("chunked", odd, "Transfer-Encoding: chunked, no Content-Length", FramingChunked)),
				def(allows(as(Open, val("chunked-64k", oversized, "Transfer-Encoding: chunked, the valid body padded with whitespace to about 64 KiB (past Apache mod_proxy_fcgi's and PHP-FPM's first buffers)", FramingChunkedLarge),
					"RFC 9112 §7.1: a recipient MUST parse chunked; RFC 8259 §2: the whitespace is insignificant, so the body is the valid NewPet (§4.2: 201, and 400 only for a body missing fields or holding invalid values, §7); "+
						"what stays open is refusing the framing (411, RFC 9112 §6.3) or the size (413, §8: request size limits are not shown)"), 411, 413)),
			},
		},
		{
			ID: "framing/expect-100", Where: Framing, Name: "Expect: 100-continue",
			Defined:  []string{"RFC 9110 §10.1.1", "RFC 9110 §15.2.1", "RFC 9110 §15.5.18"},
			Meaning:  Open,
			Why:      "RFC 9110 §10.1.1: a server answers 100 Continue, or the final status at once, or 417 to an expectation it does not meet: open",
			BodyOnly: true,
			Values:   []Value{def(val("expect", odd, "Expect: 100-continue before the body", FramingExpect))},
		},
		{
			ID: "framing/length-conflict", Where: Framing, Name: "Content-Length twice, too long, or beside Transfer-Encoding",
			Defined: []string{"RFC 9112 §6.3", "RFC 9112 §6.1", "RFC 9110 §8.6", "RFC 9112 §8"},
			Meaning: Fault,
			Why: "RFC 9112 §6.3: a Content-Length that is invalid (two differing values) is an unrecoverable error of the framing, answered 400 " +
				"by the HTTP layer before any handler, and §7 makes every error an Error record (request smuggling lives here)" + rawOnly,
			Ops:       []string{listPets},
			Should:    true,
			HTTPLayer: true,
			Values: []Value{
				def(fault(val("two-lengths", invalid, "Content-Length: 0 and Content-Length: 2, a body of 2 bytes", FramingTwoLengths), 400,
					"RFC 9112 §6.3: two differing Content-Length values make the framing invalid, 400")),
				def(as(Open, val("length-and-chunked", invalid, "Transfer-Encoding: chunked beside Content-Length: 5, the last chunk alone", FramingLengthAndChunked),
					"RFC 9112 §6.3: Transfer-Encoding overrides Content-Length, and a server MAY refuse the pair (400) or read the request by Transfer-Encoding alone (the listing), "+
						"closing the connection after either; read so, the GET carries (empty) content, which a server may refuse its own way too (RFC 9110 §9.3.1, body/on-get): open")),
				def(as(Open, val("long-length", invalid, "Content-Length: 100 and a body of 2 bytes, then the client closes its side", FramingLongLength),
					"RFC 9112 §8: the request is incomplete; a server answers before reading the body (a GET reads none: the listing), "+
						"refuses the request (400, 408, or as it refuses content on a GET: RFC 9110 §9.3.1, body/on-get), or closes without an answer, which is no finding: open")),
			},
		},
		{
			ID: "framing/transfer-codings", Where: Framing, Name: "Transfer-Encoding other than chunked",
			Defined: []string{"RFC 9112 §6.1", "RFC 9112 §6.3", "RFC 9112 §7", "RFC 9110 §15.6.2"},
			Meaning: Fault,
			Why: "RFC 9112 §6.3: a Transfer-Encoding whose last coding is not chunked leaves the length unknown, answered 400 (and §6.1: 501 to a coding " +
				"the server does not understand) by the HTTP layer before any handler; §7 makes every error an Error record" + rawOnly,
			Ops:       []string{listPets},
			Should:    true,
			HTTPLayer: true,
			Values: []Value{
				def(allows(fault(val("gzip", invalid, "Transfer-Encoding: gzip, no chunked", FramingTEGzip), 400,
					"RFC 9112 §6.3: chunked is not the last coding, 400; §6.1: 501 to a coding not understood"), 501)),
				allows(fault(val("chunked-not-last", invalid, "Transfer-Encoding: chunked, gzip", FramingChunkedNotLast), 400,
					"RFC 9112 §6.3: chunked is not the last coding, 400; §6.1: 501 to a coding not understood"), 501),
			},
		},
		notSent("framing/chunk-extensions", Framing, "chunk extensions and trailers of odd form", []string{"RFC 9112 §7.1.1", "RFC 9112 §7.1.2"}, None,
			"RFC 9112 §7.1.1: a recipient MUST ignore unrecognised chunk extensions: the answer must not change", raw+" (no chunk extensions)"),
		notSent("framing/obs-fold", Framing, "obsolete line folding", []string{"RFC 9112 §5.2"}, Fault,
			"RFC 9112 §5.2: a server MUST reject obs-fold with 400 or replace it with spaces",
			"Go's client refuses CR and LF in field values, so it cannot fold a line"),
		notSent("framing/crlf-in-value", Framing, "CR, LF or NUL in a field value", []string{"RFC 9110 §5.5"}, Fault,
			"RFC 9110 §5.5: CR, LF and NUL are invalid in a field value; a recipient MUST reject them or replace them with SP",
			"Go's client refuses CR, LF and NUL in field values (http: invalid header field value)"),
		notSent("framing/bare-lf", Framing, "bare LF line endings", []string{"RFC 9112 §2.2"}, Open,
			"RFC 9112 §2.2: a recipient MAY accept a bare LF as a line terminator: open",
			"Go's client ends every line with CRLF"),
		notSent("framing/space-before-colon", Framing, "whitespace between field name and colon", []string{"RFC 9112 §5.1"}, Fault,
			"RFC 9112 §5.1: a server MUST reject whitespace between a field name and the colon with 400",
			"Go's client refuses a field name that is not a token"),
		notSent("framing/http-1.0", Framing, "HTTP/1.0 and HTTP/0.9", []string{"RFC 9112 §2.3", "RFC 1945"}, Open,
			"the document says HTTP without a version; an HTTP/1.0 request (no Host, no chunked, no keep-alive) may be served or refused (505): open",
			"Go's client sends HTTP/1.1 (or HTTP/2 over TLS), never HTTP/1.0"),
	}
}

package anatomy

import "strconv"

// headerParts vary the header fields of content negotiation, the media type and coding of
// the body, the connection, and the fields no standard gives a meaning here.
func headerParts() []Part {
	return []Part{
		{
			ID: "header/accept", Where: Header, Name: "Accept",
			Defined: []string{"RFC 9110 §12.5.1", "RFC 9110 §15.5.7"},
			Meaning: None,
			Why:     docJSON + "; an Accept that admits application/json changes nothing; one that excludes it lets a server answer 406 or ignore it (RFC 9110 §12.5.1): open",
			Values: []Value{
				covered(def(val("json", ordinary, "Accept: application/json", "application/json")), "<op>/cases-headers accept-json"),
				covered(def(val("any", ordinary, "Accept: */*", "*/*")), "<op>/cases-headers accept-any"),
				covered(val("application-any", ordinary, "Accept: application/*", "application/*"), "<op>/cases-headers accept-json-wildcard"),
				val("upper", odd, "Accept: APPLICATION/JSON (media types are case-insensitive, RFC 9110 §8.3.1)", "APPLICATION/JSON"),
				val("charset", ordinary, "Accept: application/json; charset=utf-8", "application/json; charset=utf-8"),
				covered(as(Open, def(val("html", odd, "Accept: text/html", "text/html")), "RFC 9110 §12.5.1: application/json is not acceptable, so a server may answer 406 or ignore the field: open"), "<op>/cases-headers accept-html"),
				as(Open, val("browser", odd, "a browser's Accept (text/html first, */* at q=0.8)", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"), "a server may prefer HTML it has (RFC 9110 §12.5.1): open"),
				as(Open, val("xml", odd, "Accept: application/xml", "application/xml"), "RFC 9110 §12.5.1: 406 or ignore: open"),
				as(Open, val("json-q0", odd, "Accept: application/json;q=0, */*", "application/json;q=0, */*"), "q=0 excludes JSON (RFC 9110 §12.4.2): open"),
				as(Open, val("problem", odd, "Accept: application/problem+json", "application/problem+json"), "RFC 9110 §12.5.1: 406 or ignore: open"),
				as(Open, val("garbage", invalid, "Accept: ;;", ";;"), "an Accept that does not parse may be refused or ignored: open"),
			},
			Interacts:    []string{"target/format-suffix"},
			InteractsWhy: "stacks with format suffixes (DRF, Rails) let the suffix override Accept",
		},
		{
			ID: "header/accept-charset", Where: Header, Name: "Accept-Charset",
			Defined: []string{"RFC 9110 §12.5.2"},
			Meaning: Open,
			Why:     "RFC 9110 §12.5.2: a server may answer 406 for a charset it cannot give, or ignore the field; JSON is UTF-8 (RFC 8259 §8.1): open",
			Values: []Value{
				as(None, val("utf-8", ordinary, "Accept-Charset: utf-8", "utf-8"), "UTF-8 is what JSON is (RFC 8259 §8.1): the answer must not change"),
				val("latin-1", odd, "Accept-Charset: iso-8859-1", "iso-8859-1"),
			},
		},
		{
			ID: "header/accept-encoding", Where: Header, Name: "Accept-Encoding",
			Defined: []string{"RFC 9110 §12.5.3"},
			Meaning: Open,
			Why:     "RFC 9110 §12.5.3: a server may code the answer with an accepted coding, or not; identity;q=0 may be refused with 406: open (the harness decodes what it asked for)",
			Values: []Value{
				val("gzip", ordinary, "Accept-Encoding: gzip", "gzip"),
				val("br", ordinary, "Accept-Encoding: br", "br"),
				val("all", ordinary, "Accept-Encoding: gzip, deflate, br, zstd", "gzip, deflate, br, zstd"),
				val("no-identity", odd, "Accept-Encoding: identity;q=0", "identity;q=0"),
				val("none", odd, "Accept-Encoding: *;q=0", "*;q=0"),
			},
		},
		{
			ID: "header/accept-language", Where: Header, Name: "Accept-Language",
			Defined: []string{"RFC 9110 §12.5.4"},
			Meaning: None,
			Why:     "the document's bodies are data, not prose in a language; an Error's message may be translated, its code and status may not: the answer must not change",
			Values:  []Value{val("fr", ordinary, "Accept-Language: fr-FR", "fr-FR"), val("garbage", invalid, "Accept-Language: !!", "!!")},
		},
		{
			ID: "header/content-type", Where: Header, Name: "Content-Type",
			Defined: []string{"RFC 9110 §8.3", "RFC 9110 §8.3.1", "RFC 8259 §11", "RFC 9110 §15.5.16"},
			Meaning: Open,
			Why: docJSON + "; a body labelled otherwise may be refused (415, 400) or parsed (READINGS: text/plain or form-encoded on POST is open); " +
				"a parameter on application/json (charset=utf-8, another) may be refused too: the reference takes them, and a server that refuses them passes (docs/readings.md)",
			BodyOnly: true,
			Values: []Value{
				covered(def(val("charset", ordinary, "Content-Type: application/json; charset=utf-8", "application/json; charset=utf-8")), "createPet/cases-headers content-type-charset"),
				val("charset-upper", ordinary, "Content-Type: application/json;charset=UTF-8", "application/json;charset=UTF-8"),
				covered(as(None, def(val("upper", odd, "Content-Type: APPLICATION/JSON", "APPLICATION/JSON")), "RFC 9110 §8.3.1: type and subtype are case-insensitive: the answer must not change"), "createPet/cases-headers content-type-upper"),
				covered(def(val("param", odd, "Content-Type: application/json; foo=bar", "application/json; foo=bar")), "createPet/cases-headers content-type-param"),
				val("space", odd, "Content-Type: application/json ; charset=utf-8", "application/json ; charset=utf-8"),
				covered(def(val("text-plain", odd, "Content-Type: text/plain", "text/plain")), "createPet/cases-headers content-type-text-plain"),
				covered(def(val("form", odd, "Content-Type: application/x-www-form-urlencoded (the body stays JSON)", "application/x-www-form-urlencoded")), "createPet/cases-headers content-type-form"),
				val("vendor", odd, "Content-Type: application/vnd.api+json", "application/vnd.api+json"),
				val("merge-patch", odd, "Content-Type: application/merge-patch+json", "application/merge-patch+json"),
				covered(val("xml", odd, "Content-Type: application/xml", "application/xml"), "createPet/cases-headers content-type-xml"),
				val("octet-stream", odd, "Content-Type: application/octet-stream", "application/octet-stream"),
				val("no-subtype", invalid, "Content-Type: json", "json"),
				val("empty", invalid, "Content-Type: (empty)", ""),
				val("list", invalid, "Content-Type: application/json, text/plain", "application/json, text/plain"),
				val("charset-latin1", odd, "Content-Type: application/json; charset=iso-8859-1", "application/json; charset=iso-8859-1"),
				fields(val("twice", invalid, "Content-Type twice: application/json and text/plain", ""),
					Field{"Content-Type", "application/json"}, Field{"Content-Type", "text/plain"}),
			},
			Interacts:    []string{"body/coding", "body/form"},
			InteractsWhy: "a server picks its parser from the media type after undoing the content coding (RFC 9110 §8.3, §8.4); a form label on a form body is what form parsers read",
		},
		{
			ID: "header/content-encoding", Where: Header, Name: "Content-Encoding",
			Defined: []string{"RFC 9110 §8.4", "RFC 9110 §15.5.16"},
			Meaning: Open,
			Why: "the body sent is plain JSON under a coding label it does not have: RFC 9110 §15.5.16 lets an origin server answer 415 to a coding it does not take (MAY), " +
				"and a server that ignores the label reads the JSON sent; the document names no coding: open (refused with an Error record, or the animal as sent)",
			BodyOnly: true,
			Values: []Value{
				val("gzip-lie", invalid, "Content-Encoding: gzip on a plain body", "gzip"),
				val("unknown", invalid, "Content-Encoding: x-conformance", "x-conformance"),
				as(Open, val("identity", odd, "Content-Encoding: identity on a plain body", "identity"), "identity is reserved for Accept-Encoding (RFC 9110 §12.5.3), not a content coding; a server may refuse or ignore it: open"),
			},
		},
		{
			ID: "header/connection", Where: Header, Name: "Connection",
			Defined: []string{"RFC 9110 §7.6.1", "RFC 9112 §9.6"},
			Meaning: None,
			Why:     "connection management: the answer must not change; a Connection that names a field asks proxies to drop it before the origin",
			Values: []Value{
				val("close", ordinary, "Connection: close", "close"),
				val("keep-alive", ordinary, "Connection: keep-alive", "keep-alive"),
				val("drops-field", odd, "Connection: X-Conformance (asks a proxy to drop that field)", "X-Conformance"),
			},
		},
		{
			ID: "header/keep-alive", Where: Header, Name: "Keep-Alive",
			Defined: []string{"RFC 2068 §19.7.1.1 (obsolete)"},
			Meaning: None,
			Why:     "a hop-by-hop hint with no meaning in the document: the answer must not change",
			Values:  []Value{val("timeout", ordinary, "Keep-Alive: timeout=5, max=100", "timeout=5, max=100")},
		},
		{
			ID: "header/upgrade", Where: Header, Name: "Upgrade",
			Defined: []string{"RFC 9110 §7.8", "RFC 6455 §4.1", "RFC 7540 §3.2 (h2c, obsolete)"},
			Meaning: Open,
			Why:     "RFC 9110 §7.8: a server may switch protocols (101) or ignore the field: open",
			Values: []Value{
				fields(val("h2c", odd, "Connection: Upgrade, HTTP2-Settings; Upgrade: h2c", ""),
					Field{"Connection", "Upgrade, HTTP2-Settings"}, Field{"Upgrade", "h2c"}, Field{"HTTP2-Settings", "AAMAAABkAARAAAAAAAIAAAAA"}),
				fields(val("websocket", odd, "Connection: Upgrade; Upgrade: websocket", ""),
					Field{"Connection", "Upgrade"}, Field{"Upgrade", "websocket"}),
			},
		},
		{
			ID: "header/te", Where: Header, Name: "TE",
			Defined: []string{"RFC 9110 §10.1.4"},
			Meaning: None,
			Why:     "RFC 9110 §10.1.4: trailers acceptable in the answer; no meaning in the document: the answer must not change",
			Values:  []Value{val("trailers", ordinary, "TE: trailers", "trailers")},
		},
		{
			ID: "header/expect", Where: Header, Name: "Expect",
			Defined: []string{"RFC 9110 §10.1.1", "RFC 9110 §15.5.18"},
			Meaning: Open,
			Why: "RFC 9110 §10.1.1: a server may answer 417 to an expectation it cannot meet: open (Expect: 100-continue is framing/expect-100), " +
				"an error still an Error record (§7), also when the HTTP layer answers before any handler (Go's net/http writes a bare 417, which the reference's listener writes as an Error record)",
			Values: []Value{def(on(val("unknown", odd, "Expect: conformance", "conformance"), listPets))},
		},
		{
			ID: "header/max-forwards", Where: Header, Name: "Max-Forwards",
			Defined:      []string{"RFC 9110 §7.6.2"},
			Meaning:      None,
			Why:          "RFC 9110 §7.6.2: only TRACE and OPTIONS use it; on the document's operations the answer must not change",
			Values:       []Value{val("zero", ordinary, "Max-Forwards: 0", "0")},
			Interacts:    []string{"method/options", "method/trace"},
			InteractsWhy: "on OPTIONS and TRACE, Max-Forwards: 0 makes the first proxy answer itself (RFC 9110 §7.6.2)",
		},
		{
			ID: "header/prefer", Where: Header, Name: "Prefer",
			Defined: []string{"RFC 7240 §2", "RFC 7240 §4", "Stoplight Prism (Prefer: code=)"},
			Meaning: Open,
			Why:     "RFC 7240 §4 lets a server honour return=minimal or respond-async, or not: open; an unknown preference MUST be ignored (§2), so Prefer: code=404 must not change the answer",
			Values: []Value{
				val("minimal", ordinary, "Prefer: return=minimal", "return=minimal"),
				val("async", ordinary, "Prefer: respond-async", "respond-async"),
				val("strict", ordinary, "Prefer: handling=strict", "handling=strict"),
				as(None, val("code", odd, "Prefer: code=404 (a mock server's switch)", "code=404"), "RFC 7240 §2: an unknown preference MUST be ignored: the answer must not change"),
			},
		},
		{
			ID: "header/early-data", Where: Header, Name: "Early-Data",
			Defined: []string{"RFC 8470 §5.1", "RFC 8470 §5.2"},
			Meaning: Open,
			Why:     "RFC 8470 §5.2: a server may answer 425 Too Early to a request a front server got in TLS early data: open",
			Values:  []Value{val("one", ordinary, "Early-Data: 1", "1")},
		},
		{
			ID: "header/unknown", Where: Header, Name: "X-Conformance",
			Defined: []string{"RFC 9110 §5.1", "RFC 9110 §5.5", "RFC 9110 §5.4"},
			Meaning: None,
			Why:     "a field no standard and not the document defines: the answer must not change; RFC 9110 §5.4 lets a server refuse an oversized field (431, 400): size limits are not shown (§8): open",
			Values: []Value{
				val("one", ordinary, "X-Conformance: 1", "1"),
				val("non-ascii", odd, "a value with obs-text bytes: X-Conformance: café", "caf\xc3\xa9"),
				fields(val("name-case", odd, "a field name in lower case, written as given: x-conformance", ""), Field{"x-conformance", "1"}),
				fields(val("underscore", odd, "a name with an underscore: X_Conformance (nginx drops it, Envoy may reject it)", ""), Field{"X_Conformance", "1"}),
				as(Open, def(val("8k", oversized, "an 8 KiB field (nginx large_client_header_buffers 8k, Apache LimitRequestFieldSize 8190, Tomcat 8 KB)", pad(8<<10))), docSize),
				as(Open, def(val("16k", oversized, "a 16 KiB field (Node's 16 KiB header limit, HAProxy tune.bufsize 16384)", pad(16<<10))), docSize),
				as(Open, val("64k", oversized, "a 64 KiB field (Kestrel's 32 KB of headers, Envoy's 60 KiB)", pad(64<<10)), docSize),
				as(Open, val("1m", oversized, "a 1 MiB field (Go's DefaultMaxHeaderBytes)", pad(1<<20)), docSize),
				as(Open, def(on(fields(val("130-fields", oversized, "130 more fields (Apache LimitRequestFields 100, Kestrel 100, Starman's parser about 128)", ""), manyFields(130)...), listPets)), docSize),
			},
		},
		{
			ID: "header/unmeant", Where: Header, Name: "fields with no meaning here",
			Defined: []string{"RFC 9110 §10.1.2 (From)", "RFC 9110 §10.1.3 (Referer)", "RFC 9110 §10.1.5 (User-Agent)", "RFC 9110 §7.6.3 (Via)", "W3C Tracking Preference Expression (DNT)", "RFC 9218 §5 (Priority)", "X-Request-ID (Heroku, nginx $request_id)", "X-Requested-With (jQuery, Laravel expectsJson)"},
			Meaning: None,
			Why:     "each field is defined, but none gives the document's operations another answer: the answer must not change (a WAF refusing a user agent, a framework answering HTML to a browser-like request, are findings)",
			Values: []Value{
				fields(val("from", ordinary, "From: conformance@example.com", ""), Field{"From", "conformance@example.com"}),
				fields(val("referer", ordinary, "Referer: https://evil.example/", ""), Field{"Referer", "https://evil.example/"}),
				fields(val("ua-curl", ordinary, "User-Agent: curl/8.5.0", ""), Field{"User-Agent", "curl/8.5.0"}),
				fields(val("ua-browser", ordinary, "a browser's User-Agent", ""), Field{"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"}),
				fields(val("ua-scanner", odd, "User-Agent: sqlmap/1.7 (WAF rules block it)", ""), Field{"User-Agent", "sqlmap/1.7#stable (https://sqlmap.org)"}),
				fields(val("via", ordinary, "Via: 1.1 proxy.example", ""), Field{"Via", "1.1 proxy.example"}),
				fields(val("dnt", ordinary, "DNT: 1", ""), Field{"DNT", "1"}),
				fields(val("priority", ordinary, "Priority: u=1", ""), Field{"Priority", "u=1"}),
				fields(val("request-id", ordinary, "X-Request-ID: conformance-1", ""), Field{"X-Request-ID", "conformance-1"}),
				fields(val("correlation-id", ordinary, "X-Correlation-ID: conformance-1", ""), Field{"X-Correlation-ID", "conformance-1"}),
				fields(val("xhr", ordinary, "X-Requested-With: XMLHttpRequest", ""), Field{"X-Requested-With", "XMLHttpRequest"}),
				fields(val("cookie", ordinary, "Cookie: session=conformance", ""), Field{"Cookie", "session=conformance"}),
				fields(val("proxy-authorization", ordinary, "Proxy-Authorization: Basic (for a proxy, RFC 9110 §11.7.2)", ""), Field{"Proxy-Authorization", "Basic Y29uZm9ybWFuY2U6eA=="}),
				as(Open, fields(val("cookie-16k", oversized, "a 16 KiB Cookie", ""), Field{"Cookie", "session=" + pad(16<<10)}), docSize),
			},
		},
		{
			ID: "header/origin", Where: Header, Name: "Origin",
			Defined: []string{"RFC 6454 §7", "Fetch standard, CORS protocol", "Django CsrfViewMiddleware", "Spring Security CSRF"},
			Meaning: None,
			Why:     "the document gives Origin no meaning and the key is a bearer token, not a cookie: the answer must not change (CORS headers may be added; a CSRF refusal of a bearer-authenticated request is a finding)",
			Values: []Value{
				def(val("foreign", ordinary, "Origin: https://evil.example", "https://evil.example")),
				val("null", odd, "Origin: null", "null"),
			},
		},
		{
			ID: "header/access-control-request-method", Where: Header, Name: "Access-Control-Request-Method",
			Defined: []string{"Fetch standard, CORS protocol (CORS-preflight request)"},
			Meaning: None,
			Why:     "outside a preflight (OPTIONS) the field has no meaning: the answer must not change",
			Values: []Value{
				fields(val("post", ordinary, "Origin and Access-Control-Request-Method: POST, -Headers: authorization, content-type", ""),
					Field{"Origin", "https://evil.example"}, Field{"Access-Control-Request-Method", "POST"}, Field{"Access-Control-Request-Headers", "authorization, content-type"}),
				fields(val("delete", ordinary, "Origin and Access-Control-Request-Method: DELETE", ""),
					Field{"Origin", "https://evil.example"}, Field{"Access-Control-Request-Method", "DELETE"}),
			},
			Interacts:    []string{"method/options"},
			InteractsWhy: "with OPTIONS it is a CORS preflight, which CORS middleware answers before routing and authentication (open, as method/options)",
		},
	}
}

// manyFields is n fields of different names.
func manyFields(n int) []Field {
	f := make([]Field, n)
	for i := range f {
		f[i] = Field{"X-Conformance-" + strconv.Itoa(i), "1"}
	}
	return f
}

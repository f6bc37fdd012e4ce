package anatomy

// forwardingParts vary the fields that can change what a request does or where it goes:
// Host, the forwarding fields of proxies, and the method-override fields.
func forwardingParts() []Part {
	noOverride := "the document gives the field no meaning: the answer must not change (a POST stays a create, a GET a read); " +
		"stacks that honour it turn the request into another method"
	forwarded := "the document gives the field no meaning and the client is not a proxy the server trusts: the answer must not change " +
		"(a redirect to another scheme or host, another route, an address-based allowance are findings)"
	return []Part{
		{
			ID: "header/host", Where: Header, Name: "Host",
			Defined:   []string{"RFC 9110 §7.2", "RFC 9110 §7.4", "RFC 9112 §3.2", "RFC 9110 §15.5.20"},
			Meaning:   Open,
			NoContent: true,
			Why: "RFC 9110 §7.4: a server may refuse a host it does not serve (421, 400, 404), and virtual hosting may route it elsewhere: open " +
				"(the sender sets it through the request's Host, which Go writes once)",
			Unsafe: true,
			Values: []Value{
				def(val("foreign", odd, "Host: example.invalid", "example.invalid")),
				val("localhost", odd, "Host: localhost", "localhost"),
				val("port-zero", odd, "Host: example.invalid:0", "example.invalid:0"),
				val("underscore", odd, "Host: bad_host.invalid", "bad_host.invalid"),
				val("ip", odd, "Host: 127.0.0.1", "127.0.0.1"),
			},
		},
		{
			ID: "header/host-framing", Where: Header, Name: "Host",
			Defined: []string{"RFC 9112 §3.2", "RFC 9110 §7.2", "RFC 3986 §3.2.2"},
			Meaning: Fault,
			Why: "RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without Host or with more than one Host line; " +
				"the HTTP layer answers before any handler, and §7 makes every error an Error record " +
				"(sent on the listing alone: Go's client cannot write it, and the session writes it itself for GET and HEAD only)",
			Ops:       []string{listPets},
			Should:    true,
			HTTPLayer: true,
			Values: []Value{
				def(fault(omit(val("absent", invalid, "no Host field at all", "")), 400, "RFC 9112 §3.2: no Host in an HTTP/1.1 request, 400")),
				def(fault(fields(val("twice", invalid, "two Host lines: the target's, then example.invalid", ""), Field{"Host", Host}, Field{"Host", "example.invalid"}), 400,
					"RFC 9112 §3.2: more than one Host line, 400")),
				def(allows(as(Open, fields(val("empty", odd, "an empty Host field", ""), Field{"Host", ""}),
					"RFC 9112 §3.2: a client sends an empty Host for a target URI without an authority, and an http URI has one: "+
						"a server may take the empty field (Go's net/http does) or refuse it with 400: open"), 400)),
			},
		},
		{
			ID: "header/x-http-method-override", Where: Header, Name: "X-HTTP-Method-Override",
			Defined:        []string{"Express method-override (default getter)", "Rack::MethodOverride", "Symfony http_method_override", "Slim MethodOverrideMiddleware", "Google APIs (X-HTTP-Method-Override)"},
			Meaning:        None,
			Why:            noOverride,
			Unsafe:         true,
			MethodOverride: true,
			Values: []Value{
				def(val("get", odd, "X-HTTP-Method-Override: GET", "GET")),
				def(val("delete", odd, "X-HTTP-Method-Override: DELETE", "DELETE")),
				val("put", odd, "X-HTTP-Method-Override: PUT", "PUT"),
				val("patch", odd, "X-HTTP-Method-Override: PATCH", "PATCH"),
				val("head", odd, "X-HTTP-Method-Override: HEAD", "HEAD"),
				val("lower", odd, "X-HTTP-Method-Override: delete", "delete"),
				fields(val("underscore", odd, "X_HTTP_Method_Override: GET (CGI-style stacks read - and _ alike)", ""), Field{"X_HTTP_Method_Override", "GET"}),
			},
			Interacts:    []string{"method/unshown", "method/options"},
			InteractsWhy: "method-override middleware applies to POST only by default (Express methods: ['POST']); others apply it whatever the method, and Symfony 8 ignores it on GET and HEAD",
		},
		{
			ID: "header/x-http-method", Where: Header, Name: "X-HTTP-Method",
			Defined:        []string{"OData (X-HTTP-Method)", "Express method-override (custom getter)"},
			Meaning:        None,
			Why:            noOverride,
			Unsafe:         true,
			MethodOverride: true,
			Values: []Value{
				def(val("delete", odd, "X-HTTP-Method: DELETE", "DELETE")),
				val("get", odd, "X-HTTP-Method: GET", "GET"),
			},
		},
		{
			ID: "header/x-method-override", Where: Header, Name: "X-Method-Override",
			Defined:        []string{"Express method-override (custom getter)", "Laravel/Symfony (X-HTTP-METHOD-OVERRIDE only; listed for the variants)"},
			Meaning:        None,
			Why:            noOverride,
			Unsafe:         true,
			MethodOverride: true,
			Values: []Value{
				def(val("delete", odd, "X-Method-Override: DELETE", "DELETE")),
				val("get", odd, "X-Method-Override: GET", "GET"),
			},
		},
		{
			ID: "header/forwarded", Where: Header, Name: "Forwarded",
			Defined: []string{"RFC 7239 §4", "RFC 7239 §5", "RFC 7239 §8"},
			Meaning: None,
			Why:     forwarded + "; RFC 7239 §8.1: a server must not trust it from an unknown client",
			Unsafe:  true,
			Values: []Value{
				def(val("all", odd, "Forwarded: for=127.0.0.1;proto=http;host=evil.example", "for=127.0.0.1;proto=http;host=evil.example")),
				val("invalid", invalid, "Forwarded: for=", "for="),
				val("chain", odd, "Forwarded: for=203.0.113.7, for=127.0.0.1", "for=203.0.113.7, for=127.0.0.1"),
			},
		},
		{
			ID: "header/x-forwarded-for", Where: Header, Name: "X-Forwarded-For",
			Defined: []string{"de facto (Squid); Express trust proxy", "nginx real_ip", "Rails ActionDispatch::RemoteIp", "ASP.NET Core ForwardedHeaders"},
			Meaning: None,
			Why:     forwarded,
			Values: []Value{
				def(val("loopback", odd, "X-Forwarded-For: 127.0.0.1", "127.0.0.1")),
				val("chain", odd, "X-Forwarded-For: 203.0.113.7, 10.0.0.1", "203.0.113.7, 10.0.0.1"),
				val("garbage", invalid, "X-Forwarded-For: unknown", "unknown"),
				as(Open, val("long", oversized, "an 8 KiB X-Forwarded-For", pad(8<<10)), docSize),
			},
		},
		{
			ID: "header/x-forwarded-host", Where: Header, Name: "X-Forwarded-Host",
			Defined: []string{"de facto; Express trust proxy (req.hostname)", "Symfony trusted_headers", "Spring ForwardedHeaderFilter"},
			Meaning: None,
			Why:     forwarded,
			Unsafe:  true,
			Values:  []Value{def(val("foreign", odd, "X-Forwarded-Host: evil.example", "evil.example"))},
		},
		{
			ID: "header/x-forwarded-proto", Where: Header, Name: "X-Forwarded-Proto",
			Defined: []string{"de facto; Rails force_ssl", "Express trust proxy (req.protocol)", "Spring ForwardedHeaderFilter"},
			Meaning: None,
			Why:     forwarded,
			Values: []Value{
				def(val("http", odd, "X-Forwarded-Proto: http (an HTTPS-only stack may redirect)", "http")),
				val("https", odd, "X-Forwarded-Proto: https", "https"),
				val("garbage", invalid, "X-Forwarded-Proto: gopher", "gopher"),
			},
		},
		{
			ID: "header/x-forwarded-prefix", Where: Header, Name: "X-Forwarded-Prefix",
			Defined:      []string{"Spring ForwardedHeaderFilter", "Gin redirectTrailingSlash", "ASP.NET Core (UsePathBase by convention)"},
			Meaning:      None,
			Why:          forwarded,
			Unsafe:       true,
			Values:       []Value{def(val("admin", odd, "X-Forwarded-Prefix: /admin", "/admin"))},
			Interacts:    []string{"target/trailing-slash"},
			InteractsWhy: "Gin's trailing-slash redirect builds its Location from X-Forwarded-Prefix",
		},
		{
			ID: "header/x-forwarded-other", Where: Header, Name: "X-Forwarded-Port, X-Real-IP and kin",
			Defined: []string{"X-Forwarded-Port (AWS ELB)", "X-Real-IP (nginx real_ip)", "X-Forwarded-Ssl", "True-Client-IP (Akamai, Cloudflare)"},
			Meaning: None,
			Why:     forwarded,
			Values: []Value{
				fields(val("port", odd, "X-Forwarded-Port: 443", ""), Field{"X-Forwarded-Port", "443"}),
				fields(val("real-ip", odd, "X-Real-IP: 127.0.0.1", ""), Field{"X-Real-IP", "127.0.0.1"}),
				fields(val("ssl", odd, "X-Forwarded-Ssl: on", ""), Field{"X-Forwarded-Ssl", "on"}),
				fields(val("true-client-ip", odd, "True-Client-IP: 127.0.0.1", ""), Field{"True-Client-IP", "127.0.0.1"}),
			},
		},
		{
			ID: "header/x-original-url", Where: Header, Name: "X-Original-URL, X-Rewrite-URL",
			Defined: []string{"IIS URL Rewrite", "Symfony (before 3.4/4.0, removed for CVE-2018-14773)"},
			Meaning: None,
			Why:     forwarded + "; stacks that read these route the request to the path they name",
			Unsafe:  true,
			Values: []Value{
				fields(val("original", odd, "X-Original-URL: /admin", ""), Field{"X-Original-URL", "/admin"}),
				fields(val("rewrite", odd, "X-Rewrite-URL: /admin", ""), Field{"X-Rewrite-URL", "/admin"}),
			},
		},
	}
}

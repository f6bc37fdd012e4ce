package anatomy

// targetParts vary the request-target's path: slashes, dot segments, suffixes, letter case
// and percent-encoding, and record the target forms Go's client cannot send.
func targetParts() []Part {
	normalise := "RFC 3986 §6.2.2 and §5.2.4 let a URI be normalised, but /v1/pets and the variant are different URIs " +
		"(§6.2.1): the document gives the variant no meaning, so a server may serve it, redirect (3xx) or answer 404: open"
	return []Part{
		{
			ID: "target/trailing-slash", Where: Target, Name: "trailing slash",
			Defined: []string{"RFC 3986 §3.3", "RFC 3986 §6.2.3", "Django APPEND_SLASH", "Gin RedirectTrailingSlash", "Fastify ignoreTrailingSlash"},
			Meaning: Open,
			Why:     "§4 names /pets and /pets/{petId} without a slash after; " + normalise,
			Values:  []Value{def(val("slash", odd, "a slash after the path: /v1/pets/", "{base}{path}/"))},
		},
		{
			ID: "target/double-slash", Where: Target, Name: "empty segment",
			Defined: []string{"RFC 3986 §3.3", "nginx merge_slashes", "Envoy merge_slashes", "Go ServeMux path cleaning"},
			Meaning: Open,
			Why:     "an empty path segment (//) is a different path; front servers merge slashes (nginx, Envoy) and Go's ServeMux redirects; " + normalise,
			Values: []Value{
				def(val("after-base", odd, "two slashes after the base: /v1//pets", "{base}/{path}")),
				val("leading", odd, "two slashes before the base: //v1/pets", "/{base}{path}"),
			},
		},
		{
			ID: "target/dot-segment", Where: Target, Name: "dot segments",
			Defined: []string{"RFC 3986 §3.3", "RFC 3986 §5.2.4", "Go ServeMux path cleaning"},
			Meaning: Open,
			Why:     "RFC 3986 §5.2.4 removes . and .. when a reference is resolved; a server that normalises reaches /v1/pets, another answers 404; a .. that climbs out of the base reaches another resource: " + normalise,
			Unsafe:  true,
			Values: []Value{
				def(val("dot", odd, "a . segment: /v1/./pets", "{base}/.{path}")),
				def(val("dot-dot", odd, "a segment and .. : /v1/x/../pets", "{base}/x/..{path}")),
				val("encoded-dot", odd, "an encoded . segment: /v1/%2e/pets", "{base}/%2e{path}"),
				val("encoded-dot-dot", odd, "an encoded .. segment: /v1/x/%2E%2E/pets", "{base}/x/%2E%2E{path}"),
				val("climb", odd, "a .. above the base: /v1/../v1/pets", "{base}/..{base}{path}"),
			},
		},
		{
			ID: "target/format-suffix", Where: Target, Name: "format suffix",
			Defined: []string{"Django REST framework format_suffix_patterns", "Rails routes (.:format)"},
			Meaning: Open,
			Why:     "§1 fixes application/json, and a .json suffix names it again in stacks with format suffixes (DRF, Rails); elsewhere /pets.json is another path (404): open",
			Values: []Value{
				def(val("json", odd, "a .json suffix: /v1/pets.json", "{base}{path}.json")),
				val("xml", odd, "a .xml suffix: /v1/pets.xml", "{base}{path}.xml"),
			},
		},
		{
			ID: "target/letter-case", Where: Target, Name: "letter case of the path",
			Defined: []string{"RFC 3986 §6.2.2.1", "Fiber CaseSensitive", "ASP.NET Core routing", "Fastify caseSensitive"},
			Meaning: Open,
			Why:     "RFC 3986 §6.2.2.1: the path is case-sensitive, so /v1/PETS is another resource; case-insensitive routers (ASP.NET Core, Fiber, Spring on some setups) serve it: open",
			Ops:     []string{listPets, createPet},
			Values: []Value{
				def(val("upper", odd, "the path in capitals: /v1/PETS", "{base}/PETS")),
				val("title", odd, "the path capitalised: /v1/Pets", "{base}/Pets"),
				as(Open, val("encoded-letter", odd, "an encoded unreserved letter: /v1/%70ets", "{base}/%70ets"),
					"RFC 3986 §6.2.2.2: %70 is p, so the URI is equivalent to /v1/pets once normalised; a server that matches before decoding answers 404: open"),
			},
		},
		{
			ID: "target/path-parameter", Where: Target, Name: "path parameter (;)",
			Defined: []string{"RFC 3986 §3.3", "Servlet path parameters (;jsessionid)", "Spring matrix variables"},
			Meaning: Open,
			Why:     "RFC 3986 §3.3: ; is a sub-delimiter a scheme may use for parameters; servlet containers strip ;jsessionid=, others see another path: open",
			Values:  []Value{def(val("jsessionid", odd, "a path parameter: /v1/pets;jsessionid=x", "{base}{path};jsessionid=x"))},
		},
		{
			ID: "target/percent-encoding", Where: Target, Name: "percent-encoding",
			Defined: []string{"RFC 3986 §2.1", "RFC 3986 §2.4", "RFC 3986 §6.2.2.2", "Apache AllowEncodedSlashes", "Envoy path_with_escaped_slashes_action"},
			Meaning: Open,
			Why:     "RFC 3986 §2.4 and §6.2.2.2: an encoded unreserved character equals the character, an encoded / does not; servers decode differently (Apache refuses %2F, Envoy may unescape it): open",
			Values: []Value{
				val("encoded-slash", odd, "an encoded slash at the end: /v1/pets%2F", "{base}{path}%2F"),
				val("lower-hex", odd, "a lower-case escape at the end: /v1/pets%2f", "{base}{path}%2f"),
			},
		},
		{
			ID: "target/bad-escape", Where: Target, Name: "invalid percent-escape",
			Defined: []string{"RFC 3986 §2.1", "RFC 9112 §3", "RFC 9112 §3.2"},
			Meaning: Fault,
			Why: "RFC 3986 §2.1: % starts two hex digits, so /v1/pets%zz is no URI and the request line is invalid (RFC 9112 §3: 400, or a redirect); " +
				"the HTTP layer or the router refuses it before any handler, and §7 makes every error an Error record: any 4xx with one " +
				"(sent on the listing alone: Go's client cannot write it, and the session writes it itself for GET and HEAD only)",
			Ops:       []string{listPets},
			HTTPLayer: true,
			Values:    []Value{def(val("zz", invalid, "an invalid escape at the end: /v1/pets%zz", "{base}{path}%zz"))},
		},
		{
			ID: "target/no-base", Where: Target, Name: "path without the base",
			Defined: []string{"RFC 3986 §5.2"},
			Meaning: Open,
			Why:     "§1 and §9.2: every path sits below the base address ending in /v1; the path without it is another resource (an older version, another service): open",
			Unsafe:  true,
			Values:  []Value{val("no-base", odd, "the path without /v1: /pets", "{path}")},
		},
		notSent("target/absolute-form", Target, "absolute-form", []string{"RFC 9112 §3.2.2"}, None,
			"RFC 9112 §3.2.2: a server MUST accept the absolute form; it names the same resource, so the answer must not change",
			"Go's client writes the origin form to a server; it writes the absolute form only to a proxy"),
		notSent("target/asterisk-form", Target, "asterisk-form", []string{"RFC 9112 §3.2.4"}, Open,
			"OPTIONS * asks about the server, not an operation of the document: open",
			"Go's client writes a path; an asterisk-form request line needs a raw connection"),
		notSent("target/fragment", Target, "fragment", []string{"RFC 3986 §3.5", "RFC 9112 §3.2"}, None,
			"a fragment is not part of the request-target (RFC 9112 §3.2); a server that receives one should ignore it",
			"Go's client drops the URL's fragment; sending # in a request line needs a raw connection"),
		notSent("target/raw-space", Target, "raw space or control character", []string{"RFC 9112 §3", "RFC 9112 §3.2"}, Fault,
			"RFC 9112 §3: a request line with whitespace inside the target is invalid; a server answers 400",
			"Go's client percent-encodes the path; a raw space or control character needs a raw connection"),
	}
}

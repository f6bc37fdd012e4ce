package anatomy

// methodParts vary the method: HEAD (GET without content), OPTIONS, TRACE, the methods the
// document does not show on its paths, and methods no standard defines.
func methodParts() []Part {
	return []Part{
		{
			ID: "method/head", Where: Method, Name: "HEAD",
			Defined: []string{"RFC 9110 §9.3.2"},
			Meaning: None,
			Why: "RFC 9110 §9.3.2: HEAD is GET without content, and §9.1 asks every general-purpose server to support it; the document's GET operations (§4.1, §4.3) " +
				"answer HEAD as they answer GET (status and header fields), without a body. The document does not mention HEAD, so a server that refuses it " +
				"breaks a SHOULD (READINGS.md: an HTTP requirement the document does not mention)",
			Should: true,
			Ops:    getOps,
			Values: []Value{def(val("head", ordinary, "HEAD instead of GET", "HEAD"))},
		},
		{
			ID: "method/options", Where: Method, Name: "OPTIONS",
			Defined:   []string{"RFC 9110 §9.3.7", "Fetch standard, CORS protocol (preflight)"},
			Meaning:   Open,
			NoContent: true,
			Why:       "the document shows no OPTIONS; RFC 9110 §9.3.7 lets a server describe the resource (200 with Allow) or refuse (405): open, and any error is an Error record (§7)",
			Values:    []Value{def(val("options", ordinary, "OPTIONS on the operation's path", "OPTIONS"))},
			Interacts: []string{"header/access-control-request-method"},
			InteractsWhy: "a CORS preflight is OPTIONS with Origin and Access-Control-Request-Method; CORS middleware " +
				"answers it before routing and authentication",
		},
		{
			ID: "method/trace", Where: Method, Name: "TRACE",
			Defined:        []string{"RFC 9110 §9.3.8", "RFC 9110 §15.6.2"},
			Meaning:        Open,
			NotImplemented: true,
			NoCredentials:  true,
			NoContent:      true,
			Why: "the document shows no TRACE; RFC 9110 §9.3.8 defines a loop-back most servers disable (405, 501): open; its 200 echoes the request, " +
				"no resource's content, and §9.3.8 forbids a client to send credentials in it, so it goes without the key",
			Values: []Value{def(on(val("trace", ordinary, "TRACE on the operation's path", "TRACE"), getPet))},
		},
		{
			ID: "method/unshown", Where: Method, Name: "PUT, PATCH, DELETE",
			Defined: []string{"RFC 9110 §9.3.4", "RFC 9110 §9.3.5", "RFC 5789 §2"},
			Meaning: Open,
			Why:     "§4: updating or deleting animals is not shown; a server may support them or answer 405 (RFC 9110 §15.5.6) or 404: open, every error an Error record",
			Unsafe:  true,
			Values: []Value{
				val("put", ordinary, "PUT on the operation's path", "PUT"),
				val("patch", ordinary, "PATCH on the operation's path", "PATCH"),
				val("delete", ordinary, "DELETE on the operation's path", "DELETE"),
			},
		},
		{
			ID: "method/unknown", Where: Method, Name: "unknown method",
			Defined:        []string{"RFC 9110 §9.1", "RFC 9110 §15.6.2"},
			Meaning:        Open,
			NotImplemented: true,
			Why:            "RFC 9110 §9.1: methods are case-sensitive tokens, and an unrecognised one is answered 501 (§15.6.2) or 405; the document shows none: open, every error an Error record",
			Values: []Value{
				def(on(val("lower-case", odd, "get (lower case) instead of GET", "get"), getPet)),
				def(on(val("token", odd, "PETS, a method no standard defines", "PETS"), getPet)),
				val("query", odd, "QUERY (a safe method with content, in draft)", "QUERY"),
			},
		},
		notSent("method/connect", Method, "CONNECT", []string{"RFC 9110 §9.3.6", "RFC 9112 §3.2.3"}, Open,
			"CONNECT asks for a tunnel to host:port, not an operation of the document: open",
			"Go's client writes CONNECT with an authority-form target (host:port), never the operation's path"),
	}
}

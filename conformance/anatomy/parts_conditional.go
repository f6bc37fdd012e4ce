package anatomy

// conditionalParts vary the fields whose RFC semantics allow another answer (304, 412, 206,
// 416) and the cache directives an origin server does not act on.
func conditionalParts() []Part {
	cond := "RFC 9110 §13.2.1: a server may evaluate the precondition (304 on GET, 412) or, lacking validators, ignore it: open"
	past, future := "Sat, 01 Jan 2000 00:00:00 GMT", "Fri, 01 Jan 2100 00:00:00 GMT"
	return []Part{
		{
			ID: "header/if-none-match", Where: Header, Name: "If-None-Match",
			Defined: []string{"RFC 9110 §13.1.2", "RFC 9110 §15.4.5", "RFC 9110 §15.5.13"},
			Meaning: Open,
			Why:     cond,
			Values: []Value{
				val("any", odd, "If-None-Match: *", "*"),
				val("tag", ordinary, `If-None-Match: "conformance"`, `"conformance"`),
				val("weak", ordinary, `If-None-Match: W/"conformance"`, `W/"conformance"`),
				val("unquoted", invalid, "If-None-Match: conformance (not an entity-tag)", "conformance"),
			},
		},
		{
			ID: "header/if-match", Where: Header, Name: "If-Match",
			Defined: []string{"RFC 9110 §13.1.1", "RFC 9110 §15.5.13"},
			Meaning: Open,
			Why:     cond,
			Values: []Value{
				val("any", ordinary, "If-Match: *", "*"),
				def(on(val("tag", odd, `If-Match: "conformance" (matches nothing)`, `"conformance"`), getPet)),
			},
		},
		{
			ID: "header/if-modified-since", Where: Header, Name: "If-Modified-Since",
			Defined: []string{"RFC 9110 §13.1.3"},
			Meaning: Open,
			Why:     "RFC 9110 §13.1.3: on GET a server may answer 304; it ignores the field on other methods and when the date is invalid: open",
			Ops:     getOps,
			Values: []Value{
				val("past", ordinary, "If-Modified-Since: 1 January 2000", past),
				val("future", odd, "If-Modified-Since: 1 January 2100", future),
				as(None, val("invalid", invalid, "If-Modified-Since: yesterday", "yesterday"), "RFC 9110 §13.1.3: a recipient MUST ignore an invalid date: the answer must not change"),
			},
		},
		{
			ID: "header/if-unmodified-since", Where: Header, Name: "If-Unmodified-Since",
			Defined: []string{"RFC 9110 §13.1.4"},
			Meaning: Open,
			Why:     cond,
			Values: []Value{
				val("past", odd, "If-Unmodified-Since: 1 January 2000", past),
				as(None, val("invalid", invalid, "If-Unmodified-Since: yesterday", "yesterday"), "RFC 9110 §13.1.4: a recipient MUST ignore an invalid date: the answer must not change"),
			},
		},
		{
			ID: "header/range", Where: Header, Name: "Range",
			Defined: []string{"RFC 9110 §14.2", "RFC 9110 §15.3.7", "RFC 9110 §15.5.17"},
			Meaning: Open,
			Why:     "RFC 9110 §14.2: a server may answer a range of a GET (206), refuse an unsatisfiable one (416) or ignore the field (200): open",
			Ops:     getOps,
			Values: []Value{
				val("first-byte", ordinary, "Range: bytes=0-0", "bytes=0-0"),
				val("suffix", ordinary, "Range: bytes=-1", "bytes=-1"),
				val("multi", odd, "Range: bytes=0-0,1-1", "bytes=0-0,1-1"),
				val("unsatisfiable", odd, "Range: bytes=100000000-", "bytes=100000000-"),
				val("items", odd, "Range: items=0-9 (an unknown unit)", "items=0-9"),
				val("invalid", invalid, "Range: bytes=5-1", "bytes=5-1"),
			},
		},
		{
			ID: "header/if-range", Where: Header, Name: "If-Range",
			Defined:      []string{"RFC 9110 §13.1.5"},
			Meaning:      None,
			Why:          "RFC 9110 §13.1.5: a server MUST ignore If-Range without Range: the answer must not change",
			Ops:          getOps,
			Values:       []Value{val("tag", ordinary, `If-Range: "conformance"`, `"conformance"`)},
			Interacts:    []string{"header/range"},
			InteractsWhy: "with Range, an If-Range that does not match makes the server send the whole (RFC 9110 §13.1.5): open",
		},
		{
			ID: "header/range-on-post", Where: Header, Name: "Range",
			Defined: []string{"RFC 9110 §14.2"},
			Meaning: None,
			Why:     "RFC 9110 §14.2: range handling is defined for GET only, and a server MUST ignore Range on other methods: the answer must not change",
			Ops:     []string{createPet},
			Values:  []Value{val("first-byte", odd, "Range: bytes=0-0 on POST", "bytes=0-0")},
		},
		{
			ID: "header/cache-control", Where: Header, Name: "Cache-Control",
			Defined: []string{"RFC 9111 §5.2.1"},
			Meaning: None,
			Why:     "RFC 9111 §5.2.1: request directives address caches; the origin's answer must not change (no-cache makes a cache revalidate, it changes nothing at the origin)",
			Values: []Value{
				val("no-cache", ordinary, "Cache-Control: no-cache", "no-cache"),
				val("max-age-0", ordinary, "Cache-Control: max-age=0", "max-age=0"),
				val("no-store", ordinary, "Cache-Control: no-store", "no-store"),
				val("no-transform", ordinary, "Cache-Control: no-transform", "no-transform"),
				val("garbage", invalid, "Cache-Control: ,,=", ",,="),
			},
		},
		{
			ID: "header/pragma", Where: Header, Name: "Pragma",
			Defined: []string{"RFC 9111 §5.4 (obsoleted, still sent)"},
			Meaning: None,
			Why:     "a cache directive of HTTP/1.0: the origin's answer must not change",
			Values:  []Value{val("no-cache", ordinary, "Pragma: no-cache", "no-cache")},
		},
	}
}

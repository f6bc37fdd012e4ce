package anatomy

import "strconv"

// queryParts vary the query string: parameters repeated, in bracket forms, unknown, long,
// and the parameters stacks read for themselves (_method, format, callback).
func queryParts() []Part {
	noStructure := "RFC 3986 §3.4 gives the query no structure and the document (§4.1) no rule for a parameter sent twice or in bracket form; " +
		"parsers differ (first wins, last wins, an array: qs, PHP, Rack): open, and an error is an Error record"
	return []Part{
		{
			ID: "query/repeated", Where: Query, Name: "parameter sent twice",
			Defined: []string{"RFC 3986 §3.4", "WHATWG URL application/x-www-form-urlencoded", "qs (Express) duplicates", "PHP $_GET last wins"},
			Meaning: Open,
			Why:     noStructure,
			Ops:     []string{listPets},
			Values: []Value{
				covered(def(val("limit", odd, "limit twice: limit=3&limit=5", "limit=3&limit=5")), "listPets/cases-query limit-repeated"),
				covered(def(val("status", odd, "status twice: status=available&status=sold", "status=available&status=sold")), "listPets/cases-query status-repeated"),
				val("limit-empty", odd, "limit twice, the second empty: limit=3&limit=", "limit=3&limit="),
			},
			Interacts:    []string{"query/brackets"},
			InteractsWhy: "qs and PHP merge a plain and a bracketed parameter of one name into one array",
		},
		{
			ID: "query/brackets", Where: Query, Name: "bracket forms (arrays and objects)",
			Defined: []string{"qs (Express 4 extended query parser)", "PHP parse_str", "Rack nested query parsing"},
			Meaning: Open,
			Why:     noStructure,
			Ops:     []string{listPets},
			Values: []Value{
				def(val("array", odd, "limit as an array: limit[]=5", "limit%5B%5D=5")),
				val("array-raw", odd, "limit as an array, brackets unencoded: limit[]=5", "limit[]=5"),
				val("index", odd, "limit with an index: limit[0]=5", "limit%5B0%5D=5"),
				val("object", odd, "limit as an object: limit[a]=5", "limit%5Ba%5D=5"),
				val("status-array", odd, "status as an array: status[]=available", "status%5B%5D=available"),
				val("high-index", odd, "an index above qs's arrayLimit: status[21]=sold", "status%5B21%5D=sold"),
				val("dotted", odd, "a dotted name: limit.a=5", "limit.a=5"),
			},
		},
		{
			ID: "query/unknown", Where: Query, Name: "unknown parameter",
			Defined: []string{"RFC 3986 §3.4"},
			Meaning: Open,
			Why: "§4 lists the parameters of each operation and gives no other any meaning; whether an unknown one is refused is not shown " +
				"(docs/readings.md: the reference ignores them, a server that refuses them with an Error passes), but it never turns a request into another: " +
				"a 2xx must still be the operation's answer; an oversized query reaches limits that are not shown (§8)",
			Values: []Value{
				covered(def(val("one", ordinary, "an unknown parameter: conformance=1", "conformance=1")), "<op>/cases-query unknown-param"),
				val("name-case", odd, "LIMIT=5, the name in capitals (not the parameter limit)", "LIMIT=5"),
				val("no-value", odd, "a parameter without =: conformance", "conformance"),
				val("empty-name", odd, "an empty name: =1", "=1"),
				val("utf8", odd, "a percent-encoded UTF-8 value: conformance=%C3%A9", "conformance=%C3%A9"),
				def(on(val("bad-escape", invalid, "a bad percent-escape: conformance=%zz", "conformance=%zz"), listPets)),
				as(Open, val("url-2k", oversized, "a 2 KiB parameter (the 2 KiB URL of old browsers and CDNs)", "conformance="+pad(2<<10)), docSize),
				as(Open, def(val("url-8k", oversized, "an 8 KiB parameter (nginx large_client_header_buffers 8k, Apache LimitRequestLine 8190, Kestrel 8 KB request line)", "conformance="+pad(8<<10))), docSize),
				as(Open, def(val("url-16k", oversized, "a 16 KiB parameter (Node's 16 KiB header limit, HAProxy tune.bufsize)", "conformance="+pad(16<<10))), docSize),
				as(Open, val("url-64k", oversized, "a 64 KiB parameter", "conformance="+pad(64<<10)), docSize),
				as(Open, def(on(val("many", oversized, "1000 parameters, then limit=1 (qs parameterLimit 1000 and PHP max_input_vars 1000 drop what comes after)", manyParams(1000)+"&limit=1"), listPets)), docSize),
			},
		},
		{
			ID: "query/value-form", Where: Query, Name: "form of a documented value",
			Defined: []string{"RFC 3986 §2.1", "RFC 3986 §2.4", "WHATWG URL application/x-www-form-urlencoded (+ as space)"},
			Meaning: Open,
			Why:     "§7: the answer to an out-of-range limit or an invalid status is not shown; a value some parsers decode differently (+, %2B, empty) is open",
			Ops:     []string{listPets},
			Values: []Value{
				val("limit-empty", invalid, "an empty limit: limit=", "limit="),
				val("limit-no-value", invalid, "limit without =: limit", "limit"),
				val("limit-plus", odd, "limit with a sign: limit=%2B5", "limit=%2B5"),
				val("limit-space", odd, "limit with a trailing space: limit=5+", "limit=5+"),
				val("limit-encoded", odd, "the digit percent-encoded: limit=%35", "limit=%35"),
				val("status-case", odd, "status in capitals: status=AVAILABLE", "status=AVAILABLE"),
				val("semicolon", odd, "; between parameters: limit=5;status=sold", "limit=5;status=sold"),
			},
		},
		{
			ID: "query/method-override", Where: Query, Name: "_method",
			Defined: []string{"Express method-override (getter _method)", "Rack::MethodOverride", "Laravel method spoofing", "Symfony http_method_override"},
			Meaning: Open,
			Why: "the document gives _method no meaning, and whether an unknown parameter is refused is not shown (docs/readings.md), " +
				"but it never turns the request into another: a POST stays a create, a GET a read (a 2xx must be the operation's answer); stacks that honour it turn the request into another method",
			Unsafe:         true,
			MethodOverride: true,
			Values: []Value{
				def(val("delete", odd, "_method=DELETE", "_method=DELETE")),
				val("put", odd, "_method=PUT", "_method=PUT"),
				def(val("get", odd, "_method=GET", "_method=GET")),
			},
		},
		{
			ID: "query/format", Where: Query, Name: "format",
			Defined: []string{"Django REST framework URL_FORMAT_OVERRIDE"},
			Meaning: Open,
			Why:     "the document gives format no meaning and whether an unknown parameter is refused is not shown (docs/readings.md); a 2xx is still the operation's JSON answer; DRF reads it to pick a renderer (404 for one it lacks)",
			Values: []Value{
				val("json", odd, "format=json", "format=json"),
				def(val("xml", odd, "format=xml", "format=xml")),
				val("api", odd, "format=api (DRF's browsable HTML)", "format=api"),
			},
		},
		{
			ID: "query/callback", Where: Query, Name: "callback (JSONP)",
			Defined: []string{"Express res.jsonp (callback name)"},
			Meaning: Open,
			Why:     "the document gives callback no meaning and whether an unknown parameter is refused is not shown (docs/readings.md); a 2xx is still JSON, application/json, not a JavaScript call",
			Ops:     getOps,
			Values:  []Value{val("jsonp", odd, "callback=x", "callback=x")},
		},
		notSent("query/body-fields", Query, "NewPet's fields (name, categoryId, status)",
			[]string{"Grape params (query, route and body merged)", "Rails params", "Laravel $request->input()"}, Fault,
			"§4.2: the request body is NewPet as JSON and the document names no query parameter for createPet; a body that lacks a required field misses it, whatever the query holds: 400 (an unknown parameter may be refused its own way)",
			"sent by createPet/cases-body (body-fields-in-query, body-name-in-query), which builds the body it moves the fields from"),
		notSent("query/access-token", Query, "access_token", []string{"RFC 6750 §2.3"}, Fault,
			docAuth+"; READINGS: the key accepted anywhere but the Authorization header is a MUST refuse",
			"covered by the authentication rules, which send the run's key there; this data does not hold the key"),
	}
}

// manyParams is n short parameters of different names joined by &.
func manyParams(n int) string {
	b := make([]byte, 0, n*8)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, 'p')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '=', '1')
	}
	return string(b)
}

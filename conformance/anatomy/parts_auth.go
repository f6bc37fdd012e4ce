package anatomy

// authParts vary the Authorization field around the form the document fixes (§5.2), and
// record where else a key may be sent (covered by the authentication rules).
func authParts() []Part {
	elsewhere := docAuth + "; READINGS: the key accepted anywhere but the Authorization header is a MUST refuse"
	byAuthRules := "covered by the authentication rules, which send the run's key there"
	return []Part{
		{
			ID: "header/authorization", Where: Header, Name: "Authorization",
			Defined: []string{"RFC 9110 §11.4", "RFC 9110 §11.6.2", "RFC 9110 §11.1", "RFC 9110 §5.3", "RFC 6750 §2.1"},
			Meaning: Fault,
			Why: docAuth + "; these values carry the run's key ({key}) in another form: sent without the key they are the key missing, " +
				"and whatever else is wrong the answer is 401 (READINGS: MUST 401)",
			Values: []Value{
				covered(fault(def(fields(val("twice-same", odd, "Authorization twice, the same key both times", ""),
					Field{"Authorization", "Bearer " + Key}, Field{"Authorization", "Bearer " + Key})), 401,
					"SHOULD (READINGS): RFC 9110 §5.3 forbids a sender to repeat a field that is not a list and leaves the recipient free to combine the lines; refusing is good practice, held under --strict"), "<op>/cases-auth twice"),
				fault(fields(val("twice-other", odd, "Authorization twice: the key, then an invalid key", ""),
					Field{"Authorization", "Bearer " + Key}, Field{"Authorization", "Bearer conformance-invalid"}), 401,
					"SHOULD (READINGS): RFC 9110 §5.3; a gateway and the service may read different lines"),
				covered(as(Open, def(val("lower-scheme", odd, "Authorization: bearer {key} (scheme in lower case)", "bearer "+Key)),
					"open among cases: RFC 9110 §11.1 makes scheme names case-insensitive and §5.2 shows Bearer; READINGS: refusing it is a SHOULD, weighed by the harness"), "<op>/cases-auth lower-scheme"),
				as(Open, val("upper-scheme", odd, "Authorization: BEARER {key}", "BEARER "+Key),
					"open among cases: RFC 9110 §11.1; READINGS: refusing it is a SHOULD"),
				covered(as(Open, val("two-spaces", odd, "Authorization: Bearer  {key} (two spaces)", "Bearer  "+Key),
					"RFC 9110 §11.4 allows 1*SP after the scheme, §5.2 shows one space: open"), "<op>/cases-auth double-space"),
				as(None, val("trailing-space", odd, "Authorization: Bearer {key} followed by a space", "Bearer "+Key+" "),
					"RFC 9110 §5.5: whitespace around a field value is not part of it: the key, valid, and the answer must not change"),
				fault(val("tab", invalid, "Authorization: Bearer<TAB>{key}", "Bearer\t"+Key), 401,
					"RFC 6750 §2.1 and §5.2 of the document: Bearer, one space, the key; a tab is not that form"),
				covered(fault(val("no-scheme", invalid, "Authorization: {key} (no scheme)", Key), 401, "READINGS: the key with no scheme, MUST 401"), "<op>/cases-auth key-alone"),
				covered(fault(val("junk-after", invalid, "Authorization: Bearer {key} x", "Bearer "+Key+" x"), 401, "READINGS: junk after the key, MUST 401"), "<op>/cases-auth junk-after"),
				fault(val("basic", invalid, "Authorization: Basic (not the key)", "Basic Y29uZm9ybWFuY2U6eA=="), 401, "§5.3: the key missing"),
				fault(val("oversized", oversized, "Authorization: Bearer and 16 KiB of token", "Bearer "+pad(16<<10)), 401,
					"an invalid key, and too large: READINGS, 401 whatever else (a 431 or 400 from a front server is a finding)"),
			},
		},
		notSent("query/api-key", Query, "api_key, apikey, key", []string{"Kong key-auth (key_names)", "AWS API Gateway API keys (x-api-key header)", "OpenAPI apiKey security scheme (in: query)"}, Fault, elsewhere, byAuthRules),
		notSent("header/x-api-key", Header, "X-API-Key, Api-Key", []string{"AWS API Gateway API keys (x-api-key)", "OpenAPI apiKey security scheme (in: header)"}, Fault, elsewhere, byAuthRules),
		notSent("header/cookie-key", Header, "Cookie with the key", []string{"RFC 6265 §5.4", "OpenAPI apiKey security scheme (in: cookie)"}, Fault, elsewhere, byAuthRules),
		notSent("header/authorization-lookalike", Header, "Authorization_ (a field named like Authorization)",
			[]string{"RFC 3875 §4.1.18 (CGI meta-variables HTTP_*: - becomes _)", "Rack env HTTP_AUTHORIZATION_", "Grape headers (zoo/FINDINGS.md grape-22)"}, Fault,
			elsewhere+"; a field other than Authorization carrying Bearer <key> is the key elsewhere", byAuthRules+" (Authorization_: Bearer {key}, no Authorization)"),
	}
}

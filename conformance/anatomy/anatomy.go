// Package anatomy is the request's anatomy as data: every part of an HTTP request that a
// server, a framework or a front server in front of it may interpret (the method, the
// target, the query, each header field, the body's framing, media type, coding and size),
// each with where it is defined, the values that exercise it, and what the interface document
// makes of it. The case generator varies a request part by part from this data; nothing here
// sends anything. docs/anatomy.md is written from it (a test keeps the two in step).
package anatomy

// Meaning is what the interface document makes of a part, or of one value of it.
type Meaning int

// Meanings.
const (
	// None: the document gives the part no meaning, so the answer must not change: the
	// request is judged as if the part were not there (success stays success and stores what
	// was sent; a listing stays the listing).
	None Meaning = iota
	// Fault: the value makes the request faulty under the document: the document's answer
	// (Value.Status with an Error body), and 401 first when the key is missing or invalid.
	Fault
	// Open: the document leaves the answer open (RFC semantics a server may apply or not,
	// a limit that is "not shown"): anything but a 5xx, a 4xx without an Error body, or a
	// 2xx that contradicts the request.
	Open
)

var meaningNames = [...]string{None: "none", Fault: "fault", Open: "open"}

func (m Meaning) String() string { return meaningNames[m] }

// Where is the region of the request a part lives in; it says how a value is applied.
type Where string

// Regions of a request.
const (
	// Method: Value.Text is the method sent instead of the operation's.
	Method Where = "method"
	// Target: Value.Text is the path sent, a template in which {base} stands for the base
	// URL's path ("/v1") and {path} for the operation's path below it ("/pets/1"), both as
	// the valid request writes them; for example "{base}/.{path}" or "{base}{path}/".
	Target Where = "target"
	// Query: Value.Text is appended to the query string as written (already
	// percent-encoded), after the operation's own parameters, with an "&" between.
	Query Where = "query"
	// Header: Value.Text is the value of the field Part.Name, added to (or, when the valid
	// request has the field, set in) the request; Value.Fields, when set, are the fields
	// sent instead, in order (a field twice, a field and its variant).
	Header Where = "header"
	// Body: Value.Text names one of the body transforms below, applied to the valid body.
	Body Where = "body"
	// Framing: Value.Text names one of the framing choices below.
	Framing Where = "framing"
)

// Key stands for the run's API key in the Text or the Fields of a Header value
// ("Bearer {key}"): values of the Authorization part need the key, which this data does not
// hold. A value without Key is sent beside the run's own Authorization field.
const Key = "{key}"

// Body transforms (Value.Text of a Body part).
const (
	BodyBOM        = "bom"         // a UTF-8 byte order mark before the JSON text
	BodyWhitespace = "whitespace"  // spaces, tabs and newlines around and between the tokens
	BodyNewline    = "newline"     // a line feed after the JSON text
	BodyGzip       = "gzip"        // the body gzip-compressed, with Content-Encoding: gzip
	BodyDeflate    = "deflate"     // the body zlib-compressed, with Content-Encoding: deflate
	BodyEmpty      = "empty"       // no bytes at all (Content-Length: 0)
	BodyPad64K     = "pad-64k"     // an unknown member making the body about 64 KiB
	BodyPad1M      = "pad-1m"      // an unknown member making the body about 1 MiB
	BodyFormEncode = "form"        // the same fields as application/x-www-form-urlencoded
	BodyOnGet      = "body-on-get" // a JSON body on a request whose operation takes none
)

// Framing choices (Value.Text of a Framing part).
const (
	FramingLength  = "content-length" // Content-Length (what every sender does by default)
	FramingChunked = "chunked"        // Transfer-Encoding: chunked, no Content-Length
	// FramingChunkedLarge is chunked framing of the valid body padded with insignificant
	// whitespace to about 64 KiB: more than one buffer of the front servers that hand a
	// chunked body on (Apache's mod_proxy_fcgi, which sends no length, reaches PHP empty).
	FramingChunkedLarge = "chunked-64k"
	// FramingExpect asks for 100 Continue before the body (Expect: 100-continue).
	FramingExpect = "expect-100"
)

// Framing choices that Go's client cannot write: the session writes these requests itself
// (GET and HEAD only), so their parts go on the listing alone.
const (
	FramingTwoLengths       = "two-lengths"        // Content-Length: 0 and Content-Length: 2, a body of 2 bytes
	FramingLengthAndChunked = "length-and-chunked" // Transfer-Encoding: chunked beside a Content-Length
	FramingLongLength       = "long-length"        // a Content-Length longer than the body sent
	FramingTEGzip           = "te-gzip"            // Transfer-Encoding: gzip, no chunked
	FramingChunkedNotLast   = "chunked-not-last"   // Transfer-Encoding: chunked, gzip
)

// Host stands for the base URL's host in the Fields of a Header value: the Host lines of
// header/host-framing.
const Host = "{host}"

// Level is how deep a run goes before a value is sent: the default run sends LevelDefault
// values; `--depth deep` adds LevelDeep.
type Level int

// Depths.
const (
	LevelDefault Level = iota
	LevelDeep
)

// Field is one header field as sent.
type Field struct{ Name, Value string }

// Value is one value of a part, with what it exercises.
type Value struct {
	// Slug names the value within its part, in case names ("lower", "twice", "8k").
	Slug string
	// Class is one of "ordinary", "odd", "invalid", "oversized".
	Class string
	// Words say what is sent, for a report ("X-Forwarded-Prefix: /admin").
	Words string
	// Text is what is sent; how it is applied depends on the part's Where.
	Text string
	// Fields replace the single field of a Header part (see Header).
	Fields []Field
	// Omit sends the request without the field Part.Name at all (Host, which Go's client
	// always writes).
	Omit bool
	// Meaning overrides the part's, for this value; Overrides says so (the zero Meaning
	// is None).
	Meaning   Meaning
	Overrides bool
	// Status is a Fault's documented answer (400, 401, 404, 405); 0 means any 4xx with an
	// Error body.
	Status int
	// Allows, on an Open value, are the only refusals it leaves open (411, 413): any other
	// 4xx contradicts the request, which the document answers with success otherwise. On a
	// Fault, they are the other statuses that answer it besides Status (501 to a transfer
	// coding the server does not know, beside 400).
	Allows []int
	// Level: when the value is sent.
	Level Level
	// Ops, when set, limits the value to these operations (operationIds) within its part's:
	// a value the HTTP layer or a front server answers the same on every path (an unknown
	// method, a hundred more fields) costs one operation, not each.
	Ops []string
	// Why says what the interface document makes of this value, when it differs from the
	// part's Why.
	Why string
	// Covered names the generated case that already sends this value with its verdict
	// ("createPet/cases-headers content-type-charset"): the anatomy's family does not send
	// it again.
	Covered string
}

// Part is one part of a request a server may interpret.
type Part struct {
	// ID is stable and unique: "<where>/<name>", lower case ("header/x-http-method-override").
	ID    string
	Where Where
	// Name is the header field or query parameter name, or a short name of the part.
	Name string
	// Defined are where the part is defined: RFC sections, or the documentation of the
	// stacks that invented it.
	Defined []string
	// Meaning is what the interface document makes of the part; Why says why, citing it.
	Meaning Meaning
	Why     string
	// Values exercise the part: ordinary, odd, invalid and oversized at the limits real
	// servers use.
	Values []Value
	// Ops limits the part to these operations (operationIds); empty: every operation.
	// BodyOnly limits it to operations that take a request body.
	Ops      []string
	BodyOnly bool
	// Interacts names parts whose values are combined pairwise with this one's, with the
	// reason in InteractsWhy.
	Interacts    []string
	InteractsWhy string
	// Unsafe marks a part that can change what a request does (a method override, another
	// target through normalisation or a forwarding header): it is sent only where the
	// changed request would touch the run's own animals.
	Unsafe bool
	// Should weighs an answer against the part's meaning at SHOULD (READINGS.md: a
	// requirement HTTP puts on every server that the document does not mention, such as
	// serving HEAD wherever GET is served).
	Should bool
	// MethodOverride marks a part whose value names a method a stack may act on instead of
	// the request's own (the method in Value.Text, after "=" for a query parameter): it is
	// sent only where that method would touch the run's own animals, or change nothing.
	MethodOverride bool
	// NoContent: a success to a value of the part is no resource's content (a CORS
	// preflight's, a TRACE's echo, a site of another host), so without a key it is an answer
	// too; a success without a key to any other value the HTTP layer or another resource may
	// answer first is never right (§5.3).
	NoContent bool
	// NoCredentials: the part's values are sent without the key only. RFC 9110 §9.3.8
	// forbids a client to send credentials in a TRACE request, whose answer may echo them.
	NoCredentials bool
	// NotImplemented: the standard answers a value of the part the server does not
	// recognise with 501 Not Implemented (an unknown method, RFC 9110 §15.6.2): a 501 with an
	// Error body is an answer there, not a server error.
	NotImplemented bool
	// HTTPLayer marks a part whose faults the HTTP layer answers before any handler reads
	// the key (the request's framing, its Host, a target no URL parser takes): without a key
	// the document's 401 does not come first, and any 4xx with an Error record is an answer.
	HTTPLayer bool
	// NotSent, when set, says why the part is recorded but not sent (it needs a raw
	// connection the run does not open, say).
	NotSent string
}

// Convention is what one server stack interprets beyond the standards, from its documentation.
type Convention struct {
	// Stack is the framework, server or gateway ("nginx 1.22", "Express 4/5").
	Stack string
	// Source is where it is documented (a URL or a document and section).
	Source string
	// What the stack does, in a sentence.
	What string
	// Parts are the IDs of the parts that exercise it; empty: not covered, and Why says why.
	Parts []string
	Why   string
}

// MethodOverrides are the header fields and query parameters by which the stacks of the
// anatomy let a request name another method than its own (the MethodOverride parts, and
// the field names their values send): the guard of the run judges a request that carries one
// as the method it names.
func MethodOverrides() (fields, params []string) {
	for _, p := range Parts() {
		if !p.MethodOverride {
			continue
		}
		if p.Where == Query {
			params = append(params, p.Name)
			continue
		}
		fields = append(fields, p.Name)
		for _, v := range p.Values {
			for _, f := range v.Fields {
				fields = append(fields, f.Name)
			}
		}
	}
	return fields, params
}

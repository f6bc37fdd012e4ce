package cases

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/spec"
)

func headerMutations(op spec.Operation) []Mutation {
	var out []Mutation
	setHeader := func(name, value string) func(*Request) {
		return func(r *Request) {
			for i, h := range r.Header {
				if h.Name == name {
					r.Header[i].Value = value
					return
				}
			}
			r.Header = append(r.Header, Header{Name: name, Value: value})
		}
	}
	if mt, s := requestBody(op); s != nil {
		ct := "header.Content-Type"
		out = append(out, mut(ct, "content-type-absent", "no Content-Type header", Open, 0, secMedia, func(r *Request) {
			r.Header = deleteHeader(r.Header, "Content-Type")
		}))
		upper := upperMediaType(mt)
		out = append(out, mut(ct, "content-type-upper", "Content-Type: "+upper, Accept, 0,
			"1 (media type "+mt+"); RFC 9110 8.3.1 (type and subtype are case-insensitive)", setHeader("Content-Type", upper)))
		for _, v := range []struct{ slug, value string }{
			{"charset", mt + "; charset=utf-8"},
			{"param", mt + "; conformance=1"},
			{"text-plain", "text/plain"},
			{"form", "application/x-www-form-urlencoded"},
			{"xml", "application/xml"},
		} {
			out = append(out, mut(ct, "content-type-"+v.slug, "Content-Type: "+v.value, Open, 0, secMedia, setHeader("Content-Type", v.value)))
		}
	}
	for _, v := range []struct {
		slug, value string
		verdict     Verdict
	}{
		{"json", "application/json", Accept},
		{"any", "*/*", Accept},
		{"json-wildcard", "application/*", Accept},
		{"html", "text/html", Open},
	} {
		section := "1 (JSON bodies); RFC 9110 12.5.1"
		if v.verdict == Open {
			section = "1; the answer to a client that does not accept JSON: not shown (RFC 9110 allows 406 or ignoring Accept)"
		}
		out = append(out, mut("header.Accept", "accept-"+v.slug, "Accept: "+v.value, v.verdict, 0, section, setHeader("Accept", v.value)))
	}
	return out
}

func deleteHeader(hs []Header, name string) []Header {
	out := hs[:0:0]
	for _, h := range hs {
		if !strings.EqualFold(h.Name, name) {
			out = append(out, h)
		}
	}
	return out
}

// authMutations are the ways of presenting the key; deep adds the key offered elsewhere beside
// a wrong key in the Authorization field.
func authMutations(deep bool) []Mutation {
	set := func(a Auth) func(*Request) { return func(r *Request) { r.Auth = a } }
	out := []Mutation{
		mut("auth", "no-key", "no Authorization header", Reject, 401, "5.1; 5.3", set(AuthNone)),
		mut("auth", "empty", "an empty Authorization header", Reject, 401, secAuth, set(AuthEmpty)),
		mut("auth", "scheme-only", "Authorization: Bearer, without a token", Reject, 401, secAuth, set(AuthSchemeOnly)),
		mut("auth", "other-scheme", "the key under the scheme Token", Reject, 401, secAuth, set(AuthOtherScheme)),
		mut("auth", "junk-after", "Bearer <key> followed by a space and more text", Reject, 401, secAuth+"; RFC 6750 2.1 (one token)", set(AuthJunkAfter)),
		mut("auth", "wrong-key", "Bearer "+WrongKey+", a key the service does not hold", Reject, 401, secAuth, set(AuthWrongKey)),
		mut("auth", "odd-token", "Bearer conformance-wrong!key, a wrong key with a character outside the token syntax", Reject, 401, secAuth+" (an invalid key, whatever its characters)", set(AuthOddToken)),
		mut("auth", "quoted-key", "Bearer \"<key>\", the key in quotes", Reject, 401, secAuth+" (the quotes are part of the token, which is then not the key)", set(AuthQuotedKey)),
		mut("auth", "key-alone", "the key alone, without the Bearer scheme", Reject, 401, secAuth+" (the form is Bearer <API_KEY>)", set(AuthKeyAlone)),
		// Authorization is a singleton field (RFC 9110 11.6.2, 5.3): a sender must not repeat
		// it, and a recipient may combine the lines or read one. Like the UTF-8 reading, the
		// standard binds the sender, so refusing two fields is SHOULD (READINGS.md): good
		// practice, since a gateway and the service may read different lines.
		should(mut("auth", "twice", "two Authorization fields, both Bearer <key>", Reject, 401, secAuth+" (one field of the form Bearer <API_KEY>); RFC 9110 5.3 (SHOULD: the standard binds the sender)", set(AuthTwice))),
		should(mut("auth", "wrong-then-key", "two Authorization fields, a wrong key and then the key", Reject, 401, secAuth+" (one field of the form Bearer <API_KEY>); RFC 9110 5.3 (SHOULD: the standard binds the sender)", set(AuthWrongThenKey))),
		// Refusing bearer in lower case is SHOULD (RFC 9110 11.1): auth/<op>-scheme-case
		// weighs it; among the cases it is open, so as not to count it twice.
		mut("auth", "lower-scheme", "bearer <key>, the scheme in lower case", Open, 0, secAuthOpen+" (RFC 9110 11.1: schemes are case-insensitive; auth/*-scheme-case weighs a refusal at SHOULD)", set(AuthLowerScheme)),
		// RFC 6750 2.1 and RFC 9110 11.4 allow one or more spaces after the scheme.
		mut("auth", "double-space", "Bearer and the key separated by two spaces", Open, 0, secAuthOpen+" (RFC 9110 11.4: 1*SP after the scheme)", set(AuthDoubleSpace)),
	}
	// The key where a framework's defaults also read one (READINGS.md: accepting it anywhere
	// but the Authorization field is a MUST refuse), with no Authorization field and with a
	// wrong key in it: a reader that prefers the other place lets the second in.
	elsewhere := "5.2 (the key is passed in the Authorization header, as Bearer <API_KEY>); 5.3"
	// By default the key goes to each place once an operation (every proxy and log on the
	// way keeps a URL): without an Authorization field; deeper, beside a wrong key too.
	for _, p := range keyPlaces {
		at := func(a Auth) func(*Request) { return func(r *Request) { r.Auth, r.KeyAt = a, p } }
		out = append(out, mut("auth", "key-in-"+placeSlug(p), "no Authorization header, the key as "+p.String(), Reject, 401, elsewhere, at(AuthNone)))
		if deep {
			out = append(out, mut("auth", "wrong-key+key-in-"+placeSlug(p), "Bearer "+WrongKey+", and the key as "+p.String(), Reject, 401, elsewhere, at(AuthWrongKey)))
		}
	}
	return out
}

// keyPlaces are where the defaults of common frameworks and gateways read an API key besides
// the Authorization field: query parameters, cookies and header fields under the names in use.
var keyPlaces = []Place{
	{In: InQuery, Name: "access_token"}, {In: InQuery, Name: "api_key"}, {In: InQuery, Name: "apiKey"}, {In: InQuery, Name: "key"}, {In: InQuery, Name: "token"},
	{In: InCookie, Name: "access_token"}, {In: InCookie, Name: "api_key"}, {In: InCookie, Name: "token"},
	{In: InHeader, Name: "X-API-Key"}, {In: InHeader, Name: "Api-Key"}, {In: InHeader, Name: "X-Auth-Token"}, {In: InHeader, Name: "X-Access-Token"},
	// A field named like Authorization: Rack names it HTTP_AUTHORIZATION_, and Grape's
	// headers read it back as Authorization; the front servers pass it on.
	{In: InHeader, Name: "Authorization_", Prefix: "Bearer "},
}

// placeSlug names p in a case's name: "query-api_key", "cookie-token", "header-x-api-key".
func placeSlug(p Place) string { return p.In + "-" + strings.ToLower(p.Name) }

func queryMutations(p *openapi3.Parameter) []Mutation {
	s := p.Schema.Value
	part := "query." + p.Name
	set := func(values ...string) func(*Request) {
		return func(r *Request) {
			for _, v := range values {
				r.Query = append(r.Query, Param{Name: url.QueryEscape(p.Name), Value: v})
			}
		}
	}
	var out []Mutation
	add := func(slug, words string, v Verdict, section string, values ...string) {
		out = append(out, mut(part, p.Name+"-"+slug, words, v, 0, section, set(values...)))
	}
	add("absent", "no "+p.Name, Accept, "4.1", []string{}...)
	switch {
	case s.Type.Is(openapi3.TypeInteger):
		var lo, hi, def int64 = 1, 100, 20
		if s.Min != nil {
			lo = int64(*s.Min)
		}
		if s.Max != nil {
			hi = int64(*s.Max)
		}
		if d, ok := s.Default.(float64); ok {
			def = int64(d)
		}
		bounds := fmt.Sprintf("4.1 (%s: minimum %d, maximum %d, default %d); 8", p.Name, lo, hi, def)
		open := fmt.Sprintf("7 (the response to an out-of-range %s: not shown); 8", p.Name)
		typeOpen := fmt.Sprintf("4.1 (%s is an integer); the response to one that is not: not shown (7)", p.Name)
		for _, v := range []struct {
			slug  string
			n     int64
			words string
		}{{"min", lo, "the minimum"}, {"min+1", lo + 1, "just above the minimum"}, {"default", def, "the default"}, {"max", hi, "the maximum"}} {
			add(v.slug, fmt.Sprintf("%s=%d, %s", p.Name, v.n, v.words), Accept, bounds, strconv.FormatInt(v.n, 10))
		}
		add("encoded", fmt.Sprintf("%s=%s, the maximum percent-encoded", p.Name, pctEncode(strconv.FormatInt(hi, 10))), Accept,
			bounds+"; RFC 3986 2.1", pctEncode(strconv.FormatInt(hi, 10)))
		for _, v := range []struct{ slug, value, words string }{
			{"below-min", strconv.FormatInt(lo-1, 10), "just below the minimum"},
			{"above-max", strconv.FormatInt(hi+1, 10), "just above the maximum"},
			{"negative", "-1", "negative"},
			{"2^31", "2147483648", "beyond int32"},
			{"2^63", "9223372036854775808", "beyond int64"},
			{"huge", "1" + strings.Repeat("0", 40), "a 41-digit number"},
		} {
			add(v.slug, fmt.Sprintf("%s=%s, %s", p.Name, v.value, v.words), Open, open, v.value)
		}
		for _, v := range []struct{ slug, value, words string }{
			{"word", "abc", "not a number"},
			{"fraction", "1.5", "a fraction"},
			{"exponent", "1e1", "an exponent"},
			{"empty", "", "empty"},
			{"space", "%205", "with a leading space"},
			{"plus", "%2B5", "with a plus sign"},
			{"leading-zero", "05", "with a leading zero"},
			{"hex", "0x10", "in hexadecimal"},
			{"suffix", "5abc", "a number followed by letters"},
		} {
			add(v.slug, fmt.Sprintf("%s=%s, %s", p.Name, v.value, v.words), Open, typeOpen, v.value)
		}
		add("repeated", fmt.Sprintf("%s twice (%d, then %d)", p.Name, lo, hi+1), Open, "4.1; the answer to a repeated parameter: not shown",
			strconv.FormatInt(lo, 10), strconv.FormatInt(hi+1, 10))
		// Parameter names are exact (RFC 3986 has no case folding): LIMIT is an unknown
		// parameter, so the default limit still holds.
		upper := strings.ToUpper(p.Name)
		out = append(out, mut(part, p.Name+"-name-upper", fmt.Sprintf("%s=%d, the parameter name in upper case (so no %s)", upper, hi, p.Name), Open, 0,
			fmt.Sprintf("4.1 rule 1 (without %s, at most %d); whether an unknown parameter is refused: not shown", p.Name, def),
			func(r *Request) { r.Query = append(r.Query, Param{Name: upper, Value: strconv.FormatInt(hi, 10)}) }))
	case len(s.Enum) > 0:
		filter := "4.1 rule 2 (only animals with that status)"
		open := fmt.Sprintf("7 (the response to an invalid %s filter value: not shown)", p.Name)
		for _, e := range s.Enum {
			v := fmt.Sprint(e)
			add(v, fmt.Sprintf("%s=%s", p.Name, v), Accept, filter, url.QueryEscape(v))
			if strings.ToUpper(v) != v {
				add(v+"-upper", fmt.Sprintf("%s=%s, in upper case", p.Name, strings.ToUpper(v)), Open, open, strings.ToUpper(v))
			}
		}
		last := fmt.Sprint(s.Enum[len(s.Enum)-1])
		add("encoded", fmt.Sprintf("%s=%s, percent-encoded", p.Name, pctEncode(last)), Accept, filter+"; RFC 3986 2.1", pctEncode(last))
		add("empty", p.Name+"= (empty)", Open, open, "")
		add("unknown", p.Name+"=conformance-unknown", Open, open, "conformance-unknown")
		add("repeated", fmt.Sprintf("%s twice (%s, then %s)", p.Name, s.Enum[0], last), Open,
			"4.1; the answer to a repeated parameter: not shown", url.QueryEscape(fmt.Sprint(s.Enum[0])), url.QueryEscape(last))
	case s.Type.Is(openapi3.TypeString):
		// A string the document does not name (a filter a spec author added): its example,
		// or any word, is a value the spec accepts.
		v := "conformance"
		if ex, ok := p.Example.(string); ok && ex != "" {
			v = ex
		}
		add("value", fmt.Sprintf("%s=%s", p.Name, v), Accept, "4.1", url.QueryEscape(v))
	}
	return out
}

func (g *Generator) pathMutations(op spec.Operation, p *openapi3.Parameter) []Mutation {
	part := "path." + p.Name
	set := func(v string) func(*Request) {
		return func(r *Request) { r.Path = strings.ReplaceAll(op.Path, "{"+p.Name+"}", v) }
	}
	var out []Mutation
	notFound := fmt.Sprintf("4.3 (404: the requested resource could not be found; %s is an int64)", p.Name)
	for i, id := range g.unknownIDs(op) {
		m := mut(part, fmt.Sprintf("%s-unknown-%d", p.Name, i+1), fmt.Sprintf("%s = %s, an int64 no listed animal has", p.Name, id), Reject, http.StatusNotFound, notFound, set(id))
		m.lookup = true
		out = append(out, m)
	}
	open := fmt.Sprintf("4.3 (%s is an int64); the answer to a path that holds no int64: not shown", p.Name)
	// The forms of an id ("1.5", "%2B1") name animal 1 to a lenient parser. An operation that
	// may change what it names writes them with its case's own animal in place of the 1, so
	// that no case acts on an animal other cases read (the fixture), even one the run made.
	own := Unsafe(op.Method)
	for _, v := range []struct {
		slug, value, words string
		idForm             bool
	}{
		{"beyond-int64", "9223372036854775808", "beyond int64", false},
		{"word", "abc", "not a number", false},
		{"fraction", "1.5", "a fraction", true},
		{"space", "%20", "a space", false},
		{"minus", "-", "a lone minus sign", false},
		// Beyond int64 by far: a parser that overflows or copies digits without bound shows it.
		{"300-digits", "1" + strings.Repeat("0", 299), "a 300-digit number", false},
		{"3000-digits", "9" + strings.Repeat("9", 2999), "a 3,000-digit number", false},
		// Past the file-name limit of a front server that maps the path to a file (Apache:
		// 403 from about 4,100 digits), below its request-line limit (LimitRequestLine 8190).
		{"5000-digits", "9" + strings.Repeat("9", 4999), "a 5,000-digit number", false},
		{"plus", "%2B1", "with a plus sign", true},
		{"minus-zero", "-0", "minus zero", false},
		{"inner-space", "1%202", "with a space between digits", true},
		{"trailing-space", "1%20", "with a trailing space", true},
		{"arabic-digit", "%D9%A1", "an Arabic-Indic digit one (U+0661)", false},
		{"exponent", "1e3", "in exponent notation", true},
		// RFC 3986 2.1 lets any octet be encoded; a NUL names no int64, and front servers
		// refuse it on their own (Apache's 404 page).
		{"nul", "1%00", "followed by an encoded NUL", true},
	} {
		value, words := v.value, v.value
		if own && v.idForm {
			value, words = strings.Replace(value, "1", OwnAnimal, 1), strings.Replace(value, "1", "<its own animal>", 1)
		}
		out = append(out, mut(part, p.Name+"-"+v.slug, fmt.Sprintf("%s = %s, %s", p.Name, words, v.words), Open, 0, open, set(value)))
	}
	if id := g.knownID(op); id != "" {
		out = append(out,
			mut(part, p.Name+"-known", fmt.Sprintf("%s = %s, a listed animal", p.Name, id), Accept, 0, "4.3 (200: the requested animal)", set(id)),
			mut(part, p.Name+"-leading-zero", fmt.Sprintf("%s = 0%s, a listed animal's id with a leading zero", p.Name, id), Open, 0, open, set("0"+id)),
			mut(part, p.Name+"-encoded", fmt.Sprintf("%s = %s, a listed animal's id percent-encoded", p.Name, pctEncode(id)), Open, 0,
				open+"; RFC 3986 6.2.2.2 makes it the same path", set(pctEncode(id))),
		)
	}
	if id := g.knownID(op); id != "" && !NeedsOwnAnimal(id) {
		// Digits with an underscore between them are a number to Ruby's Integer() and
		// Python's int(), but no int64 as JSON or OpenAPI write one: no animal has that id,
		// so no animal is the answer (a lenient parser returns the listed one).
		under := underscored(id)
		m := mut(part, p.Name+"-underscore", fmt.Sprintf("%s = %s, a listed animal's id with an underscore between digits", p.Name, under), Reject, 0,
			fmt.Sprintf("4.3 (%s is an int64; 200 is the requested animal, and no animal has the id %s); the 4xx is open (400 or 404)", p.Name, under), set(under))
		out = append(out, m)
	}
	return out
}

// underscored is id with an underscore after its first digit ("1_23"), or before it ("0_5").
func underscored(id string) string {
	if len(id) < 2 {
		return "0_" + id
	}
	return id[:1] + "_" + id[1:]
}

// FillPath is path with every parameter ("{petId}") replaced by id.
func FillPath(path, id string) string {
	var b strings.Builder
	for {
		i := strings.Index(path, "{")
		j := strings.Index(path[max(i, 0):], "}")
		if i < 0 || j < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i] + id) // id may hold braces itself (OwnAnimal): it is not read again
		path = path[i+j+1:]
	}
}

// knownID is the id of an animal that op's requests name: one the service holds for an
// operation that only reads, one the run creates for the case (OwnAnimal) for one that may
// change what it names.
func (g *Generator) knownID(op spec.Operation) string {
	if Unsafe(op.Method) {
		return OwnAnimal
	}
	return g.base.KnownID
}

// unknownIDs are the ids no listed animal has, for an operation that only reads. An
// operation that may change what it names gets none: that no animal has an id the run did
// not see is a guess, and a wrong guess would change data the run did not create.
func (g *Generator) unknownIDs(op spec.Operation) []string {
	if Unsafe(op.Method) {
		return nil
	}
	return g.base.Unknown
}

// Routes are requests to what the spec does not define: a path under the base that is no
// operation's, a path with a trailing slash, and each method the spec gives a path none
// of. The document shows no such endpoints ("Other endpoints: not shown", 4), so any answer
// passes but a 5xx or a 4xx without an Error record (section 7: all error responses use
// it). Ids in them are ones the run never saw, so nothing real is touched.
func (g *Generator) Routes(ops []spec.Operation) []Case {
	section := "7 (all error responses use the Error record); 4 (other endpoints: not shown)"
	id := "0"
	if len(g.base.Unknown) > 0 {
		id = g.base.Unknown[0]
	}
	concrete := func(path, method string) string {
		id := id
		if Unsafe(method) {
			id = ImpossibleID
		}
		return FillPath(path, id)
	}
	route := func(name, words, method, path string, auth Auth) Case {
		c := Combine("", Request{Method: method, Path: path, Auth: auth})
		c.Name, c.Words, c.Verdict, c.Section = name, words, Open, section
		return c
	}
	out := []Case{
		route("unknown-path", "GET /conformance-unknown, a path no operation has", http.MethodGet, "/conformance-unknown", AuthKey),
		route("unknown-path-no-key", "GET /conformance-unknown without a key", http.MethodGet, "/conformance-unknown", AuthNone),
	}
	methods := map[string][]string{}
	var paths []string
	for _, op := range ops {
		if _, ok := methods[op.Path]; !ok {
			paths = append(paths, op.Path)
		}
		methods[op.Path] = append(methods[op.Path], op.Method)
	}
	for _, p := range paths {
		path := concrete(p, http.MethodGet)
		out = append(out, route("trailing-slash "+p, "GET "+path+"/, a trailing slash", http.MethodGet, path+"/", AuthKey))
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if !slices.Contains(methods[p], m) {
				path := concrete(p, m)
				out = append(out, route(m+" "+p, m+" "+path+", a method the spec does not give this path", m, path, AuthKey))
			}
		}
	}
	return out
}

// authCombinations combines every rejected way of presenting the key, the key offered
// elsewhere too (or not), and every refused or open variant of every other part of the
// request (body, fields, headers, query, path), with a covering array of the generator's
// strength anchored on the key: at the default, every rejected key is in some case with
// every other variant. Each case wants 401 whatever
// else it holds (READINGS.md), so a server that parses, validates or routes before it checks
// the key shows it, in combinations no one named. A failing case is shrunk to its smallest
// failing form.
func (g *Generator) authCombinations(op spec.Operation, auth []Mutation) []Case {
	// By default the other variants meet the two kinds of missing key that take different
	// ways through a stack (no field at all; a field with a key it does not hold); deeper,
	// or at --fuzz's strength, every rejected form of the key.
	var keys []Mutation
	for _, m := range auth {
		if m.Verdict == Reject && !strings.Contains(m.Name, "key-in-") && (g.depth >= DepthDeep || g.strength >= FuzzStrength || m.Name == "no-key" || m.Name == "wrong-key") {
			keys = append(keys, m)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	// Factor 0: the rejected key; factor 1: the key elsewhere too (its first level: nowhere),
	// deeper only: by default the key goes to each place once (authMutations).
	factors := [][]Mutation{keys, {{}}}
	for _, p := range keyPlaces {
		if g.depth < DepthDeep && g.strength < FuzzStrength {
			break
		}
		factors[1] = append(factors[1], mut("auth.elsewhere", "also-"+placeSlug(p), "the key also as "+p.String(), Open, 0,
			"5.2 (the key is passed in the Authorization header)", func(r *Request) { r.KeyAt = p }))
	}
	byPart := map[string]int{}
	for _, fam := range []string{FamilyFields, FamilyBody, FamilyHeaders, FamilyQuery, FamilyPath} {
		for _, m := range g.Mutations(op, fam) {
			if m.Verdict == Accept {
				continue
			}
			i, ok := byPart[m.Part]
			if !ok {
				// Level 0 leaves the part as it is: a row that needs no variant of it (its
				// pairs with every key covered) gets none, so that the heavy variants (a
				// 1 MiB body) are sent about once per key, not in every spare row.
				i = len(factors)
				byPart[m.Part] = i
				factors = append(factors, []Mutation{{}})
			}
			factors[i] = append(factors[i], m)
		}
	}
	levels := make([]int, len(factors))
	for i, f := range factors {
		levels[i] = len(f)
	}
	rng := rand.New(rand.NewPCG(g.seed, hash("auth-combinations/"+op.ID)))
	var out []Case
	seen := map[string]bool{}
	rows := cover(levels, g.strength, rng, 0)
	if g.depth < DepthDeep && g.strength < FuzzStrength {
		rows = eachOnce(levels)
	}
	for _, row := range rows {
		var ms []Mutation
		for f, l := range row {
			if l >= 0 && factors[f][l].apply != nil {
				ms = append(ms, factors[f][l])
			}
		}
		// A row that leaves every other part as it is, is the key's own case; two rows alike
		// are one case.
		if c := Combine(op.ID, g.Valid(op), ms...); len(ms) > 1 && !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	return out
}

// eachOnce are the rows of the default combinations: every level of every factor but the
// first in some row, the first factor's levels (the two kinds of missing key) taking turns,
// and the rows as many as the largest factor's levels: each variant is sent once without a
// valid key, not once with each kind.
func eachOnce(levels []int) [][]int {
	n := slices.Max(levels[1:])
	rows := make([][]int, n)
	for i := range rows {
		row := make([]int, len(levels))
		row[0] = i % levels[0]
		for f := 1; f < len(levels); f++ {
			// Level 0 of the other factors leaves the part as it is; each other level once.
			row[f] = 0
			if i+1 < levels[f] {
				row[f] = i + 1
			}
		}
		rows[i] = row
	}
	return rows
}

// upperMediaType writes each word of the media type mt with a capital, and json in capitals
// (application/json as Application/JSON): the same type to a server that reads it
// case-insensitively, as RFC 9110 asks.
func upperMediaType(mt string) string {
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || typ == "" {
		return strings.ToUpper(mt)
	}
	words := strings.Split(sub, "-")
	for i, w := range words {
		before, suffix, plus := strings.Cut(w, "+")
		if plus {
			w = before
		}
		if w == "json" {
			w = "JSON"
		} else if w != "" {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		if plus {
			w += "+" + strings.ToUpper(suffix)
		}
		words[i] = w
	}
	return strings.ToUpper(typ[:1]) + typ[1:] + "/" + strings.Join(words, "-")
}

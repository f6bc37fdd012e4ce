package anatomy

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxDefault is how many values the default run may send: each is sent with the key and
// without, in every operation it applies to.
const maxDefault = 70

var (
	idForm   = regexp.MustCompile(`^(method|target|query|header|body|framing)/[a-z0-9][a-z0-9.-]*$`)
	slugForm = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	ops      = map[string]bool{listPets: true, createPet: true, getPet: true}
	classes  = map[string]bool{ordinary: true, odd: true, invalid: true, oversized: true}
	bodyText = map[string]bool{BodyBOM: true, BodyWhitespace: true, BodyNewline: true, BodyGzip: true, BodyDeflate: true,
		BodyEmpty: true, BodyPad64K: true, BodyPad1M: true, BodyFormEncode: true, BodyOnGet: true}
	framingText = map[string]bool{FramingLength: true, FramingChunked: true, FramingChunkedLarge: true, FramingExpect: true,
		FramingTwoLengths: true, FramingLengthAndChunked: true, FramingLongLength: true, FramingTEGzip: true, FramingChunkedNotLast: true}
)

func partsByID(t *testing.T) map[string]Part {
	t.Helper()
	byID := map[string]Part{}
	for _, p := range Parts() {
		require.NotContains(t, byID, p.ID, "part ID %s is not unique", p.ID)
		byID[p.ID] = p
	}
	return byID
}

// Every part is well formed: its ID names its region, it says where it is defined and why
// it means what it means, and its values are named, classed and sendable.
func TestPartsAreWellFormed(t *testing.T) {
	byID := partsByID(t)
	require.NotEmpty(t, byID)
	for _, p := range Parts() {
		t.Run(p.ID, func(t *testing.T) {
			assert.Regexp(t, idForm, p.ID)
			assert.True(t, strings.HasPrefix(p.ID, string(p.Where)+"/"), "ID %s is not in region %s", p.ID, p.Where)
			assert.NotEmpty(t, p.Name)
			assert.NotEmpty(t, p.Defined, "where is it defined?")
			assert.NotEmpty(t, strings.TrimSpace(p.Why), "why does it mean %s?", p.Meaning)
			for _, op := range p.Ops {
				assert.True(t, ops[op], "unknown operation %q", op)
			}
			if p.NotSent != "" {
				assert.Empty(t, p.Values, "a part not sent has no values")
			} else {
				assert.NotEmpty(t, p.Values, "a part that is sent has values")
			}
			for _, id := range p.Interacts {
				assert.Contains(t, byID, id, "interacts with an unknown part")
				assert.NotEqual(t, p.ID, id)
			}
			assert.Equal(t, len(p.Interacts) > 0, p.InteractsWhy != "", "Interacts and InteractsWhy go together")
			slugs := map[string]bool{}
			for _, v := range p.Values {
				assert.Regexp(t, slugForm, v.Slug)
				assert.False(t, slugs[v.Slug], "slug %s twice", v.Slug)
				slugs[v.Slug] = true
				assert.True(t, classes[v.Class], "%s: class %q", v.Slug, v.Class)
				assert.NotEmpty(t, v.Words, v.Slug)
				if v.Overrides {
					assert.NotEmpty(t, v.Why, "%s overrides the meaning without saying why", v.Slug)
				} else {
					assert.Equal(t, None, v.Meaning, "%s: a meaning without Overrides", v.Slug)
				}
				if v.Status != 0 {
					assert.Equal(t, Fault, meaningOf(p, v), "%s: only a Fault has a status", v.Slug)
					assert.True(t, v.Status >= 400 && v.Status < 500, "%s: status %d", v.Slug, v.Status)
				}
				for _, s := range v.Allows {
					if meaningOf(p, v) == Fault {
						// Another status that answers the fault: the HTTP layer's 501 to a
						// transfer coding it does not know.
						assert.NotZero(t, v.Status, "%s: a Fault's other statuses go beside its own", v.Slug)
						assert.True(t, s >= 400 && s < 500 || s == 501, "%s: other status %d", v.Slug, s)
						continue
					}
					assert.Equal(t, Open, meaningOf(p, v), "%s: only an Open value limits its refusals", v.Slug)
					assert.True(t, s >= 400 && s < 500, "%s: allowed status %d", v.Slug, s)
				}
				if v.Omit {
					assert.Equal(t, "Host", p.Name, "%s: only Host is left out (Go's client writes it, the session does not)", v.Slug)
				}
				checkApplicable(t, p, v)
			}
		})
	}
}

// checkApplicable holds a value to what its region can apply and Go's client can send.
func checkApplicable(t *testing.T, p Part, v Value) {
	t.Helper()
	switch p.Where {
	case Target:
		assert.True(t, strings.Contains(v.Text, "{path}") || strings.Contains(v.Text, "{base}"), "%s: a target template names {base} or {path}", v.Slug)
		rest := strings.NewReplacer("{base}", "", "{path}", "").Replace(v.Text)
		assert.NotContains(t, rest, "{", "%s: an unknown placeholder", v.Slug)
		assert.NotContains(t, v.Text, " ", v.Slug)
	case Body:
		assert.True(t, bodyText[v.Text], "%s: unknown body transform %q", v.Slug, v.Text)
	case Framing:
		assert.True(t, framingText[v.Text], "%s: unknown framing %q", v.Slug, v.Text)
	case Method:
		assert.Regexp(t, `^[A-Za-z]+$`, v.Text, v.Slug)
	case Query:
		assert.NotContains(t, v.Text, " ", v.Slug)
		assert.NotContains(t, v.Text, "#", v.Slug)
	case Header:
		assert.True(t, v.Text != "" || len(v.Fields) > 0 || v.Slug == "empty" || v.Omit, "%s: a header value sends something", v.Slug)
		for _, f := range v.Fields {
			assert.Regexp(t, `^[!#$%&'*+.^_|~0-9A-Za-z-]+$`, f.Name, "%s: a field name is a token", v.Slug)
		}
	}
	for _, s := range append([]string{v.Text}, fieldValues(v)...) {
		assert.False(t, strings.ContainsAny(s, "\r\n\x00"), "%s: CR, LF or NUL cannot be sent by Go's client", v.Slug)
	}
}

func fieldValues(v Value) []string {
	var s []string
	for _, f := range v.Fields {
		s = append(s, f.Value)
	}
	return s
}

// meaningOf is what a value means: its own meaning when it overrides its part's.
func meaningOf(p Part, v Value) Meaning {
	if v.Overrides {
		return v.Meaning
	}
	return p.Meaning
}

// Every value of a Fault says its status: the documented one, or 0 (any 4xx with an Error
// body) said explicitly by the part's or the value's Why naming what answers it.
func TestFaultsHaveAStatus(t *testing.T) {
	for _, p := range Parts() {
		for _, v := range p.Values {
			if meaningOf(p, v) != Fault {
				continue
			}
			if v.Status == 0 {
				why := v.Why + " " + p.Why
				assert.Regexp(t, `4xx|400|415|401`, why, "%s %s: a Fault without a status says which 4xx", p.ID, v.Slug)
			}
		}
	}
}

// The default run stays small.
func TestDefaultRunIsSmall(t *testing.T) {
	n := 0
	for _, p := range Parts() {
		for _, v := range p.Values {
			if v.Level == LevelDefault {
				n++
				assert.Empty(t, p.NotSent)
			}
		}
	}
	assert.LessOrEqual(t, n, maxDefault, "default values: each is sent twice in every operation it applies to")
	assert.Greater(t, n, 20)
}

// A method override, a forwarding field that changes the target or a path that may climb
// out of the base is marked Unsafe.
func TestUnsafePartsAreMarked(t *testing.T) {
	byID := partsByID(t)
	for _, id := range []string{"header/x-http-method-override", "header/x-http-method", "header/x-method-override", "query/method-override",
		"header/x-forwarded-host", "header/x-forwarded-prefix", "header/forwarded", "header/x-original-url", "header/host", "target/dot-segment", "method/unshown"} {
		assert.True(t, byID[id].Unsafe, id)
	}
}

// The readings of READINGS.md and docs/readings.md are kept: two Authorization fields are a
// 401 held as SHOULD, the lower-case scheme is open, a method-override header changes
// nothing, an unknown query parameter (_method too) and a media type parameter may be refused.
func TestReadings(t *testing.T) {
	byID := partsByID(t)
	auth := byID["header/authorization"]
	v := value(t, auth, "twice-same")
	assert.Equal(t, Fault, meaningOf(auth, v))
	assert.Equal(t, 401, v.Status)
	assert.Contains(t, v.Why, "SHOULD")
	assert.Contains(t, v.Why, "RFC 9110 §5.3")
	assert.Len(t, v.Fields, 2)
	assert.Equal(t, Open, meaningOf(auth, value(t, auth, "lower-scheme")))
	assert.Equal(t, None, byID["header/x-http-method-override"].Meaning)
	assert.Equal(t, Open, byID["query/method-override"].Meaning)
	assert.Equal(t, Open, byID["query/unknown"].Meaning)
	ct := byID["header/content-type"]
	assert.Equal(t, Open, meaningOf(ct, value(t, ct, "charset")))
	assert.Equal(t, None, meaningOf(ct, value(t, ct, "upper")))
	assert.Equal(t, Open, meaningOf(ct, value(t, ct, "text-plain")))
	assert.Equal(t, Open, meaningOf(ct, value(t, ct, "form")))
	acc := byID["header/accept"]
	assert.Equal(t, None, meaningOf(acc, value(t, acc, "any")))
	assert.Equal(t, Open, meaningOf(acc, value(t, acc, "html")))
	assert.Equal(t, None, byID["method/head"].Meaning)
	assert.Contains(t, byID["method/head"].Why, "§9.3.2")
}

func value(t *testing.T, p Part, slug string) Value {
	t.Helper()
	for _, v := range p.Values {
		if v.Slug == slug {
			return v
		}
	}
	require.Failf(t, "no value", "%s has no value %s", p.ID, slug)
	return Value{}
}

// Every convention names its stack, source and what it does, and either parts that exist or
// why none does.
func TestConventions(t *testing.T) {
	byID := partsByID(t)
	stacks := map[string]bool{}
	for _, c := range Conventions() {
		assert.NotEmpty(t, c.Stack)
		assert.NotEmpty(t, c.Source, c.Stack)
		assert.NotEmpty(t, c.What, c.Stack)
		assert.Equal(t, len(c.Parts) == 0, c.Why != "", "%s: parts or a reason, not both", c.Stack)
		for _, id := range c.Parts {
			assert.Contains(t, byID, id, "%s: unknown part", c.Stack)
		}
		stacks[c.Stack] = true
	}
	for _, want := range []string{"Express", "Fastify", "NestJS", "Koa", "Hono", "Django", "Django REST framework", "Flask", "FastAPI", "Rails", "Sinatra",
		"Laravel", "Symfony", "Slim", "Spring", "ASP.NET Core", "Gin", "Echo", "Fiber", "chi", "nginx", "Apache httpd", "Caddy", "Envoy", "HAProxy",
		"AWS API Gateway", "Azure API Management", "Apigee", "Kong"} {
		found := false
		for s := range stacks {
			found = found || strings.Contains(s, want)
		}
		assert.True(t, found, "no convention of %s", want)
	}
}

// A header value without Fields is sent under the part's Name, which must then be a field
// name (RFC 9110 5.1: a token), not a description.
func TestHeaderPartsNameTheirField(t *testing.T) {
	token := regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
	for _, p := range Parts() {
		if p.Where != Header || p.NotSent != "" {
			continue
		}
		for _, v := range p.Values {
			if len(v.Fields) == 0 {
				assert.Regexp(t, token, p.Name, "%s %s", p.ID, v.Slug)
			}
			for _, f := range v.Fields {
				assert.Regexp(t, token, f.Name, "%s %s", p.ID, v.Slug)
			}
		}
	}
}

// The guard of a run reads the method-override fields and parameters from here: the ones the
// stacks document, the CGI-style spelling among them.
func TestMethodOverrides(t *testing.T) {
	fields, params := MethodOverrides()
	for _, f := range []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override", "X_HTTP_Method_Override"} {
		assert.Contains(t, fields, f)
	}
	assert.Equal(t, []string{"_method"}, params)
}

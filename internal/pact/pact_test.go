package pact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/pact"
)

// Files of each version are read into one model: pact-js's of v4, v3 and v2 (make
// pact-js), and two written by hand in the shapes pact-go v1 (v2: a query string, a rule
// with a regex only) and pact-jvm (v3) write.
func TestReadsEveryVersion(t *testing.T) {
	for file, version := range map[string]string{"pact-js-v2-web-petstore.json": "2.0.0", "pact-js-v3-web-petstore.json": "3.0.0"} {
		p, err := pact.ReadFile("../../testdata/pact/" + file)
		require.NoError(t, err)
		assert.Equal(t, version, p.Version)
		assert.Len(t, p.Interactions, 2)
	}
	jsV2, err := pact.ReadFile("../../testdata/pact/pact-js-v2-web-petstore.json")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"status": {"pending"}, "limit": {"5"}}, jsV2.Interactions[0].Request.Query)
	assert.Equal(t, 1, *jsV2.Interactions[0].Response.Rules["body"]["$"].Matchers[0].Min)

	v2, err := pact.ReadFile("../../testdata/pact/v2-go-client.json")
	require.NoError(t, err)
	assert.Equal(t, "2.0.0", v2.Version)
	assert.Equal(t, "go-v1-client", v2.Consumer)
	list := v2.Interactions[0]
	assert.Equal(t, map[string][]string{"status": {"pending"}, "limit": {"5"}}, list.Request.Query)
	assert.Equal(t, "Bearer "+pact.KeyPlaceholder, pact.Header(list.Request.Headers, "authorization"))
	assert.Equal(t, []pact.State{{Name: "some animals are pending"}}, list.States)
	body := list.Response.Rules["body"]
	assert.Equal(t, "regex", body["$[*].status"].Matchers[0].Match, "a v2 rule with a regex only is a regex matcher")
	assert.Equal(t, 0, *body["$"].Matchers[0].Min)

	v3, err := pact.ReadFile("../../testdata/pact/v3-jvm-client.json")
	require.NoError(t, err)
	assert.Equal(t, "3.0.0", v3.Version)
	assert.Equal(t, "integer", v3.Interactions[0].Response.Rules["body"]["$.id"].Matchers[0].Match)
	assert.Equal(t, "regex", v3.Interactions[0].Response.Rules["header"]["Content-Type"].Matchers[0].Match)
	assert.Equal(t, pact.StateAnimalExists, v3.Interactions[1].States[0].Name)
	assert.JSONEq(t, `{"name":"Bella","categoryId":3,"status":"sold"}`, string(v3.Interactions[0].Request.Body))

	v4, err := pact.ReadFile("../../testdata/pact/pact-js-web-petstore.json")
	require.NoError(t, err)
	assert.Equal(t, "4.0", v4.Version)
	require.Len(t, v4.Interactions, 4)
	create := v4.Interactions[1]
	assert.Equal(t, "POST", create.Request.Method)
	assert.JSONEq(t, `{"name":"Rex","categoryId":7,"status":"pending"}`, string(create.Request.Body), "v4's body content is the JSON value")
	assert.Contains(t, string(v4.Interactions[3].Request.Generators), "ProviderState")
}

// What Write writes, Read reads back the same.
func TestWriteThenRead(t *testing.T) {
	in, err := pact.ReadFile("../../testdata/pact/pact-js-web-petstore.json")
	require.NoError(t, err)
	data, err := pact.Write(in)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"pactSpecification": {`)
	out, err := pact.Read(data)
	require.NoError(t, err)
	assert.Equal(t, pact.SpecVersion, out.Version)
	for i := range in.Interactions {
		a, b := in.Interactions[i], out.Interactions[i]
		assert.Equal(t, a.Description, b.Description)
		assert.Equal(t, a.States, b.States)
		assert.Equal(t, a.Request.Query, b.Request.Query)
		assert.JSONEq(t, orNull(a.Response.Body), orNull(b.Response.Body))
		assert.Equal(t, a.Response.Rules, b.Response.Rules)
		assert.JSONEq(t, orNull(a.Request.Generators), orNull(b.Request.Generators))
	}
}

func orNull(b json.RawMessage) string {
	if b == nil {
		return "null"
	}
	return string(b)
}

func TestReadRefusesWhatIsNoPact(t *testing.T) {
	for _, bad := range []string{`[]`, `{"interactions": []}`, `{"interactions": [{"request": {"method": "GET", "path": "pets"}, "response": {"status": 200}}]}`,
		`{"interactions": [{"request": {"method": "GET", "path": "/pets"}, "response": {"status": 0}}]}`} {
		_, err := pact.Read([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestMatchBody(t *testing.T) {
	rules := func(m map[string]pact.Matcher) map[string]pact.RuleList {
		out := map[string]pact.RuleList{}
		for p, x := range m {
			out[p] = pact.RuleList{Matchers: []pact.Matcher{x}}
		}
		return out
	}
	pets := map[string]pact.RuleList{
		"$":           {Matchers: []pact.Matcher{{Match: "type", Min: pact.Ints(0), Max: pact.Ints(3)}}},
		"$[*].id":     {Matchers: []pact.Matcher{{Match: "integer"}}},
		"$[*].status": {Matchers: []pact.Matcher{{Match: "regex", Regex: "^(available)$"}}},
	}
	for _, c := range []struct {
		name           string
		rules          map[string]pact.RuleList
		expected, body string
		mismatch       string // "" for none; else a text of the first mismatch
	}{
		{"equal without matchers", nil, `{"a":1}`, `{"a":1.0,"b":2}`, ""},
		{"another value without matchers", nil, `{"a":"x"}`, `{"a":"y"}`, `$.a: want "x", got "y"`},
		{"a member missing", nil, `{"a":1}`, `{}`, `$.a: the member "a" is missing`},
		{"any id, any order, fewer items", pets, `[{"id":1,"status":"available"}]`, `[{"id":9,"status":"available"},{"id":3,"status":"available"}]`, ""},
		{"an empty list", pets, `[{"id":1,"status":"available"}]`, `[]`, ""},
		{"too many items", pets, `[{"id":1,"status":"available"}]`, `[{"id":1,"status":"available"},{"id":2,"status":"available"},{"id":3,"status":"available"},{"id":4,"status":"available"}]`, "at most 3 items"},
		{"another status", pets, `[{"id":1,"status":"available"}]`, `[{"id":1,"status":"sold"}]`, `$[0].status: want a value matching ^(available)$`},
		{"an id as a string", pets, `[{"id":1,"status":"available"}]`, `[{"id":"1","status":"available"}]`, `$[0].id: want an integer`},
		{"a type matcher reaches below", rules(map[string]pact.Matcher{"$": {Match: "type"}}), `{"a":{"b":"x"}}`, `{"a":{"b":"y"}}`, ""},
		{"a type matcher keeps the kind", rules(map[string]pact.Matcher{"$": {Match: "type"}}), `{"a":{"b":"x"}}`, `{"a":{"b":1}}`, `$.a.b: want a string, got a number`},
		{"equal lists", nil, `[1,2]`, `[1,2,3]`, `want 2 items, got 3`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var exp, act any
			require.NoError(t, decode(c.expected, &exp))
			require.NoError(t, decode(c.body, &act))
			ms := pact.MatchBody(c.rules, exp, act)
			if c.mismatch == "" {
				assert.Empty(t, ms)
				return
			}
			require.NotEmpty(t, ms)
			assert.Contains(t, ms[0].String(), c.mismatch)
		})
	}
}

func decode(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	return dec.Decode(v)
}

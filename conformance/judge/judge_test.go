package judge_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

func facts(t *testing.T) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	return f
}

func TestErrorRecord(t *testing.T) {
	f := facts(t)
	jsonType := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name        string
		status      int
		header      http.Header
		body        string
		shapeJudged bool
		want        []string // substrings of the findings, in order
	}{
		{"a record", 404, jsonType, `{"code":"not_found","message":"no","status":404}`, false, nil},
		{"status repeats another", 404, jsonType, `{"code":"x","message":"no","status":400}`, false,
			[]string{"the Error record's status is 400 but the HTTP status is 404 (section 7)"}},
		{"status as text", 404, jsonType, `{"code":"x","message":"no","status":"404"}`, false,
			[]string{"error response is not an Error record: value must be an integer"}},
		{"plain text", 404, http.Header{"Content-Type": {"text/plain"}}, `404 page not found`, false,
			[]string{`error response has media type "text/plain", not application/json (section 7)`}},
		{"problem details", 400, http.Header{"Content-Type": {"application/problem+json"}}, `{"title":"bad"}`, false,
			[]string{"not application/json (section 7)"}},
		{"not JSON", 400, jsonType, `{`, false, []string{"error response body is not JSON"}},
		{"no code", 400, jsonType, `{"message":"no","status":400}`, false, []string{`error response is not an Error record: property "code" is missing (section 7)`}},
		{"shape judged elsewhere: only the status", 400, http.Header{}, `{"status":401}`, true,
			[]string{"the Error record's status is 401 but the HTTP status is 400"}},
		{"shape judged elsewhere: a bad shape passes here", 400, http.Header{}, `nonsense`, true, nil},
		{"a success is no error answer", 200, http.Header{}, `nonsense`, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := judge.ErrorRecord(f, tc.status, tc.header, []byte(tc.body), tc.shapeJudged)
			require.Len(t, fs, len(tc.want), "%+v", fs)
			for i, w := range tc.want {
				assert.Contains(t, fs[i].Message, w)
				assert.Contains(t, fs[i].Message, "(section 7)")
				assert.True(t, judge.AboutErrorRecord(fs[i]), "a caller sorting findings knows it for the Error record's")
			}
		})
	}
	assert.True(t, judge.AboutErrorRecord(report.Failure{Message: "value must be a string", Pointer: "#/components/schemas/Error/properties/code"}))
	assert.False(t, judge.AboutErrorRecord(report.Failure{Message: "property \"name\" is missing", Pointer: "#/components/schemas/Pet/required"}))
}

func TestListingAsked(t *testing.T) {
	f := facts(t)
	def, lo, hi := f.Limit.Default, f.Limit.Min, f.Limit.Max
	first := f.Statuses[0]
	for _, tc := range []struct {
		query string
		want  judge.Listing
	}{
		{"", judge.Listing{Limit: def, Valid: true}},
		{"limit=" + itoa(lo), judge.Listing{Limit: lo, Valid: true}},
		{"limit=" + itoa(hi+1), judge.Listing{Limit: hi}},                      // open: at most the maximum
		{"limit=" + itoa(lo) + "&limit=" + itoa(lo), judge.Listing{Limit: hi}}, // repeated: open
		{"limit=0" + itoa(lo), judge.Listing{Limit: hi}},                       // not as written
		{"LIMIT=" + itoa(lo), judge.Listing{Limit: def, Valid: true}},          // another parameter
		{"limit=%zz", judge.Listing{Limit: hi}},
		{"status=" + first, judge.Listing{Limit: def, Statuses: []string{first}, Valid: true}},
		{"status=" + first + "&status=unknown", judge.Listing{Limit: def}},
		{"st%61tus=" + first + "&lim%69t=" + itoa(lo), judge.Listing{Limit: lo, Statuses: []string{first}, Valid: true}},
	} {
		assert.Equal(t, tc.want, judge.ListingAsked(f, tc.query), "query %q", tc.query)
	}
}

func TestListingJudge(t *testing.T) {
	pets := func(statuses ...string) []map[string]any {
		var out []map[string]any
		for i, s := range statuses {
			p := map[string]any{"id": json.Number(itoa(int64(i + 1)))}
			if s != "" {
				p["status"] = s
			}
			out = append(out, p)
		}
		return out
	}
	assert.Empty(t, judge.Listing{Limit: 2}.Judge(pets("a", "b")))
	fs := judge.Listing{Limit: 1}.Judge(pets("a", "b"))
	require.Len(t, fs, 1)
	assert.Equal(t, "the listing holds more animals than the limit allows (4.1 rule 1; 8)", fs[0].Message)
	assert.Equal(t, "at most 1 animal", fs[0].Expected)
	assert.Equal(t, "2 animals", fs[0].Actual)

	assert.Empty(t, judge.Listing{Limit: 5, Statuses: []string{"a"}}.Judge(pets("a", "", "a")), "an animal without a status does not contradict the filter")
	fs = judge.Listing{Limit: 5, Statuses: []string{"a"}}.Judge(pets("a", "b", "c"))
	require.Len(t, fs, 1, "the first animal of another status is named")
	assert.Equal(t, `status "b" (id 2)`, fs[0].Actual)
	assert.Contains(t, fs[0].Message, "(4.1 rule 2)")
}

func TestStored(t *testing.T) {
	got := map[string]any{"id": json.Number("7"), "name": "Rex\u00e9", "categoryId": json.Number("9007199254740992")}
	fs := judge.Stored(map[string][]string{"name": {`"Rex\u00e9"`}, "categoryId": {"9007199254740993"}, "status": {`"sold"`}}, got, "the created Pet")
	require.Len(t, fs, 2, "%+v", fs)
	assert.Equal(t, "the created Pet holds another categoryId than was sent", fs[0].Message, "int64 compared as text, not through float64")
	assert.Equal(t, "the created Pet lacks the status that was sent", fs[1].Message)
	assert.Empty(t, judge.Stored(map[string][]string{"categoryId": {"9007199254740992.0", "1"}, "name": {`"Rex\u00e9"`}}, got, "x"), "any of the values; numbers as decimals")
	assert.NotEmpty(t, judge.Stored(map[string][]string{"name": {`"Rex\u0065\u0301"`}}, got, "x"), "strings byte for byte: no normalisation")

	wants, ok := judge.Sent([]byte(`{"name":"Rex","categoryId":9223372036854775807}`))
	require.True(t, ok)
	assert.Equal(t, map[string][]string{"name": {`"Rex"`}, "categoryId": {"9223372036854775807"}}, wants)
	_, ok = judge.Sent([]byte(`[1]`))
	assert.False(t, ok)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

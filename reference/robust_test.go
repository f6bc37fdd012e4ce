package reference

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
)

// hostileCases are requests a careless or malicious client sends. Each one gets a 4xx and an
// Error body, never a 5xx, a panic or a success it should not get. They complement
// responseCases (server_test.go), which walk the interface document's tables.
var hostileCases = []struct {
	name    string
	maxBody int64 // Config.MaxBodyBytes; 0 is the default
	req     req
	status  int
	code    string // Error code; "" for a success body
}{
	// Bodies over the cap, announced or not (chunked bodies are in TestBodyLimit).
	{"413 over a configured cap", 100, post(`{"name":"` + strings.Repeat("x", 100) + `","categoryId":1}`), 413, core.CodePayloadTooLarge},
	{"201 at a configured cap", 100, post(`{"name":"` + strings.Repeat("x", 100-len(`{"name":"","categoryId":1,"status":"available"}`)) + `","categoryId":1,"status":"available"}`), 201, ""},
	{"413 on GET too", 10, req{method: "GET", path: "/v1/pets", auth: authed, body: strings.Repeat("x", 11)}, 413, core.CodePayloadTooLarge},

	// Content types other than application/json.
	{"415 application/xml", 0, postAs("application/xml", `<pet/>`), 415, core.CodeUnsupportedMediaType},
	{"415 form", 0, postAs("application/x-www-form-urlencoded", `name=Rex&categoryId=1`), 415, core.CodeUnsupportedMediaType},
	{"415 multipart", 0, postAs("multipart/form-data; boundary=x", "--x--"), 415, core.CodeUnsupportedMediaType},
	{"415 json suffix", 0, postAs("application/merge-patch+json", `{"name":"Rex","categoryId":1}`), 415, core.CodeUnsupportedMediaType},
	{"415 json prefix", 0, postAs("application/jsonx", `{"name":"Rex","categoryId":1}`), 415, core.CodeUnsupportedMediaType},
	{"415 unparsable", 0, postAs(";;;", `{"name":"Rex","categoryId":1}`), 415, core.CodeUnsupportedMediaType},
	{"201 upper-case media type", 0, postAs("Application/JSON", `{"name":"Rex","categoryId":1,"status":"available"}`), 201, ""},

	// JSON that is not a NewPet.
	{"400 truncated in a string", 0, post(`{"name":"Re`), 400, core.CodeInvalidRequest},
	{"400 truncated after a key", 0, post(`{"name"`), 400, core.CodeInvalidRequest},
	{"400 trailing data", 0, post(`{"name":"Rex","categoryId":1}}`), 400, core.CodeInvalidRequest},
	{"400 two documents", 0, post(`{"name":"Rex","categoryId":1}{"name":"Tom","categoryId":2}`), 400, core.CodeInvalidRequest},
	{"400 bare string", 0, post(`"Rex"`), 400, core.CodeInvalidRequest},
	{"400 null", 0, post(`null`), 400, core.CodeInvalidRequest},
	{"400 white space only", 0, post(" \n\t "), 400, core.CodeInvalidRequest},
	{"400 NUL bytes", 0, post("\x00\x00\x00"), 400, core.CodeInvalidRequest},
	{"400 single quotes", 0, post(`{'name':'Rex','categoryId':1}`), 400, core.CodeInvalidRequest},
	{"400 comment", 0, post(`{"name":"Rex",/* */"categoryId":1}`), 400, core.CodeInvalidRequest},
	{"400 byte order mark", 0, post("\xef\xbb\xbf" + `{"name":"Rex","categoryId":1}`), 400, core.CodeInvalidRequest},
	{"400 100k nested arrays", 1 << 20, post(strings.Repeat("[", 100_000)), 400, core.CodeInvalidRequest},
	{"400 100k nested arrays, closed", 1 << 20, post(strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)), 400, core.CodeInvalidRequest},
	{"400 nested objects in a field", 1 << 20, post(`{"name":"Rex","categoryId":1,"x":` + strings.Repeat(`{"a":`, 50_000) + "1" + strings.Repeat("}", 50_000) + "}"), 400, core.CodeInvalidRequest},
	{"400 nesting up to the default cap", 0, post(strings.Repeat("[", DefaultMaxBodyBytes)), 400, core.CodeInvalidRequest},

	// Not UTF-8: encoding/json would quietly turn these bytes into U+FFFD.
	{"400 Latin-1 name", 0, post("{\"name\":\"Caf\xe9\",\"categoryId\":1}"), 400, core.CodeInvalidRequest},
	{"400 invalid byte in a key", 0, post("{\"name\":\"Rex\",\"categoryId\":1,\"\xff\":1}"), 400, core.CodeInvalidRequest},
	{"400 encoded surrogate", 0, post("{\"name\":\"\xed\xa0\x80\",\"categoryId\":1}"), 400, core.CodeInvalidRequest},
	{"400 overlong encoding", 0, post("{\"name\":\"\xc0\xaf\",\"categoryId\":1}"), 400, core.CodeInvalidRequest},
	{"400 UTF-16", 0, post("{\x00\"\x00n\x00\"\x00}\x00"), 400, core.CodeInvalidRequest},
	{"201 escaped non-ASCII", 0, post(`{"name":"Caf\u00e9 🐈","categoryId":1,"status":"available"}`), 201, ""},

	// Duplicate keys, at the top and further down.
	{"400 duplicate categoryId", 0, post(`{"name":"Rex","categoryId":1,"categoryId":2}`), 400, core.CodeInvalidRequest},
	{"400 duplicate status", 0, post(`{"name":"Rex","categoryId":1,"status":"sold","status":"sold"}`), 400, core.CodeInvalidRequest},
	{"400 duplicate in an ignored field", 0, post(`{"name":"Rex","categoryId":1,"x":{"k":1,"k":2}}`), 400, core.CodeInvalidRequest},
	{"400 duplicate by escape", 0, post(`{"name":"Rex","categoryId":1,"na\u006de":"Tom"}`), 400, core.CodeInvalidRequest},

	// int64 fields.
	{"201 categoryId max int64", 0, post(`{"name":"Rex","categoryId":9223372036854775807,"status":"available"}`), 201, ""},
	{"400 categoryId below min int64", 0, post(`{"name":"Rex","categoryId":-9223372036854775809}`), 400, core.CodeInvalidRequest},
	{"400 categoryId 1e19", 0, post(`{"name":"Rex","categoryId":1e19}`), 400, core.CodeInvalidRequest},
	{"400 categoryId 1e400", 0, post(`{"name":"Rex","categoryId":1e400}`), 400, core.CodeInvalidRequest},
	{"400 categoryId 100 digits", 0, post(`{"name":"Rex","categoryId":` + strings.Repeat("9", 100) + `}`), 400, core.CodeInvalidRequest},
	{"400 categoryId 0.5", 0, post(`{"name":"Rex","categoryId":0.5}`), 400, core.CodeInvalidRequest},
	{"400 categoryId 1e-3", 0, post(`{"name":"Rex","categoryId":1e-3}`), 400, core.CodeInvalidRequest},
	{"400 categoryId true", 0, post(`{"name":"Rex","categoryId":true}`), 400, core.CodeInvalidRequest},
	{"400 categoryId null", 0, post(`{"name":"Rex","categoryId":null}`), 400, core.CodeInvalidRequest},
	{"400 categoryId array", 0, post(`{"name":"Rex","categoryId":[1]}`), 400, core.CodeInvalidRequest},
	{"400 categoryId hex", 0, post(`{"name":"Rex","categoryId":0x10}`), 400, core.CodeInvalidRequest},
	{"400 categoryId leading zero", 0, post(`{"name":"Rex","categoryId":01}`), 400, core.CodeInvalidRequest},
	{"400 categoryId NaN", 0, post(`{"name":"Rex","categoryId":NaN}`), 400, core.CodeInvalidRequest},
	{"201 categoryId 1.0", 0, post(`{"name":"Rex","categoryId":1.0,"status":"available"}`), 201, ""},

	// petId in the path.
	{"400 petId beyond int64", 0, get("/v1/pets/99999999999999999999999999"), 400, core.CodeInvalidRequest},
	{"400 petId 1000 digits", 0, get("/v1/pets/" + strings.Repeat("9", 1000)), 400, core.CodeInvalidRequest},
	{"404 petId max int64", 0, get("/v1/pets/9223372036854775807"), 404, core.CodeNotFound},
	{"404 petId min int64", 0, get("/v1/pets/-9223372036854775808"), 404, core.CodeNotFound},
	{"400 petId below min int64", 0, get("/v1/pets/-9223372036854775809"), 400, core.CodeInvalidRequest},
	{"404 petId zero", 0, get("/v1/pets/0"), 404, core.CodeNotFound},
	{"404 petId -0", 0, get("/v1/pets/-0"), 404, core.CodeNotFound},
	{"400 petId fractional", 0, get("/v1/pets/1.5"), 400, core.CodeInvalidRequest},
	{"400 petId exponent", 0, get("/v1/pets/1e3"), 400, core.CodeInvalidRequest},
	{"400 petId space", 0, get("/v1/pets/%201"), 400, core.CodeInvalidRequest},
	{"400 petId NUL", 0, get("/v1/pets/1%00"), 400, core.CodeInvalidRequest},
	{"400 petId with an escaped slash", 0, get("/v1/pets/1%2F2"), 400, core.CodeInvalidRequest},
	{"404 dot segments", 0, get("/v1/pets/../pets"), 404, core.CodeNotFound},

	// The query.
	{"400 limit three times", 0, get("/v1/pets?limit=1&limit=1&limit=1"), 400, core.CodeInvalidRequest},
	{"400 status given twice, one empty", 0, get("/v1/pets?status=sold&status="), 400, core.CodeInvalidRequest},
	{"400 limit beyond int64", 0, get("/v1/pets?limit=99999999999999999999"), 400, core.CodeInvalidRequest},
	{"400 limit negative", 0, get("/v1/pets?limit=-1"), 400, core.CodeInvalidRequest},
	{"400 status in other case", 0, get("/v1/pets?status=SOLD"), 400, core.CodeInvalidRequest},
	{"400 status not UTF-8", 0, get("/v1/pets?status=%ff"), 400, core.CodeInvalidRequest},
	{"200 bad escape elsewhere", 0, get("/v1/pets?x=%zz&limit=2"), 200, ""},
	{"200 long query", 0, get("/v1/pets?x=" + strings.Repeat("a", 100_000)), 200, ""},

	// Long paths and headers (the http.Server's MaxHeaderBytes cap is tested in cmd/petstore).
	{"404 long path", 0, get("/v1/" + strings.Repeat("a", 100_000)), 404, core.CodeNotFound},
	{"401 long key", 0, req{method: "GET", path: "/v1/pets", auth: "Bearer " + strings.Repeat("k", 100_000)}, 401, core.CodeUnauthorized},
	{"401 key not UTF-8", 0, req{method: "GET", path: "/v1/pets", auth: "Bearer \xff\xfe"}, 401, core.CodeUnauthorized},
	{"401 key after a tab", 0, req{method: "GET", path: "/v1/pets", auth: "Bearer\t" + testKey}, 401, core.CodeUnauthorized},
	{"401 key with a suffix", 0, req{method: "GET", path: "/v1/pets", auth: authed + " x"}, 401, core.CodeUnauthorized},

	// Methods the spec does not declare.
	{"HEAD served as GET", 0, req{method: "HEAD", path: "/v1/pets", auth: authed}, 200, ""},
	{"HEAD without a key", 0, req{method: "HEAD", path: "/v1/pets"}, 401, core.CodeUnauthorized},
	{"405 OPTIONS", 0, req{method: "OPTIONS", path: "/v1/pets", auth: authed}, 405, core.CodeMethodNotAllowed},
	{"405 TRACE", 0, req{method: "TRACE", path: "/v1/pets/1", auth: authed}, 405, core.CodeMethodNotAllowed},
	{"405 invented method", 0, req{method: "BREW", path: "/v1/pets", auth: authed}, 405, core.CodeMethodNotAllowed},
	{"405 lower-case get", 0, req{method: "get", path: "/v1/pets", auth: authed}, 405, core.CodeMethodNotAllowed},
	{"405 without a key", 0, req{method: unusedMethod, path: "/v1/pets/1"}, 405, core.CodeMethodNotAllowed},
	{"405 POST /healthz", 0, req{method: "POST", path: "/healthz"}, 405, core.CodeMethodNotAllowed},
}

// postAs is an authenticated POST /v1/pets with the given Content-Type.
func postAs(contentType, body string) req {
	return req{method: "POST", path: "/v1/pets", auth: authed, contentType: contentType, body: body}
}

func TestHostileInput(t *testing.T) {
	for _, mode := range []struct {
		name string
		cfg  Config
	}{{"validated", Config{}}, {"no-validation", Config{NoValidation: true}}} {
		for _, tc := range hostileCases {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				cfg := mode.cfg
				cfg.Seed, cfg.MaxBodyBytes = seedOf(3), tc.maxBody
				w := do(t, newTestServer(t, cfg), tc.req)
				require.Equal(t, tc.status, w.Code, "body: %.300s", w.Body)
				if tc.code == "" {
					return
				}
				assert.Equal(t, tc.code, errorBody(t, w).Code)
				if tc.status == http.StatusMethodNotAllowed {
					assert.NotEmpty(t, w.Header().Get("Allow"))
				}
			})
		}
	}
}

// A message quotes the offending value, but never more than maxMessageBytes of it.
func TestLongValuesAreCutInMessages(t *testing.T) {
	for _, mode := range []Config{{}, {NoValidation: true}} {
		h := newTestServer(t, mode)
		for _, path := range []string{"/v1/pets?limit=" + strings.Repeat("9", 10_000),
			"/v1/pets?limit=" + strings.Repeat("é", 10_000), "/v1/pets/" + strings.Repeat("x", 10_000)} {
			w := do(t, h, get(path))
			require.Equal(t, http.StatusBadRequest, w.Code)
			e := errorBody(t, w)
			assert.LessOrEqual(t, len(e.Message), core.MaxMessageBytes)
			assert.True(t, strings.HasSuffix(e.Message, "…"), e.Message)
			assert.True(t, utf8.ValidString(e.Message))
		}
	}
}

// The bytes of a name come back as they were sent: nothing is replaced on the way in.
func TestNameBytesSurvive(t *testing.T) {
	h := newTestServer(t, Config{})
	name := "Ünïcödé 🐕 \u2028 \\ \" </script>"
	w := do(t, h, post(`{"name":`+jsonQuote(name)+`,"categoryId":1,"status":"available"}`))
	require.Equal(t, http.StatusCreated, w.Code, "body: %s", w.Body)
	got := pets(t, do(t, h, get("/v1/pets")))
	require.Len(t, got, 1)
	assert.Equal(t, name, got[0].Name)
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// failingBody sends some bytes, then fails the way a truncated chunked body or a client that
// hangs up does.
type failingBody struct{ sent bool }

func (b *failingBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, `{"name":"Re`), nil
	}
	return 0, io.ErrUnexpectedEOF
}

// A body that cannot be read to its end is the client's fault: 400, not 500, and not the 401
// that kin-openapi's security check would wrap the read error into. Without a key, a 401
// (when the key is checked before the body is read) is as good.
func TestBodyReadErrors(t *testing.T) {
	for _, cfg := range []Config{{}, {NoValidation: true}} {
		h := newTestServer(t, cfg)
		for _, auth := range []string{authed, ""} {
			r := newRequest(t, "POST", "/v1/pets", &failingBody{})
			r.ContentLength = -1
			if auth == "" {
				r.Header.Del("Authorization")
			}
			w := serve(h, r)
			e := errorBody(t, w)
			if auth == "" && w.Code == http.StatusUnauthorized {
				continue
			}
			require.Equal(t, http.StatusBadRequest, w.Code, "body: %s", w.Body)
			assert.Equal(t, core.CodeInvalidRequest, e.Code)
			assert.Contains(t, e.Message, "ended early")
			assert.NotContains(t, e.Message, "127.0.0.1", "no socket addresses in a client's message")
			assert.Equal(t, "close", w.Header().Get("Connection"), "the connection's framing is lost")
		}
	}
}

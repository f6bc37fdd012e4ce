package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// The README's curl session through the proxy in front of the reference server: no
// violation, and every client sees exactly what the upstream sent.
func TestReferenceTrafficConforms(t *testing.T) {
	direct := newReference(t, nil)
	px, p, logs := newTestProxy(t, newReference(t, nil).URL+"/v1", Config{})
	for _, c := range readmeTraffic {
		want := send(t, direct.URL, c)
		got := send(t, px.URL, c)
		assert.Equal(t, want.status, got.status, "%s %s", c.method, c.path)
		assert.Equal(t, string(want.body), string(got.body), "%s %s: bytes unchanged", c.method, c.path)
		want.header.Del("Date")
		got.header.Del("Date")
		assert.Equal(t, want.header, got.header, "%s %s: headers unchanged", c.method, c.path)
	}
	// The session calls the deprecated getPet: reported, ADVISORY, not failed.
	wantClient := []string{deprecatedGetPet("/v1/pets/1", 200), deprecatedGetPet("/v1/pets/999", 404)}
	assert.Equal(t, wantClient, lines(logs.String()))
	sum := p.Summary()
	assert.Equal(t, len(readmeTraffic), sum.Checked)
	assert.Zero(t, sum.Violations)
	assert.Equal(t, wantClient, findingLines(sum.Findings))
	assert.Equal(t, map[string]int{"ADVISORY": 2}, sum.ClientFindings)
	assert.False(t, sum.Fails())
}

// Requests the document leaves open get the reference's answers, which the proxy judges as
// run does: a body the description refuses answered 415 (a status it does not document)
// with an Error record, and an id written percent-encoded (the same path, RFC 3986 6.2.2.2).
func TestOpenAnswersAreNoViolations(t *testing.T) {
	px, p, _ := newTestProxy(t, newReference(t, nil).URL+"/v1", Config{})
	got := send(t, px.URL, call{method: "GET", path: "/v1/pets/%31", auth: bearer})
	assert.Equal(t, http.StatusOK, got.status)
	req, err := http.NewRequest(http.MethodPost, px.URL+"/v1/pets", strings.NewReader("x"))
	require.NoError(t, err)
	req.Header.Set("Authorization", bearer)
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
	assert.Equal(t, []string{deprecatedGetPet("/v1/pets/%31", 200)}, findingLines(p.Summary().Findings), "getPet is deprecated, no more")

	// The same refusal without an Error record is a finding: open is not anything.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unsupported", http.StatusUnsupportedMediaType)
	}))
	t.Cleanup(plain.Close)
	px, p, _ = newTestProxy(t, plain.URL+"/v1", Config{})
	req, err = http.NewRequest(http.MethodPost, px.URL+"/v1/pets", strings.NewReader("x"))
	require.NoError(t, err)
	req.Header.Set("Authorization", bearer)
	req.Header.Set("Content-Type", "text/plain")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Len(t, p.Summary().Findings, 1)
	assert.Contains(t, p.Summary().Findings[0].Message, "not application/json (section 7)")
}

// faultyTraffic is the README session plus an anonymous read, which the faulty server serves.
var faultyTraffic = append(append([]call{}, readmeTraffic...), call{method: "GET", path: "/v1/pets/2"})

// wantFaulty are the lines faultyTraffic yields through the faulty server, one per violation.
var wantFaulty = []string{
	`violation: listPets response at body/0/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required) [GET /v1/pets -> 200]`,
	`violation: listPets response at body/1/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required) [GET /v1/pets -> 200]`,
	`violation: listPets response at body/0/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required) [GET /v1/pets?limit=1&status=available -> 200]`,
	`violation: createPet response at status: status 200 is not documented for createPet (documented: 201, 400, 401) (#/paths/~1pets/post/responses) [POST /v1/pets -> 200]`,
	deprecatedGetPet("/v1/pets/1", 200),
	deprecatedGetPet("/v1/pets/999", 404),
	`violation: listPets response at header Content-Type: media type "text/plain; charset=utf-8" is not documented for status 401 (documented: application/json) (#/components/responses/Unauthorized/content) [GET /v1/pets -> 401]`,
	// The anonymous read: its violation names client/auth-bearer, and the judge's finding of
	// that rule is not reported again.
	`violation: getPet request at header Authorization: security requirements failed: no bearer token in the Authorization header (#/security) [GET /v1/pets/2 -> 200]`,
	deprecatedGetPet("/v1/pets/2", 200),
}

func TestFaultyServerViolations(t *testing.T) {
	px, p, logs := newTestProxy(t, newReference(t, faulty).URL+"/v1", Config{})
	for _, c := range faultyTraffic {
		send(t, px.URL, c)
	}
	assert.Equal(t, wantFaulty, lines(logs.String()))
	sum := p.Summary()
	assert.Equal(t, len(wantFaulty)-3, sum.Violations)
	assert.Equal(t, map[string]int{"ADVISORY": 3}, sum.ClientFindings)
	assert.Equal(t, map[string]int{"listPets": 4, "createPet": 1, "getPet": 1}, sum.ViolationsByOperation)
	assert.Equal(t, wantFaulty, findingLines(sum.Findings))
	// The request's violation is named by the client rule it breaks, as the reference's test
	// double names it (internal/clientrules); a response's by none.
	for _, f := range sum.Findings {
		if f.Kind == KindClientRule {
			assert.Equal(t, "client/deprecated-operation", f.ClientRule.ID)
			assert.Equal(t, "getPet", f.Operation)
			assert.False(t, f.Fails(), "ADVISORY")
			continue
		}
		if f.Direction == spec.Request {
			require.NotNil(t, f.ClientRule, f.String())
			assert.Equal(t, "client/auth-bearer", f.ClientRule.ID)
			assert.Equal(t, "MUST", f.ClientRule.Level.String())
		} else {
			assert.Nil(t, f.ClientRule, f.String())
		}
	}
}

func TestFailOnViolation(t *testing.T) {
	px, _, logs := newTestProxy(t, newReference(t, faulty).URL+"/v1", Config{FailOnViolation: true})

	got := send(t, px.URL, call{method: "GET", path: "/v1/pets", auth: bearer})
	assert.Equal(t, http.StatusBadGateway, got.status)
	e := errorRecord(t, got)
	assert.Equal(t, "contract_violation", e.Code)
	assert.Equal(t, http.StatusBadGateway, e.Status)
	assert.Contains(t, e.Message, `listPets response at body/0/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required)`)
	assert.Len(t, lines(logs.String()), 2, "still logged, one line per violation")

	t.Run("a conforming exchange passes through", func(t *testing.T) {
		got := send(t, px.URL, call{method: "GET", path: "/v1/pets/1", auth: bearer})
		assert.Equal(t, http.StatusOK, got.status)
		assert.JSONEq(t, `{"id":1,"name":"Tom","categoryId":2,"status":"available"}`, string(got.body))
	})
	t.Run("a bad request the upstream rejects as documented passes through", func(t *testing.T) {
		got := send(t, px.URL, call{method: "GET", path: "/v1/pets?limit=500", auth: bearer})
		assert.Equal(t, http.StatusBadRequest, got.status)
		assert.Equal(t, "invalid_request", errorRecord(t, got).Code)
	})
	t.Run("a bad request the upstream accepts fails", func(t *testing.T) {
		got := send(t, px.URL, call{method: "GET", path: "/v1/pets/1"})
		assert.Equal(t, http.StatusBadGateway, got.status)
		assert.Contains(t, errorRecord(t, got).Message, "getPet request at header Authorization")
	})
}

func TestKeyNeverLogged(t *testing.T) {
	rec := NewRecorder()
	px, p, logs := newTestProxy(t, newReference(t, faulty).URL+"/v1", Config{Record: rec})
	for _, c := range append(faultyTraffic,
		call{method: "GET", path: "/v1/" + testKey, auth: bearer},                   // the key in a path
		call{method: "GET", path: "/v1/pets?api_key=" + testKey, auth: "Basic xyz"}, // and in a query
	) {
		send(t, px.URL, c)
	}
	var har bytes.Buffer
	_, err := rec.WriteTo(&har)
	require.NoError(t, err)
	report, err := json.Marshal(p.Summary())
	require.NoError(t, err)

	assert.Contains(t, logs.String(), "no operation matches GET /v1/***: ", "the line is still there, masked")
	assert.Contains(t, har.String(), `"value": "Bearer ***"`)
	for name, text := range map[string]string{"log": logs.String(), "HAR": har.String(), "report": string(report)} {
		assert.NotContains(t, text, testKey, name)
		assert.NotContains(t, text, "xyz", name)
	}
}

// A key check's request that names only the scheme ("Authorization: bearer", as conformance
// run sends one) teaches the proxy no secret: the HAR of the keyed requests that follow still
// shows their scheme, so check-har judges them as the proxy did.
func TestSchemeAloneIsNoSecret(t *testing.T) {
	rec := NewRecorder()
	px, _, _ := newTestProxy(t, newReference(t, nil).URL+"/v1", Config{Record: rec})
	send(t, px.URL, call{method: "GET", path: "/v1/pets", auth: "bearer"})
	send(t, px.URL, call{method: "GET", path: "/v1/pets", auth: "Basic"})
	send(t, px.URL, call{method: "GET", path: "/v1/pets", auth: "bearer " + testKey})
	var har bytes.Buffer
	_, err := rec.WriteTo(&har)
	require.NoError(t, err)
	assert.Contains(t, har.String(), `"value": "bearer ***"`)
	assert.NotContains(t, har.String(), `*** ***`)
	assert.NotContains(t, har.String(), testKey)
}

func TestUpstreamDown(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	px, p, logs := newTestProxy(t, down.URL+"/v1", Config{})
	got := send(t, px.URL, call{method: "GET", path: "/v1/pets", auth: bearer})
	assert.Equal(t, http.StatusBadGateway, got.status)
	e := errorRecord(t, got)
	assert.Equal(t, "upstream_unavailable", e.Code)
	assert.Equal(t, 502, e.Status)
	assert.Contains(t, logs.String(), "upstream error: GET /v1/pets: ")
	assert.Equal(t, 1, p.Summary().UpstreamErrors)
	assert.Zero(t, p.Summary().Checked)
}

// The upstream URL's path, minus the base path, is a prefix: the client's /v1/... keeps its
// shape whether the upstream is given as an origin, a base URL, or a base URL behind a mount.
func TestUpstreamPath(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI())
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(up.Close)
	for _, tt := range []struct{ upstream, want string }{
		{up.URL, "/v1/pets?limit=2"},
		{up.URL + "/", "/v1/pets?limit=2"},
		{up.URL + "/v1", "/v1/pets?limit=2"},
		{up.URL + "/v1/", "/v1/pets?limit=2"},
		{up.URL + "/api/v1", "/api/v1/pets?limit=2"},
		{up.URL + "/api", "/api/v1/pets?limit=2"},
	} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		px, _, _ := newTestProxy(t, tt.upstream, Config{})
		send(t, px.URL, call{method: "GET", path: "/v1/pets?limit=2", auth: bearer})
		mu.Lock()
		assert.Equal(t, []string{tt.want}, seen, tt.upstream)
		mu.Unlock()
	}
}

func TestOutsideBasePathPassesUnchecked(t *testing.T) {
	px, p, logs := newTestProxy(t, newReference(t, nil).URL+"/v1", Config{FailOnViolation: true})
	got := send(t, px.URL, call{method: "GET", path: "/healthz"})
	assert.Equal(t, http.StatusOK, got.status)
	assert.JSONEq(t, `{"status":"ok"}`, string(got.body))
	req, err := http.NewRequest(http.MethodOptions, px.URL+"/v1/pets", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Empty(t, logs.String())
	assert.Equal(t, 2, p.Summary().Ignored)
}

func TestReport(t *testing.T) {
	px, _, _ := newTestProxy(t, newReference(t, nil).URL+"/v1", Config{})
	for _, c := range readmeTraffic {
		send(t, px.URL, c)
	}
	got := send(t, px.URL, call{method: "GET", path: ReportPath})
	require.Equal(t, http.StatusOK, got.status)
	var sum Summary
	require.NoError(t, json.Unmarshal(got.body, &sum))
	assert.Equal(t, 6, sum.Checked)
	assert.Equal(t, 10, sum.Coverage.Pairs, "listPets 200/400/401, createPet 201/400/401, getPet 200/400/401/404")
	assert.Equal(t, 5, sum.Coverage.Exercised)
	byOp := map[string]OperationCoverage{}
	for _, oc := range sum.Coverage.Operations {
		byOp[oc.Operation] = oc
	}
	assert.Equal(t, []Count{{Status: 200, Count: 2}, {Status: 400, Count: 0}, {Status: 401, Count: 1}}, byOp["listPets"].Statuses)
	assert.Equal(t, []Count{{Status: 200, Count: 1}, {Status: 400, Count: 0}, {Status: 401, Count: 0}, {Status: 404, Count: 1}}, byOp["getPet"].Statuses)
	assert.Equal(t, []ParameterCoverage{
		{In: "query", Name: "limit", Count: 1},
		{In: "query", Name: "status", Count: 1, Values: []ValueCount{{Value: "available", Count: 1}, {Value: "pending", Count: 0}, {Value: "sold", Count: 0}}},
	}, byOp["listPets"].Parameters)
	assert.Equal(t, []ParameterCoverage{
		{In: "body", Name: "categoryId", Count: 1},
		{In: "body", Name: "name", Count: 1},
		{In: "body", Name: "status", Count: 1, Values: []ValueCount{{Value: "available", Count: 1}, {Value: "pending", Count: 0}, {Value: "sold", Count: 0}}},
	}, byOp["createPet"].Parameters)

	var text strings.Builder
	require.NoError(t, sum.WriteText(&text))
	assert.Contains(t, text.String(), "coverage: 5 of 10 documented operation x status pairs exercised (50%)")
	assert.Contains(t, text.String(), "listPets   GET    /pets            200 x2, 400 -, 401 x1")

	for path, status := range map[string]int{"/__conformance/nope": 404} {
		assert.Equal(t, status, send(t, px.URL, call{method: "GET", path: path}).status)
	}
	assert.Equal(t, http.StatusMethodNotAllowed, send(t, px.URL, call{method: "POST", path: ReportPath}).status)
}

func TestConcurrentTraffic(t *testing.T) {
	rec := NewRecorder()
	px, p, logs := newTestProxy(t, newReference(t, nil).URL+"/v1", Config{Record: rec})
	const clients = 8
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for _, c := range readmeTraffic {
				send(t, px.URL, c)
			}
		})
	}
	wg.Wait()
	got := lines(logs.String())
	assert.Len(t, got, clients*2, "each client's two getPet calls")
	for _, l := range got {
		assert.Contains(t, []string{deprecatedGetPet("/v1/pets/1", 200), deprecatedGetPet("/v1/pets/999", 404)}, l)
	}
	assert.Equal(t, clients*len(readmeTraffic), p.Summary().Checked)
	assert.Equal(t, clients*len(readmeTraffic), rec.Len())
}

// A gzip-encoded response is validated decoded and passed on as the upstream sent it.
func TestGzipResponse(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, err := zw.Write([]byte(`[{"id":1,"name":"Rex"}]`))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(zipped.Bytes())
	}))
	t.Cleanup(up.Close)
	px, _, logs := newTestProxy(t, up.URL, Config{})

	req, err := http.NewRequest("GET", px.URL+"/v1/pets", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", bearer)
	req.Header.Set("Accept-Encoding", "gzip") // set by hand, so the client does not decode
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, zipped.Bytes(), got)
	assert.Equal(t, []string{`violation: listPets response at body/0/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required) [GET /v1/pets -> 200]`},
		lines(logs.String()))
}

// A short key (under secret.MinTextLen) learned from the traffic, and one given (as
// PETSTORE_API_KEY is), are masked wherever they are a value: the Authorization header, a
// query parameter of any name, in any letter case.
func TestShortKeyNeverRecordedAsAValue(t *testing.T) {
	const key, given = "Qz7", "Jd5"
	rec := NewRecorder()
	px, p, logs := newTestProxy(t, serveReference(t, reference.Config{APIKeys: []string{key}}, nil).URL+"/v1", Config{Record: rec, Secrets: []string{given}})
	for _, c := range []call{
		{method: "GET", path: "/v1/pets", auth: "Bearer " + key},
		{method: "GET", path: "/v1/pets?code=" + key + "&limit=2", auth: "Bearer " + key},
		{method: "GET", path: "/v1/pets?gateway=" + strings.ToLower(given), auth: "Bearer " + key},
	} {
		send(t, px.URL, c)
	}
	var har bytes.Buffer
	_, err := rec.WriteTo(&har)
	require.NoError(t, err)
	report, err := json.Marshal(p.Summary())
	require.NoError(t, err)
	assert.Contains(t, har.String(), `code=***\u0026limit=2`, "the other query values stay")
	for name, text := range map[string]string{"log": logs.String(), "HAR": har.String(), "report": string(report)} {
		for _, v := range []string{key, given} {
			for _, form := range []string{v, strings.ToLower(v), strings.ToUpper(v)} {
				assert.NotContains(t, text, form, name)
			}
		}
	}
}

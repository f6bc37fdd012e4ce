package proxy

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Traffic recorded by the proxy and checked again from the HAR file gives the same lines.
func TestHARRoundTrip(t *testing.T) {
	rec := NewRecorder()
	px, _, logs := newTestProxy(t, newReference(t, faulty).URL+"/v1", Config{Record: rec})
	for _, c := range faultyTraffic {
		send(t, px.URL, c)
	}
	var har bytes.Buffer
	_, err := rec.WriteTo(&har)
	require.NoError(t, err)
	assert.Equal(t, len(faultyTraffic), rec.Len())

	sum, err := CheckHAR(&har, nil)
	require.NoError(t, err)
	assert.Equal(t, lines(logs.String()), findingLines(sum.Findings))
	assert.Equal(t, wantFaulty, findingLines(sum.Findings))
	assert.Equal(t, len(faultyTraffic), sum.Checked)
	assert.Zero(t, sum.Ignored)
	assert.Zero(t, sum.Incomplete)
}

// A body over the cap is forwarded whole, recorded cut, and not validated, in the proxy
// and again when the HAR file is checked.
func TestBodyOverTheCap(t *testing.T) {
	rec := NewRecorder()
	px, p, logs := newTestProxy(t, newReference(t, faulty).URL+"/v1", Config{Record: rec, MaxBodyBytes: 40})
	got := send(t, px.URL, call{method: "GET", path: "/v1/pets", auth: bearer})
	assert.Equal(t, `[{"id":1,"name":"Tom","status":"available"},{"id":2,"name":"Bella","status":"pending"}]`, string(got.body))
	assert.Empty(t, logs.String(), "not validated")
	assert.Equal(t, 1, p.Summary().Incomplete)

	var har bytes.Buffer
	_, err := rec.WriteTo(&har)
	require.NoError(t, err)
	sum, err := CheckHAR(&har, nil)
	require.NoError(t, err)
	assert.Empty(t, sum.Findings)
	assert.Equal(t, 1, sum.Incomplete)
}

// Without its body a response still has a status and a media type to check.
func TestBodyOverTheCapStillChecksTheStatus(t *testing.T) {
	px, p, logs := newTestProxy(t, newReference(t, faulty).URL+"/v1", Config{MaxBodyBytes: 40})
	got := send(t, px.URL, call{method: "POST", path: "/v1/pets", auth: bearer,
		body: `{"name":"a name long enough to pass the cap","categoryId":1}`})
	assert.Equal(t, http.StatusOK, got.status, "the faulty server answers createPet with 200")
	assert.Contains(t, logs.String(), "status 200 is not documented for createPet")
	assert.Equal(t, 1, p.Summary().Incomplete)
}

func TestCheckBrowserHAR(t *testing.T) {
	const missingCategory = `violation: getPet response at body/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required) [GET /v1/pets/1 -> 200]`
	tests := []struct {
		name             string
		opts             []HAROption
		want             []string
		checked, ignored int
	}{
		{name: "every host", want: []string{missingCategory, deprecatedGetPet("/v1/pets/1", 200), deprecatedGetPet("/v1/pets/3", 200),
			`violation: listPets request at header Authorization: security requirements failed: no bearer token in the Authorization header (#/security) [GET /v1/pets -> 200]`,
			`violation: listPets response at body: value must be an array (#/components/schemas/Pets/type) [GET /v1/pets -> 200]`},
			checked: 5, ignored: 5},
		{name: "one host", opts: []HAROption{OnlyHost("api.example")}, want: []string{missingCategory, deprecatedGetPet("/v1/pets/1", 200), deprecatedGetPet("/v1/pets/3", 200)}, checked: 4, ignored: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := os.Open("testdata/browser.har")
			require.NoError(t, err)
			defer f.Close()
			sum, err := CheckHAR(f, nil, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, findingLines(sum.Findings))
			assert.Equal(t, tt.checked, sum.Checked, "checked")
			assert.Equal(t, tt.ignored, sum.Ignored, "ignored: pages, scripts, a preflight, a blocked request, a data: URL")
			assert.Equal(t, 1, sum.Incomplete, "one response body was not saved")
		})
	}
}

func TestCheckHARRejectsOtherFiles(t *testing.T) {
	for name, text := range map[string]string{
		"not JSON":   "GET /v1/pets\n",
		"no log":     `{"entries":[]}`,
		"no entries": `{"log":{"version":"1.2"}}`,
	} {
		_, err := CheckHAR(strings.NewReader(text), nil)
		assert.ErrorContains(t, err, "not a HAR file", name)
	}
}

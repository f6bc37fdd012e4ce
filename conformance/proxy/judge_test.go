package proxy

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// listFacts are the description's facts: the default limit the proxy judges by.
func listFacts(t *testing.T) *spec.Facts {
	t.Helper()
	f, err := spec.ReadFacts(documentSpec(t)) // what the proxy checks against (helpers_test.go)
	require.NoError(t, err)
	return f
}

// crowdedReference serves the reference server holding n animals, of alternating statuses,
// behind wrap (nil: as it is).
func crowdedReference(t *testing.T, f *spec.Facts, n int, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	seed := make([]reference.NewPet, n)
	for i := range seed {
		seed[i] = reference.NewPet{Name: fmt.Sprint("pet-", i), CategoryID: 1, Status: f.Statuses[i%len(f.Statuses)]}
	}
	return serveReference(t, reference.Config{APIKeys: []string{testKey}, Seed: seed}, wrap)
}

// listTraffic lists without limit, with a limit, with a filter, and asks for an unknown animal.
func listTraffic(f *spec.Facts) []call {
	return []call{
		{method: "GET", path: "/v1/pets", auth: bearer},
		{method: "GET", path: "/v1/pets?limit=" + strconv.FormatInt(f.Limit.Min, 10), auth: bearer},
		{method: "GET", path: "/v1/pets?status=" + f.Statuses[0], auth: bearer},
		{method: "GET", path: "/v1/pets/999999", auth: bearer},
	}
}

// The proxy knows section 4.1 and section 7 as the runner does (conformance/judge): a listing
// of more animals than the default limit, answered to a request without limit, is a
// violation; so is a filtered listing holding another status, and an Error record whose
// status is not the HTTP status. The reference, with the same traffic, gives none.
func TestProxyJudgesListingsAndErrorRecords(t *testing.T) {
	f := listFacts(t)
	def := f.Limit.Default
	n := int(def) + 10

	t.Run("the reference passes", func(t *testing.T) {
		px, p, logs := newTestProxy(t, crowdedReference(t, f, n, nil).URL+"/v1", Config{})
		for _, c := range listTraffic(f) {
			send(t, px.URL, c)
		}
		assert.Equal(t, []string{deprecatedGetPet("/v1/pets/999999", 404)}, lines(logs.String()), "getPet is deprecated, no more")
		assert.Zero(t, p.Summary().Violations)
	})

	t.Run("a faulty server fails", func(t *testing.T) {
		// Without limit it lists default+5 animals; it ignores the filter; its 404 record
		// says 400.
		faults := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/pets" {
					r.URL.RawQuery = strings.Replace(r.URL.RawQuery, "status=", "ignored=", 1)
					if !r.URL.Query().Has("limit") {
						r.URL.RawQuery = "limit=" + strconv.FormatInt(def+5, 10)
					}
				}
				rp := kit.Capture(h, r)
				if rp.Status == http.StatusNotFound {
					rp.Body = bytes.Replace(rp.Body, []byte(`"status":404`), []byte(`"status":400`), 1)
				}
				rp.Send(w)
			})
		}
		px, p, logs := newTestProxy(t, crowdedReference(t, f, n, faults).URL+"/v1", Config{})
		for _, c := range listTraffic(f) {
			send(t, px.URL, c)
		}
		got := lines(logs.String())
		require.Len(t, got, 5, logs.String())
		assert.Equal(t, fmt.Sprintf("violation: listPets response at body: the listing holds more animals than the limit allows (4.1 rule 1; 8): "+
			"want at most %d animals, got %d animals (#/paths/~1pets/get) [GET /v1/pets -> 200]", def, def+5), got[0])
		assert.Contains(t, got[1], "the listing holds more animals than the limit allows (4.1 rule 1; 8)", "the filter ignored, the default limit too")
		assert.Contains(t, got[2], "the listing holds an animal of another status than the filter (4.1 rule 2): want status "+f.Statuses[0])
		assert.Equal(t, "violation: getPet response at body/status: the Error record's status is 400 but the HTTP status is 404 (section 7) "+
			"(#/components/schemas/Error/properties/status) [GET /v1/pets/999999 -> 404]", got[3])
		assert.Equal(t, deprecatedGetPet("/v1/pets/999999", 404), got[4])
		assert.Equal(t, 4, p.Summary().Violations)
	})
}

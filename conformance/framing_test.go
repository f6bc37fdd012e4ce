package conformance_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// A failing case sent chunked or to another Host says so in its request and its curl line,
// which would otherwise send the body with a length, or to the URL's host, and not reproduce.
func TestFramingAndHostInTheReport(t *testing.T) {
	ref := newReference(t, beforeSunset, reference.Config{})
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 || r.Host == "example.invalid" || r.Host == "" {
			w.WriteHeader(http.StatusInternalServerError) // a 5xx fails every case
			return
		}
		ref.ServeHTTP(w, r)
	}))
	rep := run(t, target, conformance.Options{Seed: 1, Only: []string{"createPet/cases-anatomy", "listPets/cases-anatomy"}})
	var chunked, host, raw, emptyHost int
	for _, res := range rep.Results {
		for _, f := range res.Failures {
			if f.Exchange < 0 {
				continue
			}
			ex := res.Exchanges[f.Exchange]
			switch {
			case strings.Contains(f.Case, "beside Content-Length"):
				// Written by the session itself: both fields as sent, and a printf that writes them.
				raw++
				assert.Contains(t, ex.Curl, `Transfer-Encoding: chunked\015\012Content-Length: 5\015\012`, f.Case)
				assert.Equal(t, "chunked", ex.Request.Header.Get("Transfer-Encoding"), f.Case)
				assert.Equal(t, []string{"5"}, ex.Request.Header.Values("Content-Length"), f.Case)
			case strings.Contains(f.Case, "an empty Host"):
				emptyHost++
				assert.Contains(t, ex.Curl, "-H 'Host;'", f.Case)
				assert.Equal(t, []string{""}, ex.Request.Header.Values("Host"), f.Case)
			case strings.Contains(f.Case, "chunked"):
				chunked++
				assert.Contains(t, ex.Curl, "-H 'Transfer-Encoding: chunked'", f.Case)
				assert.Equal(t, "chunked", ex.Request.Header.Get("Transfer-Encoding"), f.Case)
			case strings.Contains(f.Case, "Host: example.invalid"):
				host++
				assert.Contains(t, ex.Curl, "-H 'Host: example.invalid'", f.Case)
				assert.Equal(t, "example.invalid", ex.Request.Header.Get("Host"), f.Case)
			}
		}
	}
	require.Positive(t, chunked)
	require.Positive(t, host)
	require.Positive(t, raw)
	require.Positive(t, emptyHost)
}

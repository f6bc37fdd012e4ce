package conformance_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
)

// Faulty servers: the reference with one thing broken, each with rules that must fail.

// openDoor lets every request in, as if it carried the key.
func openDoor(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+testKey)
		h.ServeHTTP(w, r)
	})
}

// plainErrors answers every error with text/plain instead of an Error record.
var plainErrors = kit.OnErrors(func(rp *kit.Reply) {
	rp.Header.Set("Content-Type", "text/plain; charset=utf-8")
	rp.Body = []byte(http.StatusText(rp.Status))
})

// noDefaultLimit lists with the maximum limit when the client gives none.
func noDefaultLimit(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/pets") && q.Get("limit") == "" {
			q.Set("limit", maxLimit)
			r.URL.RawQuery = q.Encode()
		}
		h.ServeHTTP(w, r)
	})
}

// dropCategory removes categoryId from the animal GET /pets/{petId} returns.
func dropCategory(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/pets/") && rec.Code == http.StatusOK {
			body = regexp.MustCompile(`,?"categoryId":\d+`).ReplaceAll(body, nil)
		}
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// A response that breaks the spec fails the rule that received it, with the validator's
// message and the spec node it broke.
func TestSpecViolationPointsAtTheSpec(t *testing.T) {
	rep := run(t, serve(t, dropCategory(newReference(t, beforeSunset, reference.Config{}))), conformance.Options{Only: []string{"getPet"}})
	res, ok := rep.Result("getPet/listed-returned")
	require.True(t, ok)
	assert.Equal(t, conformance.Fail, res.Status)
	var pointers []string
	for _, f := range res.Failures {
		pointers = append(pointers, f.Pointer)
	}
	assert.Contains(t, pointers, "#/components/schemas/Pet/required")
}

func TestFaultyServers(t *testing.T) {
	t.Parallel() // whole runs against servers of its own
	tests := []struct {
		name  string
		wrap  func(http.Handler) http.Handler
		fails []string
	}{
		{"200 without a key", openDoor, []string{"auth/listPets-missing", "auth/getPet-wrong-key", "auth/createPet-not-bearer", "errors/unauthorized"}},
		{"text/plain errors", plainErrors, []string{"errors/not-found", "errors/bad-request", "auth/listPets-missing", "getPet/unknown-id", "createPet/missing-name", "listPets/limit-above-max"}},
		{"no default limit", noDefaultLimit, []string{"listPets/default-limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := run(t, serve(t, tt.wrap(newReference(t, beforeSunset, reference.Config{}))), conformance.Options{})
			assert.Equal(t, conformance.NotConforming, rep.Verdict)
			for _, id := range tt.fails {
				res, ok := rep.Result(id)
				require.True(t, ok, id)
				assert.Equal(t, conformance.Fail, res.Status, id)
				require.NotEmpty(t, res.Failures, id)
				require.NotEmpty(t, res.Exchanges, id)
			}
			var out bytes.Buffer
			require.NoError(t, conformance.WriteText(&out, rep))
			assert.NotContains(t, out.String(), testKey)
			if testing.Verbose() {
				t.Log(out.String())
			}
		})
	}
}

// withDeprecation replaces the Deprecation header of every response (removed when v is "").
func withDeprecation(v string) func(http.Handler) http.Handler {
	return kit.Respond(kit.AnyRequest, func(_ *http.Request, rp *kit.Reply) {
		rp.Header.Del("Deprecation")
		if v != "" {
			rp.Header.Set("Deprecation", v)
		}
	})
}

// The interface document does not say since when getPet is deprecated: any RFC 9745 date up
// to the removal date passes, whatever the spec's x-deprecated-since says. A header that is
// sent and malformed or after the removal date is SHOULD (a warning, a failure when strict);
// no header at all is ADVISORY (READINGS.md): a warning of its own rule, even when strict.
func TestDeprecationHeaderIsJudgedByTheDocumentOnly(t *testing.T) {
	const pass, should, advisory = "pass", "should", "advisory"
	tests := []struct {
		header string
		want   string
	}{
		{"@1577836800", pass},   // 2020-01-01: another date than the reference's
		{"@1922572800", pass},   // 2030-12-04, the day before the removal date
		{"", advisory},          // no header
		{"true", should},        // the draft's boolean form is not RFC 9745
		{"@1924992000", should}, // 2031-01-01, after the removal date 2030-12-05
	}
	for _, tt := range tests {
		for _, strict := range []bool{false, true} {
			t.Run(fmt.Sprintf("%q strict=%t", tt.header, strict), func(t *testing.T) {
				srv := serve(t, withDeprecation(tt.header)(newReference(t, beforeSunset, reference.Config{})))
				rep := run(t, srv, conformance.Options{Only: []string{"getPet/deprecation-headers*"}, Strict: strict})
				sent, ok := rep.Result("getPet/deprecation-headers")
				require.True(t, ok)
				absent, ok := rep.Result("getPet/deprecation-headers-sent")
				require.True(t, ok)
				verdict := conformance.Conforming
				if tt.want == should && strict {
					verdict = conformance.NotConforming
				}
				assert.Equal(t, verdict, rep.Verdict)
				switch tt.want {
				case pass:
					assert.Equal(t, conformance.Pass, sent.Status, "%+v", sent.Failures)
					assert.Equal(t, conformance.Pass, absent.Status, "%+v", absent.Failures)
				case should:
					assert.Equal(t, map[bool]conformance.Status{false: conformance.Warn, true: conformance.Fail}[strict], sent.Status)
					assert.Equal(t, conformance.Should, sent.Failures[0].Level)
					assert.Equal(t, conformance.Pass, absent.Status, "%+v", absent.Failures)
				case advisory:
					assert.Equal(t, conformance.Pass, sent.Status, "a header not sent is not malformed: %+v", sent.Failures)
					assert.Equal(t, conformance.Warn, absent.Status, "ADVISORY warns, strict or not")
					assert.Equal(t, conformance.Advisory, absent.Failures[0].Level)
					assert.Equal(t, conformance.Advisory, absent.Level)
				}
			})
		}
	}
}

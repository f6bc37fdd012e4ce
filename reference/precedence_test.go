package reference

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
)

// Answers whose order or shape the review found inconsistent, in both validation modes.
func TestAnswerPrecedenceAndShape(t *testing.T) {
	for _, cfg := range []Config{{}, {NoValidation: true}} {
		cfg.Seed = []core.NewPet{{Name: "Rex", CategoryID: 1, Status: "available"}}
		h := newTestServer(t, cfg)
		name := "validated"
		if cfg.NoValidation {
			name = "no-validation"
		}
		t.Run(name, func(t *testing.T) {
			// Section 5.3: a missing key is 401, whatever else is wrong with the request.
			big := strings.Repeat("x", int(DefaultMaxBodyBytes)+1)
			r := newRequest(t, "POST", "/v1/pets", strings.NewReader(big))
			r.Header.Del("Authorization")
			assert.Equal(t, http.StatusUnauthorized, serve(h, r).Code, "401 before 413")

			// Authorization is a singleton: two fields are refused, in either order.
			for _, order := range [][]string{{authed, "Bearer other"}, {"Bearer other", authed}} {
				r := newRequest(t, "GET", "/v1/pets", nil)
				r.Header["Authorization"] = order
				assert.Equal(t, http.StatusUnauthorized, serve(h, r).Code, "%v", order)
			}

			// Every answer of the deprecated operation carries Deprecation and Sunset.
			for path, status := range map[string]int{"/v1/pets/1": http.StatusOK, "/v1/pets/abc": http.StatusBadRequest,
				"/v1/pets/999999": http.StatusNotFound} {
				w := serve(h, newRequest(t, "GET", path, nil))
				require.Equal(t, status, w.Code, path)
				assert.Equal(t, "@1764892800", w.Header().Get("Deprecation"), path)
				assert.Equal(t, "Thu, 05 Dec 2030 00:00:00 GMT", w.Header().Get("Sunset"), path)
			}
			r = newRequest(t, "GET", "/v1/pets/1", nil)
			r.Header.Del("Authorization")
			w := serve(h, r)
			assert.Equal(t, http.StatusUnauthorized, w.Code)
			assert.NotEmpty(t, w.Header().Get("Sunset"), "a 401 of getPet too")
			assert.Empty(t, serve(h, newRequest(t, "GET", "/v1/pets", nil)).Header().Get("Sunset"), "not on listPets")

			// Percent-encoded characters other than "/" are the characters themselves.
			plain := serve(h, newRequest(t, "GET", "/v1/pets/1", nil))
			for _, path := range []string{"/v1/pets/%31", "/v1/%70ets/1"} {
				w := serve(h, newRequest(t, "GET", path, nil))
				assert.Equal(t, http.StatusOK, w.Code, path)
				assert.Equal(t, plain.Body.String(), w.Body.String(), path)
			}
			assert.Equal(t, http.StatusNotFound, serve(h, newRequest(t, "GET", "/v1/pets%2F1", nil)).Code, "%2F is not a separator")
		})
	}
}

package exchange

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request that names another method in a method-override field or parameter goes only
// where that method may go: a read that a stack may turn into a delete never names the
// collection or an animal the run did not create; an override to a read changes nothing.
func TestGuardJudgesAMethodOverride(t *testing.T) {
	var reached atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	s, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: "KEY", Facts: facts(t)})
	require.NoError(t, err)
	for _, tt := range []struct {
		name, target, field, value string
		sent                       bool
	}{
		{"the collection, overridden to DELETE", "/v1/pets", "X-HTTP-Method-Override", "DELETE", false},
		{"another's animal, overridden to DELETE", "/v1/pets/5", "X-Method-Override", "delete", false},
		{"the CGI spelling", "/v1/pets/5", "X_HTTP_Method_Override", "PUT", false},
		{"the _method parameter", "/v1/pets?_method=DELETE", "", "", false},
		{"overridden to a read", "/v1/pets", "X-HTTP-Method-Override", "GET", true},
		{"no override", "/v1/pets/5", "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := reached.Load()
			req, err := http.NewRequest(http.MethodGet, srv.URL+tt.target, nil)
			require.NoError(t, err)
			if tt.field != "" {
				req.Header[tt.field] = []string{tt.value}
			}
			_, _, err = s.DoRead(NewRecorder(s.Redact), true, req)
			if tt.sent {
				require.NoError(t, err)
				assert.Equal(t, before+1, reached.Load())
				return
			}
			assert.True(t, errors.Is(err, ErrNotSent), "%v", err)
			assert.Equal(t, before, reached.Load(), "kept from the target")
		})
	}
}

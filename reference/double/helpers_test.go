package double_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/internal/testkit"
)

// The helpers every test of the reference's packages shares (testkit), by their names here.
const (
	testKey = testkit.TestKey
	authed  = testkit.Authed // the Authorization field with the test key
)

var (
	fixedNow           = testkit.FixedNow
	newRequest         = testkit.NewRequest
	serve              = testkit.Serve
	do                 = testkit.Do
	errorBody          = testkit.ErrorBody
	pets               = testkit.Pets
	seedOf             = testkit.SeedOf
	shipped            = testkit.Shipped
	maxLimit, limitMax = testkit.MaxLimit, testkit.LimitMax
)

// newTestServer returns a server with the test key, the fixed clock and seed (cfg overrides).
func newTestServer(t testing.TB, cfg reference.Config) http.Handler {
	t.Helper()
	if cfg.APIKeys == nil {
		cfg.APIKeys = []string{testKey}
	}
	if cfg.Now == nil {
		cfg.Now = fixedNow
	}
	h, err := reference.NewServer(cfg)
	require.NoError(t, err)
	return h
}

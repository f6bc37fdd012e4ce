package explore

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

const testAdminKey = "explore-admin-key-91d4"

// serveAdmin starts the reference with an admin key when admin is set (POST /_admin/reset
// then works), behind wrap, on a loopback port.
func serveAdmin(t *testing.T, admin bool, wrap func(http.Handler) http.Handler) exchange.Target {
	t.Helper()
	cfg := reference.Config{APIKeys: []string{testKey}}
	if admin {
		cfg.AdminKey = testAdminKey
	}
	h, err := reference.NewServer(cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(wrap(h))
	t.Cleanup(srv.Close)
	base, err := spec.BasePath(spec.MustLoad())
	require.NoError(t, err)
	return exchange.Target{BaseURL: srv.URL + base, APIKey: testKey, Client: srv.Client()}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }

// bigStoreFails answers 500 to every listing once more than 30 animals were created since
// the last reset: a fault of a store the exploration filled, which a fresh store lacks.
func bigStoreFails(next http.Handler) http.Handler {
	var created atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/_admin/reset":
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(sw, r)
			if sw.status == http.StatusNoContent {
				created.Store(0)
			}
			return
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/pets"):
			created.Add(1)
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/pets") && created.Load() > 30:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"code":"internal","message":"store too big","status":500}`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// filterIgnored ignores the status filter of a listing for one value: a fault any store shows
// once it holds an animal of another status.
func filterIgnored(value string) func(http.Handler) http.Handler {
	return kit.Query(func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Query().Get("status") == value },
		func(q url.Values) { q.Del("status") })
}

// wrongStatus stores an animal created with one status value with another: a fault any
// store shows, the first time.
func wrongStatus(from, to string) func(http.Handler) http.Handler {
	return kit.Body(kit.IsCreate, func(_ *http.Request, b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"status":"`+from+`"`), []byte(`"status":"`+to+`"`))
	})
}

// findOne runs cfg until its first finding.
func findOne(t *testing.T, cfg Config) (*Report, Finding) {
	t.Helper()
	cfg.MaxFindings = 1
	return onlyFinding(t, cfg)
}

// onlyFinding runs cfg, which must find one thing and nothing else.
func onlyFinding(t *testing.T, cfg Config) (*Report, Finding) {
	t.Helper()
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1)
	return rep, rep.Findings[0]
}

// A finding that needs the store the exploration filled is shrunk there (and fails there),
// but not after a reset: the report says both.
func TestFreshStoreNotReproduced(t *testing.T) {
	cfg := config(serveAdmin(t, true, bigStoreFails), 1, 2, 2000)
	cfg.AdminKey = testAdminKey
	rep, fd := findOne(t, cfg)
	assert.Equal(t, ruleNo5xx.id, fd.Rule)
	assert.Positive(t, fd.ReplaysFailed, "the shrunk sequence fails on the changed store")
	assert.True(t, fd.StateChanged)
	require.NotNil(t, fd.FreshStore)
	assert.Equal(t, FreshCheck{Made: true}, *fd.FreshStore)

	var text, js bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	assert.Contains(t, text.String(), "\n  shrunk and replayed against the target as the exploration left it, whose store the exploration had changed\n"+
		"  on a fresh store (after POST /_admin/reset): not reproduced; the finding needs state the exploration left behind\n")
	require.NoError(t, WriteJSON(&js, rep))
	assert.Contains(t, js.String(), `"freshStore": {`)
	for _, out := range []string{text.String(), js.String()} {
		assert.NotContains(t, out, testAdminKey)
		assert.NotContains(t, out, testKey)
	}
}

// A finding any store shows reproduces after the reset; the replay file keeps the check, and
// conformance replay shows it.
func TestFreshStoreReproduced(t *testing.T) {
	f := facts(t)
	tg := serveAdmin(t, true, wrongStatus(f.Statuses[0], f.Statuses[1]))
	cfg := config(tg, 1, 2, 2000)
	cfg.AdminKey = testAdminKey
	rep, fd := findOne(t, cfg)
	rule := fd.Rule
	assert.True(t, fd.StateChanged)
	require.NotNil(t, fd.FreshStore)
	assert.True(t, fd.FreshStore.Made, fd.FreshStore.Reason)
	assert.True(t, fd.FreshStore.Reproduced, "%+v", fd.Shrunk)
	require.NotNil(t, fd.FreshStore.Violation)
	assert.Equal(t, rule, fd.FreshStore.Violation.Rule)
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	assert.Contains(t, text.String(), "\n  on a fresh store (after POST /_admin/reset): reproduced\n")

	path := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, WriteReplayFile(path, NewReplayFile(rep, fd)))
	rf, err := ReadReplayFile(path)
	require.NoError(t, err)
	assert.True(t, rf.StateChanged)
	assert.Equal(t, fd.FreshStore, rf.FreshStore)
	rr, err := Replay(context.Background(), ReplayConfig{Target: tg, Doc: spec.MustLoad(), Times: 1, MaxCreates: 100}, rf)
	require.NoError(t, err)
	text.Reset()
	require.NoError(t, WriteReplayText(&text, rr))
	assert.Contains(t, text.String(), "\n  when recorded: shrunk and replayed against the target as the exploration left it, whose store the exploration had changed; "+
		"on a fresh store (after POST /_admin/reset): reproduced\n")
}

// Without a reset (none offered, or no admin key to ask for it) the report says that the
// check could not be made, and why; with a fresh target for each run there is nothing to say.
func TestFreshStoreNotChecked(t *testing.T) {
	f := facts(t)
	for _, tt := range []struct {
		name     string
		admin    bool
		adminKey string
		want     string
	}{
		{"no reset", false, testAdminKey, "the fresh-store check could not be made: POST /_admin/reset answered 404"},
		{"no admin key", true, "", "the fresh-store check could not be made: no admin key to reset the target with (POST /_admin/reset)"},
		{"wrong admin key", true, "not-the-admin-key", "the fresh-store check could not be made: POST /_admin/reset answered 401"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(serveAdmin(t, tt.admin, filterIgnored(f.Statuses[1])), 1, 2, 2000)
			cfg.Replays, cfg.AdminKey = 1, tt.adminKey
			rep, fd := findOne(t, cfg)
			assert.True(t, fd.StateChanged)
			require.NotNil(t, fd.FreshStore)
			assert.False(t, fd.FreshStore.Made)
			var text bytes.Buffer
			require.NoError(t, WriteText(&text, rep))
			assert.Contains(t, text.String(), "\n  "+tt.want+"\n")
		})
	}

	t.Run("fresh target", func(t *testing.T) {
		cfg := config(serveAdmin(t, true, filterIgnored(f.Statuses[1])), 1, 2, 2000)
		cfg.Replays, cfg.AdminKey = 1, testAdminKey
		cfg.Fresh = func() (exchange.Target, func(), error) {
			return serveAdmin(t, true, filterIgnored(f.Statuses[1])), func() {}, nil
		}
		rep, fd := findOne(t, cfg)
		assert.False(t, fd.StateChanged)
		assert.Nil(t, fd.FreshStore)
		var text bytes.Buffer
		require.NoError(t, WriteText(&text, rep))
		assert.NotContains(t, text.String(), "fresh store")
		assert.NotContains(t, text.String(), "exploration left it")
	})
}

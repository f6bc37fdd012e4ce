package referencetest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/spec"
)

// limitMax is the spec's maximum of listPets' limit, which the client rules judge by.
func limitMax(t *testing.T) int64 {
	t.Helper()
	b, err := spec.QueryInt(spec.MustLoad(), spec.OpList, "limit")
	require.NoError(t, err)
	return b.Max
}

// fakeT runs Start's cleanups and records its log when the test asks.
type fakeT struct {
	*testing.T
	mu       sync.Mutex
	cleanups []func()
	failed   bool
	logs     []string
	errors   []string
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Failed() bool      { return f.failed }
func (f *fakeT) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, format)
}

func (f *fakeT) finish() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func status(t *testing.T, c *http.Client, url string) int {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// The clock is Options.Now, fixed; SetNow moves it across getPet's removal and Reset
// restores it with the seed.
func TestClockAndReset(t *testing.T) {
	srv := Start(t, Options{Seed: []reference.NewPet{{Name: "Rex", CategoryID: 1, Status: "available"}},
		Now: time.Date(2030, 12, 4, 0, 0, 0, 0, time.UTC),
		// This test calls getPet after its removal and sends no key, on purpose.
		AllowViolations: []string{double.RuleRemovedOp, double.RuleAuthBearer}})
	assert.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)
	assert.True(t, strings.HasSuffix(srv.URL, "/v1"), srv.URL)
	c := srv.Client()
	assert.Equal(t, http.StatusOK, status(t, c, srv.URL+"/pets/1"))
	srv.SetNow(time.Date(2030, 12, 5, 0, 0, 0, 0, time.UTC))
	assert.Equal(t, http.StatusNotFound, status(t, c, srv.URL+"/pets/1"))
	srv.Reset()
	assert.Equal(t, http.StatusOK, status(t, c, srv.URL+"/pets/1"))
	assert.Equal(t, http.StatusUnauthorized, status(t, http.DefaultClient, srv.URL+"/pets"))
	assert.Len(t, srv.Requests(double.RequestFilter{}), 2, "reset emptied the journal")
	assert.Equal(t, 4, srv.Report().Requests, "the report keeps counting")
}

// Options.Config reaches every setting: a latency asks the injected sleeper.
func TestConfigHook(t *testing.T) {
	var asked []time.Duration
	var mu sync.Mutex
	srv := Start(t, Options{APIKey: "my-own-key", Config: func(cfg *reference.Config) {
		cfg.Double.Latency = time.Second
		cfg.Double.Sleep = func(_ context.Context, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, d)
		}
	}})
	assert.Equal(t, "my-own-key", srv.APIKey)
	assert.Equal(t, http.StatusOK, status(t, srv.Client(), srv.URL+"/pets"))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []time.Duration{time.Second}, asked)
}

// The cleanup closes the server, and a failed test gets the client report in its log.
func TestCleanup(t *testing.T) {
	ft := &fakeT{T: t}
	srv := Start(ft, Options{})
	assert.Equal(t, http.StatusOK, status(t, srv.Client(), srv.URL+"/pets"))
	ft.failed = true
	ft.finish()
	_, err := srv.Client().Get(srv.URL + "/pets")
	assert.Error(t, err, "closed")
	require.Len(t, ft.logs, 1)
	assert.Contains(t, ft.logs[0], "what the client did")
}

// The Go test in docs/client.md's "Testing your client" is client_test.go, word for word.
func TestDocumentedExampleIsATest(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "client.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(page), "\n## Testing your client\n")
	require.True(t, ok, "docs/client.md has a section Testing your client")
	_, block, ok := strings.Cut(section, "\n```go\n")
	require.True(t, ok, "with a Go block")
	block, _, _ = strings.Cut(block, "\n```\n")
	source, err := os.ReadFile("client_test.go")
	require.NoError(t, err)
	assert.Contains(t, string(source), block)
	assert.Contains(t, block, "func TestAvailableNames(t *testing.T)")
}

// A client that breaks a MUST rule of the document fails its test, with the rule's ID,
// level, section and first violation; one that keeps the rules, or breaks one the test
// allows, does not.
func TestMustViolationFailsTheTest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		allow   []string
		limit   string
		wantErr string
	}{
		{"breaks", nil, "500", fmt.Sprintf("referencetest: the client broke client/limit-in-bounds (MUST, section 4.1; 8): listPets's limit, when given, is given once and is an integer from 1 to %[1]d — broken by 1 request, first: GET /v1/pets?limit=500: limit 500 is not one integer from 1 to %[1]d (allow it with Options.AllowViolations)", limitMax(t))},
		{"allowed", []string{double.RuleLimitInBounds}, "500", ""},
		{"keeps", nil, "50", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeT{T: t}
			srv := Start(ft, Options{AllowViolations: tc.allow})
			status(t, srv.Client(), srv.URL+"/pets?limit="+tc.limit)
			ft.finish()
			if tc.wantErr == "" {
				assert.Empty(t, ft.errors)
				assert.False(t, ft.failed)
				return
			}
			assert.Equal(t, []string{tc.wantErr}, ft.errors)
			assert.NotEmpty(t, ft.logs, "the report is logged")
		})
	}
}

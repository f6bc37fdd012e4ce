package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/reference"
)

// A target the run cannot judge ends it with exit 2, one line that names the cause, and the
// reports written, holding what was judged before that point (issue 22, item 2). None of
// these runs waits for more than its own --max-wait or --timeout: the bounds are the run's,
// not the test's.
func TestCannotJudge(t *testing.T) {
	ref, err := reference.NewServer(reference.Config{APIKeys: []string{key}})
	require.NoError(t, err)

	// served under /v1 only: /api/v1 is a wrong base path that still ends in /v1.
	wrongBase := httptest.NewServer(ref)
	t.Cleanup(wrongBase.Close)

	maintenance := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"code":"maintenance","message":"back soon","status":503}`))
	}))
	t.Cleanup(maintenance.Close)

	// dies after 150 requests: the listener closes and kept-alive connections are cut.
	var served atomic.Int64
	var die sync.Once
	var dying *httptest.Server
	dying = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) > 150 {
			die.Do(func() { go dying.Close() })
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(dying.Close)

	// takes the connection and never answers.
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(silent.Close)

	for _, tt := range []struct {
		name, reason string
		args         []string
		judged       bool // some rules were judged before the run stopped
	}{
		{"wrong base path", "every documented operation answered 404 Not Found under " + wrongBase.URL + "/api/v1: the base path is wrong",
			[]string{"--base-url", wrongBase.URL + "/api/v1"}, false},
		{"unavailable", "the target is unavailable: it answered 503 Service Unavailable and asked to come back later for more than 2s in all (--max-wait)",
			[]string{"--base-url", maintenance.URL + "/v1", "--max-wait", "2s"}, false},
		{"silent", "the target took the connection and sent no answer to GET /pets within 300ms (--timeout)",
			[]string{"--base-url", silent.URL + "/v1", "--timeout", "300ms"}, false},
		{"killed mid-run", "the target stopped answering at ",
			[]string{"--base-url", dying.URL + "/v1", "--workers", "1"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "report.json")
			code, _, errOut := runMain(t, map[string]string{"PETSTORE_API_KEY": key}, append([]string{"run", "--report", "json=" + file}, tt.args...)...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.reason)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			var rep conformance.Report
			data, err := os.ReadFile(file)
			require.NoError(t, err, "the report is written")
			require.NoError(t, json.Unmarshal(data, &rep))
			require.NotEmpty(t, rep.GateFailures)
			assert.Contains(t, rep.GateFailures[len(rep.GateFailures)-1].Message, tt.reason)
			assert.Equal(t, conformance.CannotJudge, rep.Verdict)
			assert.Positive(t, rep.Requests, "the report counts the requests sent")
			if !tt.judged {
				for _, res := range rep.Results {
					assert.Equal(t, "not judged: "+rep.GateFailures[len(rep.GateFailures)-1].Message, res.Reason, res.ID)
				}
				return
			}
			judged, notJudged := 0, 0
			for _, res := range rep.Results {
				if strings.HasPrefix(res.Reason, "not judged: the target stopped answering") {
					notJudged++
				} else if res.Status == conformance.Pass || res.Status == conformance.Fail {
					judged++
				}
				assert.NotEqual(t, conformance.Error, res.Status, "%s: %s", res.ID, res.Reason)
			}
			assert.Positive(t, judged, "what was judged before the target went is kept")
			assert.Positive(t, notJudged)
			assert.Positive(t, rep.Requests)
		})
	}
}

// Ctrl-C or SIGTERM mid-run: the reports hold every rule judged so far and the requests
// sent, the rest marked not judged, and the run exits 2.
func TestInterruptedRunKeepsWhatItJudged(t *testing.T) {
	ctx, base := interruptedAfter(t, 200)
	file := filepath.Join(t.TempDir(), "report.json")
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"conformance", "run", "--base-url", base, "--workers", "1", "--report", "json=" + file},
		func(k string) string { return map[string]string{"PETSTORE_API_KEY": key}[k] }, &out, &errOut)
	require.Error(t, err)
	assert.Equal(t, 2, cli.Code(err))
	assert.Contains(t, err.Error(), "the run was interrupted")
	var rep conformance.Report
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, conformance.CannotJudge, rep.Verdict)
	assert.GreaterOrEqual(t, rep.Requests, 200)
	passed, interrupted := 0, 0
	for _, res := range rep.Results {
		require.NotEmpty(t, res.ID)
		switch {
		case res.Status == conformance.Pass:
			passed++
		case res.Reason == "not judged: the run was interrupted":
			interrupted++
			assert.True(t, res.NotRun, res.ID)
		}
	}
	assert.Positive(t, passed)
	assert.Positive(t, interrupted)
	assert.Equal(t, len(rep.Results), rep.Counts.Total)
	// The rules it never started are counted as such, not as skipped (which a rule decides).
	assert.Equal(t, interrupted, rep.Counts.NotRun)
	assert.Equal(t, rep.Counts.Total, rep.Counts.Pass+rep.Counts.Fail+rep.Counts.Warn+rep.Counts.Skip+rep.Counts.Error+rep.Counts.Waived+rep.Counts.NotRun)
	assert.Regexp(t, fmt.Sprintf(`, %d not run\b`, interrupted), errOut.String()+out.String())
	assert.Equal(t, interrupted, strings.Count(out.String()+errOut.String(), "\n  not run  "), "each rule not run is labelled so, as the summary counts it")
}

// interruptedAfter serves the reference and returns its base URL and a context that is
// cancelled, as the signal handler cancels it, when the nth request arrives: an interrupt
// mid-run, whatever the machine's speed.
func interruptedAfter(t *testing.T, n int64) (context.Context, string) {
	t.Helper()
	ref, err := reference.NewServer(reference.Config{APIKeys: []string{key}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == n {
			cancel()
		}
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return ctx, srv.URL + "/v1"
}

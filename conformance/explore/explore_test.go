package explore

import (
	"context"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/rules"
)

func TestReferenceHasNoFindings(t *testing.T) {
	tg := serve(t, nil)
	for _, seed := range []uint64{1, 2, 3} {
		rep, err := Run(context.Background(), config(tg, seed, 4, 1500))
		require.NoError(t, err)
		if !assert.Empty(t, rep.Findings, "seed %d", seed) {
			_ = WriteText(os.Stdout, rep)
		}
		assert.Equal(t, StopSteps, rep.StoppedBy)
		assert.Equal(t, 1500, rep.Steps)
	}
}

// A seed gives the same steps whatever the target answers.
func TestSeedDecidesTheSteps(t *testing.T) {
	f := facts(t)
	a, b, c := newGenerator(f, operationsOf(f), 9, 2), newGenerator(f, operationsOf(f), 9, 2), newGenerator(f, operationsOf(f), 10, 2)
	same, differ := true, false
	for range 200 {
		sa, sb, sc := a.next(true), b.next(true), c.next(true)
		same = same && sa.String() == sb.String()
		differ = differ || sa.String() != sc.String()
	}
	assert.True(t, same)
	assert.True(t, differ)
}

// --rate spaces the requests of all workers.
func TestRateBoundsRequests(t *testing.T) {
	cfg := config(serve(t, nil), 1, 4, 40)
	cfg.Rate = 200
	start := time.Now()
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	assert.LessOrEqual(t, rep.RequestsPerSecond, 230.0)
}

// The package never imports the conformance runner (which will import it).
func TestNoImportOfConformance(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			assert.NotEqual(t, `"github.com/petstore/petstore/conformance"`, imp.Path.Value, name)
		}
	}
}

// explore's budget of creates is run's by default: the two commands ask the same of a
// shared target.
func TestMaxCreatesIsRuns(t *testing.T) {
	assert.Equal(t, rules.DefaultMaxCreates, DefaultMaxCreates)
}

// A target that asks to come back later beyond the wait budget cannot be judged: the run
// stops and says why, with no finding (the session's policy, as for conformance run).
func TestRateLimitedBeyondMaxWaitCannotBeJudged(t *testing.T) {
	var n atomic.Int64
	tg := serve(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) > 20 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	cfg := config(tg, 1, 2, 500)
	cfg.MaxWait = time.Millisecond // the first Retry-After is beyond it: no wait at all
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, StopCannotJudge, rep.StoppedBy)
	assert.Contains(t, rep.CannotJudge, "rate limited")
	assert.Empty(t, rep.Findings)
}

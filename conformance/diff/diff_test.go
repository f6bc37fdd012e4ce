package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
)

const pairsDir = "../../testdata/specs/diff"

// pairs maps each directory of testdata/specs/diff to the kind of change its head makes and
// whether that change breaks clients. "" means no change at all.
var pairs = map[string]struct {
	kind     string
	breaking bool
}{
	"no-change":         {"", false},
	"operation-removed": {OperationRemoved, true},
	"deprecated-operation-removed-after-sunset": {OperationRemoved, false},
	"operation-added":                  {OperationAdded, false},
	"response-removed":                 {ResponseRemoved, true},
	"required-request-field-added":     {RequiredFieldAdded, true},
	"optional-request-parameter-added": {OptionalFieldAdded, false},
	"enum-narrowed":                    {EnumNarrowed, true},
	"enum-widened":                     {EnumWidened, true}, // a response value clients do not know
	"bound-narrowed":                   {BoundNarrowed, true},
	"bound-widened":                    {BoundWidened, false},
	"type-changed":                     {TypeChanged, true},
	"format-changed":                   {TypeChanged, true},
	"response-field-removed":           {ResponseFieldRemoved, true},
	"deprecation-added":                {DeprecationAdded, false},
	"sunset-brought-forward":           {SunsetBroughtForward, true},
	"sunset-postponed":                 {SunsetPostponed, false},
}

var ourKinds = []string{OperationRemoved, OperationAdded, ResponseRemoved, RequiredFieldAdded,
	OptionalFieldAdded, EnumNarrowed, EnumWidened, BoundNarrowed, BoundWidened, TypeChanged,
	ResponseFieldRemoved, DeprecationAdded, SunsetBroughtForward, SunsetPostponed, SunsetRemoved}

func loadPair(t *testing.T, dir string) (base, head string) {
	t.Helper()
	base, head = filepath.Join(dir, "base.yaml"), filepath.Join(dir, "head.yaml")
	for _, f := range []string{base, head} {
		_, err := os.Stat(f)
		require.NoError(t, err)
	}
	return base, head
}

func TestPairs(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(pairsDir, "*"))
	require.NoError(t, err)
	require.Len(t, dirs, len(pairs), "every pair has an expectation and every expectation a pair")
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			want, ok := pairs[name]
			require.True(t, ok, "no expectation for %s", dir)
			baseFile, headFile := loadPair(t, dir)

			var stdout, stderr bytes.Buffer
			err := Command(context.Background(), []string{baseFile, headFile, "--format", "json"}, &stdout, &stderr)
			var got report
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), stdout.String())

			if want.kind == "" {
				assert.Empty(t, got.Changes)
				assert.NoError(t, err)
				return
			}
			require.NotEmpty(t, got.Changes)
			found := false
			for _, c := range got.Changes {
				assert.Contains(t, ourKinds, c.Kind, "every change of these pairs has a named kind: %+v", c)
				if c.Kind == want.kind && c.Breaking == want.breaking {
					found = true
				}
				if !want.breaking {
					assert.False(t, c.Breaking, "a non-breaking pair has only non-breaking changes: %+v", c)
				}
			}
			assert.True(t, found, "want a %s change with breaking=%v in %+v", want.kind, want.breaking, got.Changes)
			assert.Equal(t, want.breaking, got.Breaking > 0)
			wantCode := cli.ExitOK
			if want.breaking {
				wantCode = cli.ExitFail
			}
			assert.Equal(t, wantCode, cli.Code(err), "err=%v", err)
		})
	}
}

func TestAllowBreakingReportsOnly(t *testing.T) {
	baseFile, headFile := loadPair(t, filepath.Join(pairsDir, "operation-removed"))
	var stdout, stderr bytes.Buffer
	err := Command(context.Background(), []string{"--allow-breaking", baseFile, headFile}, &stdout, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "breaking operation-removed POST /pets (createPet): api removed without deprecation [api-removed-without-deprecation]\n"+
		"1 changes: 1 breaking, 0 non-breaking\n", stdout.String())

	err = Command(context.Background(), []string{baseFile, headFile}, &stdout, &stderr)
	assert.Equal(t, cli.ExitFail, cli.Code(err))
	assert.Contains(t, err.Error(), "1 breaking changes")
}

func TestStdin(t *testing.T) {
	baseFile, headFile := loadPair(t, filepath.Join(pairsDir, "bound-narrowed"))
	data, err := os.ReadFile(baseFile)
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	err = command(context.Background(), []string{"-", headFile}, bytes.NewReader(data), &stdout, &stderr)
	assert.Equal(t, cli.ExitFail, cli.Code(err))
	assert.Contains(t, stdout.String(), "breaking bound-narrowed GET /pets (listPets)")
}

func TestCommandUsage(t *testing.T) {
	good := filepath.Join(pairsDir, "no-change", "base.yaml")
	broken := filepath.Join(pairsDir, "..", "lint", "not-openapi.yaml")
	for name, args := range map[string][]string{
		"no files":     nil,
		"one file":     {good},
		"three files":  {good, good, good},
		"missing file": {good, "no/such.yaml"},
		"unparsable":   {broken, good},
		"bad format":   {good, good, "--format", "xml"},
		"bad flag":     {good, good, "--nope"},
		"stdin twice":  {"-", "-"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := command(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			require.Error(t, err)
			assert.Equal(t, cli.ExitUnable, cli.Code(err))
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestRemovedAfterSunsetListedFromTheDate(t *testing.T) {
	// From the removal date on, removing the operation is listed as non-breaking; before it,
	// oasdiff's api-removed-before-sunset reports it as breaking and sunsets adds nothing.
	baseFile, headFile := loadPair(t, filepath.Join(pairsDir, "deprecated-operation-removed-after-sunset"))
	base, head := mustLoad(t, baseFile), mustLoad(t, headFile)
	after := sunsets(base, head, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC))
	require.Len(t, after, 1)
	assert.Equal(t, OperationRemoved, after[0].Kind)
	assert.False(t, after[0].Breaking)
	assert.Empty(t, sunsets(base, head, time.Date(2000, 12, 31, 0, 0, 0, 0, time.UTC)))
}

func mustLoad(t *testing.T, file string) *openapi3.T {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	doc, err := Load(data)
	require.NoError(t, err)
	return doc
}

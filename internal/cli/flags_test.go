package cli

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testFlags() (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	spec := fs.String("spec", "", "description `FILE`")
	strict := fs.Bool("strict", false, "count warnings")
	fs.Duration("timeout", 10*time.Second, "per-request timeout, a `duration`")
	fs.String("header", "", "add this `'Name: value'`")
	Shorthand(fs, "H", "header")
	return fs, spec, strict
}

func TestParse(t *testing.T) {
	fs, spec, strict := testFlags()
	args, err := Parse(fs, []string{"a.har", "--spec", "x.yaml", "b.har", "--strict", "--", "--c"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.har", "b.har", "--c"}, args, "flags among the arguments; after --, arguments only")
	assert.Equal(t, "x.yaml", *spec)
	assert.True(t, *strict)

	fs, _, _ = testFlags()
	args, err = Parse(fs, []string{"-", "--strict"})
	require.NoError(t, err)
	assert.Equal(t, []string{"-"}, args, "- is an argument (stdin)")

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "flag provided but not defined: --nope"},
		{[]string{"-nope"}, "flag provided but not defined: --nope"},
		{[]string{"--timeout", "soon"}, `invalid value "soon" for flag --timeout: parse error`},
		{[]string{"--strict=maybe"}, `invalid boolean value "maybe" for --strict: parse error`},
		{[]string{"--spec"}, "flag needs an argument: --spec"},
		{[]string{"-H"}, "flag needs an argument: -H"},
	} {
		fs, _, _ := testFlags()
		_, err := Parse(fs, tt.args)
		assert.EqualError(t, err, tt.want, tt.args)
	}
	fs, _, _ = testFlags()
	_, err = Parse(fs, []string{"x", "--help"})
	assert.ErrorIs(t, err, flag.ErrHelp)
}

func TestPrintFlags(t *testing.T) {
	fs, _, _ := testFlags()
	var b strings.Builder
	PrintFlags(&b, fs)
	assert.Equal(t, `  -H, --header 'Name: value'
      add this 'Name: value'
  --spec FILE
      description FILE
  --strict
      count warnings
  --timeout duration
      per-request timeout, a duration (default 10s)
`, b.String())
}

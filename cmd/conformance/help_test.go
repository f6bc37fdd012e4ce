package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every command prints the help asked for on stdout, exit 0, its flags written --flag as
// the README writes them (a one-letter shorthand such as -H keeps its one dash).
func TestHelp(t *testing.T) {
	singleDash := regexp.MustCompile(`(^|\s)-[a-z]`)
	for _, c := range commands() {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(c.name+flag, func(t *testing.T) {
				code, out, errOut := runMain(t, nil, c.name, flag)
				assert.Equal(t, 0, code, errOut)
				assert.Empty(t, errOut)
				assert.True(t, strings.HasPrefix(out, "usage: conformance "+c.name+" "+c.args+"\n"), out)
				assert.NotRegexp(t, singleDash, out, "no -flag")
				if c.name != "lint" {
					assert.Contains(t, out, "\nflags:\n  --")
				}
			})
		}
	}
	code, out, _ := runMain(t, nil, "run", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "\n  --base-url URL\n      base URL of the service, ending in /v1;")
	assert.Contains(t, out, "\n  -H, --header 'Name: value'\n")
	assert.Contains(t, out, "\n  --timeout duration\n      per-request timeout, a duration such as 30s (default 10s)\n")
	assert.NotContains(t, out, "short for")

	code, out, _ = runMain(t, nil, "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: conformance <command> [flags]")
}

// A bad flag is one line on stderr, written --flag, whatever the command.
func TestBadFlagSaidOnce(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runMain(t, nil, c.name, "--nope")
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Equal(t, "conformance "+c.name+": flag provided but not defined: --nope\n", errOut)
		})
	}
}

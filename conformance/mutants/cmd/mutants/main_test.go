package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/spec"
)

func TestRunPrintsTheTable(t *testing.T) {
	limit, err := spec.QueryInt(spec.MustLoad(), spec.OpList, "limit")
	require.NoError(t, err)
	half := strconv.FormatInt(limit.Max/2, 10) // the mutant lowers limits to half the spec's maximum
	var out, errw bytes.Buffer
	err = run(context.Background(), []string{"mutants", "-run", "^(list-limit-capped-" + half + "|create-trailing-data-ignored)$", "-ablate"}, &out, &errw)
	require.NoError(t, err, errw.String())
	table := out.String()
	assert.Contains(t, table, "| list-limit-capped-"+half+" | limit values above "+half)
	assert.Contains(t, table, "| create-trailing-data-ignored | The body parser reads the first JSON value")
	assert.Contains(t, table, "Mutation score: 2/2 caught (100%).")
	assert.Contains(t, table, "| `listPets/limit-max-full` | 1 | `list-limit-capped-"+half+"` |")
	assert.Contains(t, table, "| `createPet/cases-body` | 1 | `create-trailing-data-ignored` |", "a generated family is the only catcher of a request-side mutant")
	assert.Equal(t, 2, strings.Count(table, "Mutation score")+strings.Count(table, "earn their place"))
}

func TestRunRefusesBadArguments(t *testing.T) {
	for name, args := range map[string][]string{
		"unknown flag":   {"mutants", "-bogus"},
		"extra argument": {"mutants", "all"},
		"bad pattern":    {"mutants", "-run", "("},
		"no match":       {"mutants", "-run", "^no-such-mutant$"},
	} {
		var out, errw bytes.Buffer
		err := run(context.Background(), args, &out, &errw)
		require.Error(t, err, name)
		assert.Equal(t, cli.ExitUnable, cli.Code(err), name)
		assert.NotContains(t, err.Error(), "\n", name)
	}
}

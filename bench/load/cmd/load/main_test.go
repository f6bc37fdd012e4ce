package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/reference"
)

// Bad command lines end with exit code 2 and a one-line message, before anything starts.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"load", "-connections", "0"},
		{"load", "-duration", "-1s"},
		{"load", "-animals", "100", "-memory"},
		{"load", "-server-cores", "0"},
		{"load", "-server-cores", "1,two"},
		{"load", "-slice", "0s"},
		{"load", "-nope"},
		{"load", "extra"},
		{"load", "baseline"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		require.Error(t, err, args)
		assert.Equal(t, cli.ExitUnable, cli.Code(err), args)
		assert.Empty(t, stdout.String(), args)
	}
}

// The seed is a valid seed file for petstore serve, a quarter of it sold.
func TestWriteSeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, writeSeed(path, 8))
	pets, err := reference.LoadSeed(path)
	require.NoError(t, err)
	require.Len(t, pets, 8)
	assert.Equal(t, reference.NewPet{Name: "pet1", CategoryID: 1, Status: "pending"}, pets[0])
	sold := 0
	for _, p := range pets {
		if p.Status == "sold" {
			sold++
		}
	}
	assert.Equal(t, 2, sold)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, json.Valid(data))
}

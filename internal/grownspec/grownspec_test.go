package grownspec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An addition the spec already has is left out: the operation or parameter appears once.
func TestAnAdditionTheSpecHasIsLeftOut(t *testing.T) {
	for _, names := range [][]string{{Delete}, {Change}, {Groom}, {NameFilter}, {Sort}} {
		once, err := Text(names...)
		require.NoError(t, err, names)
		twice, err := Text(append(names, names...)...)
		require.NoError(t, err, names)
		assert.Equal(t, string(once), string(twice), names)
	}
	text, err := Text(Delete, NameFilter)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(text), "operationId: deletePet"))
	assert.Equal(t, 1, strings.Count(string(text), "- name: name\n"))
}

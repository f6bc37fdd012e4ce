package level

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each level is written as its name, in text and in JSON, and read back; INFO, the old name
// of ADVISORY, still reads; anything else is refused.
func TestLevelWritesItsName(t *testing.T) {
	for l, name := range map[Level]string{Must: "MUST", Should: "SHOULD", Advisory: "ADVISORY", Open: "OPEN"} {
		assert.Equal(t, name, l.String())
		b, err := json.Marshal(l)
		require.NoError(t, err)
		assert.Equal(t, `"`+name+`"`, string(b))
		var back Level
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, l, back)
	}
	var l Level
	require.NoError(t, l.UnmarshalText([]byte("INFO")))
	assert.Equal(t, Advisory, l)
	assert.EqualError(t, l.UnmarshalText([]byte("must")), `report: unknown severity "must"`)
	assert.Equal(t, "Severity(9)", Level(9).String())
}

// The weaker of two levels is the later in MUST, SHOULD, ADVISORY, OPEN.
func TestWeaker(t *testing.T) {
	assert.Equal(t, Should, Must.Weaker(Should))
	assert.Equal(t, Should, Should.Weaker(Must))
	assert.Equal(t, Open, Advisory.Weaker(Open))
	assert.Equal(t, Must, Must.Weaker(Must))
}

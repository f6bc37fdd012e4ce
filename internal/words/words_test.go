package words

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlural(t *testing.T) {
	assert.Equal(t, "1 rule", Plural(1, "rule"))
	assert.Equal(t, "0 rules", Plural(0, "rule"))
	assert.Equal(t, "2 server cores", Plural(2, "server core"))
	assert.Equal(t, "-1 steps", Plural(-1, "step"))
	assert.Equal(t, "pair", Noun(1, "pair"))
	assert.Equal(t, "pairs", Noun(3, "pair"))
}

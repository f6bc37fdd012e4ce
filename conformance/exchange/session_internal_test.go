package exchange

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/conformance/report"
)

func TestShellQuote(t *testing.T) {
	assert.Equal(t, `'it'\''s'`, shellQuote("it's"))
	assert.Equal(t, `"Authorization: Bearer $PETSTORE_API_KEY"`, shellQuote("Authorization: Bearer "+report.KeyPlaceholder))
	assert.Equal(t, `"a \$HOME \"q\" $PETSTORE_API_KEY"`, shellQuote(`a $HOME "q" `+report.KeyPlaceholder))
}

// An id written in another script's digits names an animal to a lenient parser: the guard
// counts it as one the run did not create.
func TestAnimalInOtherDigits(t *testing.T) {
	for _, v := range []string{"\u0661", "\u0967\u0968"} {
		id, ok := animalIn(v)
		assert.True(t, ok, v)
		assert.Equal(t, v, id)
	}
	_, ok := animalIn("abc")
	assert.False(t, ok)
	id, _ := animalIn("+12")
	assert.Equal(t, "12", id)
}

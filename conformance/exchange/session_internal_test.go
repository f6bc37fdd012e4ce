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

package fast

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lone surrogate escape would be stored as U+FFFD, a name the client never sent; a valid
// pair, and a backslash that only looks like one, are kept as sent.
func TestSurrogateEscapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"name":"\ud83d\ude00","categoryId":1}`:           "\U0001F600",
		`{"name":"a\\ud800","categoryId":1}`:               `a\ud800`,
		`{"name":"\u00e9\"\\\ud83d\ude00","categoryId":1}`: "é\"\\\U0001F600",
	} {
		p, err := DecodeNewPetQuick([]byte(body))
		require.NoError(t, err, body)
		assert.Equal(t, want, p.Name, body)
	}
	for _, body := range []string{
		`{"name":"\ud800","categoryId":1}`,
		`{"name":"x\udc00y","categoryId":1}`,
		`{"name":"\ud83d\u0041","categoryId":1}`,
		`{"name":"\ud83d","categoryId":1}`,
		`{"name":"ok","categoryId":1,"status":"\udfff"}`,
	} {
		_, err := DecodeNewPetQuick([]byte(body))
		assert.ErrorContains(t, err, "surrogate", body)
	}
}

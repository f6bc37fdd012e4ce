package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCode(t *testing.T) {
	assert.Equal(t, 0, Code(nil))
	assert.Equal(t, 1, Code(Failed("")))
	assert.Equal(t, "", Failed("").Error())
	assert.Equal(t, 2, Code(Usagef("bad flag %q", "-x")))
	assert.Equal(t, 2, Code(errors.New("boom")), "an unexpected error means the job could not be done")
	wrapped := fmt.Errorf("context: %w", Failed("3 rules failed"))
	assert.Equal(t, 1, Code(wrapped))
	assert.EqualError(t, wrapped, "context: 3 rules failed")
}

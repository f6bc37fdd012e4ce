package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The command that replays a finding names the target and reads the key from the
// environment, unless the target was the in-process reference; words the shell would split
// or expand are quoted.
func TestReplayCommand(t *testing.T) {
	rep := &Report{Target: "https://staging.example/v1"}
	assert.Equal(t, `conformance replay explore-replay.json --base-url https://staging.example/v1 --api-key "$PETSTORE_API_KEY"`,
		ReplayCommand("explore-replay.json", rep))
	assert.Equal(t, `conformance replay 'my replay.json' --base-url https://staging.example/v1 --api-key "$PETSTORE_API_KEY" --spec=spec/openapi.yaml --insecure`,
		ReplayCommand("my replay.json", rep, "--spec=spec/openapi.yaml", "--insecure"))
	rep = &Report{Target: "http://127.0.0.1:4242/v1" + InProcessNote, InProcess: true}
	assert.Equal(t, "conformance replay out/r.json", ReplayCommand("out/r.json", rep))
	assert.Equal(t, `conformance replay 'it'\''s.json'`, ReplayCommand("it's.json", rep))
}

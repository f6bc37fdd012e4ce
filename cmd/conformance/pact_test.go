package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pactJS = "../../testdata/pact/pact-js-web-petstore.json"

// pact verify has run's reports and exit codes: 0 when every interaction holds, 1 naming
// the one that does not, 2 when the verification cannot be made.
func TestPactVerify(t *testing.T) {
	code, out, errOut := runMain(t, nil, "pact", "verify", pactJS, "../../testdata/pact/v3-jvm-client.json")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n4.1 List all animals\n  pass   MUST    pact/pact-js-web/1  pact-js-web's interaction \"a list of at most 100 available animals\"\n")
	assert.Contains(t, out, "- ADVISORY: the consumer relies on getPet, which is deprecated and is removed on 2030-12-05: it should move to listPets\n")
	assert.Regexp(t, `\n6 rules: 3 pass, 0 fail, 3 warn, 0 skip, 0 error; .*: CONFORMING\n$`, out)

	// From getPet's removal date, a consumer that relies on it is broken.
	code, out, _ = runMain(t, nil, "pact", "verify", pactJS, "--now", "2031-01-01")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "- MUST: the consumer relies on getPet, which the description removes on 2030-12-05; it must move to listPets\n")

	// A provider that lets requests without a key in breaks the v2 pact's 401 interaction.
	code, out, _ = runMain(t, nil, "pact", "verify", "../../testdata/pact/v2-go-client.json", "--base-url", openReference(t, true), "--api-key", key)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "\n  fail   MUST    pact/go-v1-client/2  go-v1-client's interaction \"a request without a key\"\n")
	assert.Contains(t, out, "- MUST: the consumer expects status 401 Unauthorized, got 200 OK\n")
	assert.Contains(t, out, "reproduce: curl -sS -i '")

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"interactions": []}`), 0o600))
	for _, args := range [][]string{{"pact", "verify", bad}, {"pact", "verify"}, {"pact", pactJS}, {"pact", "verify", "missing.json"}} {
		code, _, errOut = runMain(t, nil, args...)
		assert.Equal(t, 2, code, strings.Join(args, " "))
		assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	}
}

// diff --pact names the consumer interaction a narrower limit breaks, and none for a change
// no consumer touches.
func TestDiffByConsumer(t *testing.T) {
	base := writeSpec(t, func(s string) string { return s })
	max50 := writeSpec(t, func(s string) string { return strings.Replace(s, "maximum: 100", "maximum: 50", 1) })
	code, out, errOut := runMain(t, nil, "diff", base, max50, "--pact", pactJS)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "consumers: the change breaks 1 of the 4 interactions of 1 pact\n")
	assert.Contains(t, out, "  BREAKS  pact-js-web interaction 1 \"a list of at most 100 available animals\"")
	assert.Contains(t, out, `parameter "limit" in query: number must be at most 50`)
	assert.Contains(t, errOut, "conformance diff: the change breaks 1 consumer interaction")

	code, out, _ = runMain(t, nil, "diff", base, max50, "--pact", pactJS, "--format", "json")
	assert.Equal(t, 1, code)
	var rep struct {
		Breaking  int
		Consumers struct {
			Pacts, Interactions int
			Breaks              []struct {
				Consumer    string
				Interaction int
				Reasons     []string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, 1, rep.Breaking, "diff's own report, unchanged")
	assert.Equal(t, 4, rep.Consumers.Interactions)
	require.Len(t, rep.Consumers.Breaks, 1)
	assert.Equal(t, 1, rep.Consumers.Breaks[0].Interaction)

	min2 := writeSpec(t, func(s string) string { return strings.Replace(s, "minimum: 1\n", "minimum: 2\n", 1) })
	code, out, _ = runMain(t, nil, "diff", base, min2, "--pact", pactJS, "--allow-breaking")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "consumers: the change breaks none of the 4 interactions of 1 pact\n")
}

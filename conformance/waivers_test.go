package conformance_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

func TestParseWaivers(t *testing.T) {
	ws, err := conformance.ParseWaivers([]byte(`
- rule: auth/listPets-missing
  reason: gateway lets anonymous reads in, PLAT-1
  expires: 2026-06-30
- {rule: getPet/unknown-id, reason: "PLAT-2", expires: "2027-01-01"}
`))
	require.NoError(t, err)
	assert.Equal(t, []conformance.Waiver{
		{Rule: "auth/listPets-missing", Reason: "gateway lets anonymous reads in, PLAT-1", Expires: "2026-06-30"},
		{Rule: "getPet/unknown-id", Reason: "PLAT-2", Expires: "2027-01-01"},
	}, ws)
	ws, err = conformance.ParseWaivers(nil)
	require.NoError(t, err)
	assert.Empty(t, ws, "an empty file waives nothing")

	for _, tt := range []struct{ name, yaml, want string }{
		{"not a list", "rule: x", "want a YAML list"},
		{"unknown field", "- {rule: a/b, reason: r, expires: 2026-01-01, owner: me}", "field owner not found"},
		{"no rule", "- {reason: r, expires: 2026-01-01}", "entry 1: rule is missing"},
		{"no reason", "- {rule: a/b, expires: 2026-01-01}", "entry 1 (a/b): reason is missing"},
		{"bad date", "- {rule: a/b, reason: r, expires: 30/06/2026}", `expires "30/06/2026": want a date YYYY-MM-DD`},
		{"no date", "- {rule: a/b, reason: r}", `expires "": want a date`},
		{"twice", "- {rule: a/b, reason: r, expires: 2026-01-01}\n- {rule: a/b, reason: s, expires: 2026-01-01}", "entry 2 (a/b): the rule is waived twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := conformance.ParseWaivers([]byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// Waivers are judged at the later of the run's clock and the wall clock: a waiver expiring in
// 2099 holds, one expiring on the run's day does not, and neither does one that expired
// since (--now in the past does not revive it).
func TestWaivers(t *testing.T) {
	target := serve(t, openDoor(newReference(t, beforeSunset, reference.Config{})))
	plain := run(t, target, conformance.Options{Only: []string{"auth"}})
	require.Positive(t, plain.Counts.Fail)

	var waivers []conformance.Waiver
	for _, res := range plain.Results {
		if res.Status == conformance.Fail {
			waivers = append(waivers, conformance.Waiver{Rule: res.ID, Reason: "known: PLAT-7", Expires: "2099-01-03"})
		}
	}
	rep := run(t, target, conformance.Options{Only: []string{"auth"}, Waivers: waivers})
	assert.True(t, rep.Conforming())
	assert.Equal(t, 0, rep.Counts.Fail)
	assert.Equal(t, plain.Counts.Fail, rep.Counts.Waived)
	res, ok := rep.Result(waivers[0].Rule)
	require.True(t, ok)
	assert.Equal(t, conformance.Waived, res.Status)
	assert.Equal(t, &waivers[0], res.Waiver)
	assert.NotEmpty(t, res.Failures, "a waived result keeps what went wrong")

	// Expired on the run's clock: the rule fails again and the waiver is named.
	expired := []conformance.Waiver{{Rule: waivers[0].Rule, Reason: "known: PLAT-7", Expires: "2026-01-02"}}
	rep = run(t, target, conformance.Options{Only: []string{"auth"}, Waivers: expired})
	assert.False(t, rep.Conforming())
	res, _ = rep.Result(waivers[0].Rule)
	assert.Equal(t, conformance.Fail, res.Status)
	require.Len(t, rep.GateFailures, 1)
	assert.Equal(t, "waiver/"+waivers[0].Rule, rep.GateFailures[0].Gate)
	assert.Contains(t, rep.GateFailures[0].Message, "expired on 2026-01-02")

	// The run's clock (2026-01-02) is before this expiry, the wall clock after it.
	revived := []conformance.Waiver{{Rule: waivers[0].Rule, Reason: "known: PLAT-7", Expires: "2026-01-03"}}
	rep = run(t, target, conformance.Options{Only: []string{"auth"}, Waivers: revived})
	res, _ = rep.Result(waivers[0].Rule)
	assert.Equal(t, conformance.Fail, res.Status, "--now in the past revived an expired waiver")
	require.Len(t, rep.GateFailures, 1)

	// An expired waiver fails the run even when its rule passes.
	good := serve(t, newReference(t, beforeSunset, reference.Config{}))
	rep = run(t, good, conformance.Options{Only: []string{"auth"}, Waivers: expired})
	assert.Equal(t, 0, rep.Counts.Fail)
	assert.Equal(t, conformance.NotConforming, rep.Verdict)

	// A waiver for a rule that passes changes nothing.
	rep = run(t, good, conformance.Options{Only: []string{"auth"}, Waivers: waivers})
	assert.True(t, rep.Conforming())
	assert.Equal(t, 0, rep.Counts.Waived)

	_, err := conformance.Run(context.Background(), good, conformance.Options{
		Waivers: []conformance.Waiver{{Rule: "auth/no-such-rule", Reason: "r", Expires: "2030-01-01"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `waiver for unknown rule "auth/no-such-rule"`)
}

// A waiver in force whose rule passes is reported as unneeded, and fails nothing.
func TestUnneededWaiverIsReported(t *testing.T) {
	w := conformance.Waiver{Rule: "errors/not-found", Reason: "old gateway bug, OPS-9", Expires: "2099-01-01"}
	rep := run(t, serve(t, newReference(t, beforeSunset, reference.Config{})),
		conformance.Options{Only: []string{"errors/not-found"}, Waivers: []conformance.Waiver{w}})
	assert.Equal(t, conformance.Conforming, rep.Verdict)
	assert.Equal(t, []conformance.Waiver{w}, rep.UnneededWaivers)
	var text strings.Builder
	require.NoError(t, conformance.WriteText(&text, rep))
	assert.Contains(t, text.String(), "unneeded waiver: errors/not-found passes; remove its waiver (old gateway bug, OPS-9, until 2099-01-01)")
}

package conformance_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

// goldenTarget is the base URL the golden reports show in place of the test server's.
const goldenTarget = "http://127.0.0.1:8080"

// goldenReport is a run made deterministic: one worker, a server that lets GET /pets in without a key
// (failures), one waiver in force and one expired, a coverage minimum the selection cannot
// meet, the clock fixed, and the random port, start time, durations (the run's and each
// rule's) and Date headers replaced. A few rules, named here, keep the files stable when the
// catalogue grows.
func goldenReport(t *testing.T) (*conformance.Report, string) {
	target := serve(t, openDoor(newReference(t, beforeSunset, reference.Config{})))
	rep := run(t, target, conformance.Options{
		Only: []string{"auth/listPets-missing", "auth/listPets-www-authenticate", "auth/createPet-missing",
			"errors/unauthorized", "getPet/unknown-id", "getPet/gone-after-sunset", "listPets/status-sold", "listPets/cases-auth"},
		Waivers: []conformance.Waiver{
			{Rule: "auth/createPet-missing", Reason: "staging gateway lets writes in, OPS-7", Expires: "2099-02-01"},
			{Rule: "errors/unauthorized", Reason: "old ticket OPS-1", Expires: "2026-01-01"},
		},
		MinCoverage: 80,
		Seed:        42,
		// One worker: the listings in the report then hold the same animals every time
		// (with more, they show what rules running alongside created).
		Workers: 1,
	})
	rep.Started = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	rep.DurationMS = 1234.5
	// The build and the spec's bytes change without the report's meaning changing.
	rep.Provenance.Harness, rep.Provenance.SpecSHA256 = "github.com/petstore/petstore v0.0.0", "(sha256 of spec/openapi.yaml)"
	// Created animals have random names.
	names := regexp.MustCompile(conformance.NamePrefix + `[a-z0-9]{6}\b`)
	fixed := func(s string) string { return names.ReplaceAllString(s, conformance.NamePrefix+"xxxxxx") }
	for i := range rep.Results {
		rep.Results[i].DurationMS = 12.5
		for j := range rep.Results[i].Exchanges {
			ex := &rep.Results[i].Exchanges[j]
			ex.Request.Body, ex.Curl = fixed(ex.Request.Body), fixed(ex.Curl)
			if resp := ex.Response; resp != nil {
				resp.Header.Del("Date")
				resp.Body = fixed(resp.Body)
			}
		}
	}
	return rep, strings.TrimSuffix(target.BaseURL, "/v1")
}

func TestGoldenReports(t *testing.T) {
	rep, server := goldenReport(t)
	for _, tt := range []struct{ format, file string }{
		{"json", "report.json"},
		{"junit", "report.junit.xml"},
		{"markdown", "report.md"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, conformance.Formats[tt.format](&out, rep))
			if tt.format == "junit" {
				validJUnit(t, out.Bytes())
			}
			got := strings.ReplaceAll(out.String(), server, goldenTarget)
			path := filepath.Join("testdata", "golden", tt.file)
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run make golden")
			assert.Equal(t, string(want), got, "the report changed (a spec edit changes the rules): run make golden and review the diff")
		})
	}
}

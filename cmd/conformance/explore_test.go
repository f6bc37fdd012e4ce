package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/explore"
	"github.com/petstore/petstore/conformance/explore/seqmutants"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

func TestVersion(t *testing.T) {
	code, out, _ := runMain(t, nil, "--version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "conformance github.com/petstore/petstore "), out)
}

// Against the in-process reference: nothing found, exit 0, and the report carries the
// provenance (harness, spec hash, seed, flags) and the rate.
func TestExploreReference(t *testing.T) {
	code, out, errOut := runMain(t, nil, "explore", "--steps", "400", "--workers", "2", "--seed", "3")
	require.Equal(t, 0, code, errOut+out)
	assert.Contains(t, out, "(the reference, in-process)")
	assert.Contains(t, out, "harness github.com/petstore/petstore ")
	assert.Contains(t, out, "spec sha256 "+explore.SpecSHA256(spec.Bytes())+"\n")
	assert.Contains(t, out, "seed 3, 2 workers, flags: --seed=3 --steps=400 --workers=2")
	assert.Regexp(t, `\d+ requests \(\d+ requests/s\)`, out)
	assert.Contains(t, out, "0 findings: nothing contradicts the interface document")
}

// Against a faulty server: exit 1, the finding with its section, the shrunk sequence and
// curl lines without the key, a replay file that conformance replay runs again (exit 1).
func TestExploreFindsAndReplays(t *testing.T) {
	doc := spec.MustLoad()
	var m seqmutants.Mutant
	for _, c := range seqmutants.Catalogue() {
		if c.Name == "filter-one-status" {
			m = c
		}
	}
	tg, stop, err := seqmutants.Serve(doc, m)
	require.NoError(t, err)
	t.Cleanup(stop)
	file := filepath.Join(t.TempDir(), "replay.json")
	env := map[string]string{"PETSTORE_API_KEY": tg.APIKey}
	code, out, errOut := runMain(t, env, "explore", "--base-url", tg.BaseURL, "--steps", "2000", "--seed", "1",
		"--shrink-time", "3s", "--replays", "3", "--replay-file", file, "--max-findings", "1")
	require.Equal(t, 1, code, errOut+out)
	statuses, err := spec.StatusValues(doc)
	require.NoError(t, err)
	// The catalogue's rule of the status the mutant's filter ignores.
	assert.Contains(t, out, "FINDING listPets/status-"+statuses[1]+" (section 4.1 rule 2)")
	assert.Contains(t, out, "failed 3 of 3 replays (deterministic)")
	assert.Contains(t, out, `-H "Authorization: Bearer $PETSTORE_API_KEY"`)
	assert.NotContains(t, out, tg.APIKey)
	// The command to replay it in full: the target, the key from the environment.
	wantCmd := "conformance replay " + file + " --base-url " + tg.BaseURL + ` --api-key "$PETSTORE_API_KEY"`
	assert.Equal(t, "conformance explore: shrunk on a store the exploration had changed; the fresh-store check could not be made: "+
		"no admin key (--admin-key or PETSTORE_ADMIN_KEY) to reset the target; shrunk sequence in "+file+"; run it again with: "+wantCmd+"\n", errOut)
	assert.Contains(t, out, "\n  the fresh-store check could not be made: no admin key to reset the target with (POST /_admin/reset)\n")
	args := strings.Fields(strings.ReplaceAll(strings.TrimPrefix(wantCmd, "conformance "), `"$PETSTORE_API_KEY"`, env["PETSTORE_API_KEY"]))
	code, out, errOut = runMain(t, nil, append(args, "--replays", "1")...)
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "failed 1 of 1 replays")

	// Without --base-url, replay goes to the target the file records.
	code, out, errOut = runMain(t, env, "replay", file, "--replays", "2")
	assert.Equal(t, 1, code, errOut)
	assert.True(t, strings.HasPrefix(out, "conformance replay: "+tg.BaseURL+"\n"), out)
	assert.NotContains(t, out, "elsewhere")
	assert.Contains(t, out, "failed 2 of 2 replays (deterministic)")

	// Another --base-url is refused, one line, unless --elsewhere allows it; the report then
	// says where the finding was recorded. (The reference there has no fault.)
	other := openReference(t, false)
	code, out, errOut = runMain(t, env, "replay", file, "--base-url", other, "--api-key", key)
	assert.Equal(t, 2, code, out)
	assert.Equal(t, "conformance replay: "+file+": recorded against "+tg.BaseURL+", not "+other+"; add --elsewhere to replay it there\n", errOut)
	code, out, errOut = runMain(t, env, "replay", file, "--base-url", other, "--api-key", key, "--elsewhere", "--replays", "2")
	assert.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "conformance replay: "+other+"\n  replayed elsewhere: the finding was recorded against "+tg.BaseURL+"\n"), out)
	assert.Contains(t, out, "failed 0 of 2 replays (not reproduced)")
	code, _, errOut = runMain(t, env, "replay", file, "--elsewhere")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--elsewhere needs the --base-url")

	code, out, errOut = runMain(t, env, "replay", file, "--base-url", tg.BaseURL, "--replays", "2")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "failed 2 of 2 replays (deterministic)")
	assert.Contains(t, out, "curl -sS -i")
	assert.Contains(t, out, "recorded by harness github.com/petstore/petstore ")
	assert.Contains(t, out, "spec sha256 "+explore.SpecSHA256(spec.Bytes()))

	code, out, errOut = runMain(t, env, "explore", "--base-url", tg.BaseURL, "--api-key", tg.APIKey, "--steps", "2000", "--seed", "1",
		"--shrink-time", "1s", "--replays", "1", "--replay-file", file, "--format", "json", "--max-findings", "1")
	require.Equal(t, 1, code)
	assert.Contains(t, errOut, `--api-key "$PETSTORE_API_KEY"`)
	assert.NotContains(t, errOut, tg.APIKey)
	var rep struct {
		Provenance struct {
			Flags []string `json:"flags"`
			Seed  uint64   `json:"seed"`
		} `json:"provenance"`
		Findings []struct {
			Rule string `json:"rule"`
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Contains(t, rep.Provenance.Flags, "--api-key=***")
	assert.Equal(t, uint64(1), rep.Provenance.Seed)
	assert.NotContains(t, out, tg.APIKey)
	require.Len(t, rep.Findings, 1)

	// The replay file records the same provenance, the key masked.
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.NotContains(t, string(data), tg.APIKey)
	rf, err := explore.ReadReplayFile(file)
	require.NoError(t, err)
	assert.Equal(t, explore.SpecSHA256(spec.Bytes()), rf.Provenance.SpecSHA256)
	assert.Contains(t, rf.Provenance.Harness, "github.com/petstore/petstore")
	assert.Equal(t, uint64(1), rf.Provenance.Seed)
	assert.Contains(t, rf.Provenance.Flags, "--api-key=***")
	assert.Contains(t, rf.Provenance.Flags, "--seed=1")
}

// Two faults: explore goes on after the first, writes each finding's shrunk sequence to its
// own file (the first to --replay-file), and conformance replay runs the second's, passing
// over the first's fault.
func TestExploreEveryFinding(t *testing.T) {
	doc := spec.MustLoad()
	two := seqmutants.Mutant{Name: "two", New: func(doc *openapi3.T) func(http.Handler) http.Handler {
		var wraps []func(http.Handler) http.Handler
		for _, m := range seqmutants.Catalogue() {
			if m.Name == "filter-one-status" || m.Name == "lossy-category" {
				wraps = append(wraps, m.New(doc))
			}
		}
		return func(h http.Handler) http.Handler { return wraps[0](wraps[1](h)) }
	}}
	tg, stop, err := seqmutants.Serve(doc, two)
	require.NoError(t, err)
	t.Cleanup(stop)
	dir := t.TempDir()
	file, second := filepath.Join(dir, "r.json"), filepath.Join(dir, "r-2.json")
	env := map[string]string{"PETSTORE_API_KEY": tg.APIKey}
	code, out, errOut := runMain(t, env, "explore", "--base-url", tg.BaseURL, "--workers", "1", "--steps", "1500", "--seed", "1",
		"--shrink-time", "3s", "--replays", "2", "--replay-file", file)
	require.Equal(t, 1, code, errOut+out)
	assert.Equal(t, "conformance explore: 2 findings; shrunk sequences in "+file+", "+second+"; run the first again with: conformance replay "+file+
		" --base-url "+tg.BaseURL+` --api-key "$PETSTORE_API_KEY"`+"\n", errOut)
	assert.Contains(t, out, "\n  replay file: "+file+"\n")
	assert.Contains(t, out, "\n  replay file: "+second+"\n")
	assert.Contains(t, out, "\n2 findings: NOT CONFORMING\n")
	code, out, errOut = runMain(t, env, "replay", second, "--replays", "1")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "\n  passes over the fault of an earlier finding of the run: ")
	assert.Contains(t, out, "failed 1 of 1 replays")
}

// With the target's admin key (flag or environment), explore resets the target and plays the
// shrunk sequence once more; the line and the report say how it went, the admin key nowhere.
func TestExploreFreshStoreCheck(t *testing.T) {
	doc := spec.MustLoad()
	const adminKey = "cmd-test-admin-key-4f0a"
	h, err := reference.NewServer(reference.Config{APIKeys: []string{key}, AdminKey: adminKey})
	require.NoError(t, err)
	for _, m := range seqmutants.Catalogue() {
		if m.Name == "filter-one-status" {
			h = m.New(doc)(h)
		}
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", map[string]string{"PETSTORE_API_KEY": key}, []string{"--admin-key", adminKey}},
		{"environment", map[string]string{"PETSTORE_API_KEY": key, "PETSTORE_ADMIN_KEY": adminKey}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".json")
			args := append([]string{"explore", "--base-url", srv.URL + "/v1", "--steps", "2000", "--seed", "1", "--shrink-time", "3s",
				"--replays", "2", "--replay-file", file, "--max-findings", "1"}, tt.args...)
			code, out, errOut := runMain(t, tt.env, args...)
			require.Equal(t, 1, code, errOut+out)
			assert.Regexp(t, `^conformance explore: shrunk on a store the exploration had changed; it (reproduced|did not reproduce) on a fresh store \(after a reset\)`, errOut)
			assert.Regexp(t, `\n  on a fresh store \(after POST /_admin/reset\): (reproduced|not reproduced; the finding needs state the exploration left behind)\n`, out)
			// The line and the report agree.
			assert.Equal(t, strings.Contains(errOut, "it reproduced"), strings.Contains(out, "/_admin/reset): reproduced\n"))
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			for _, s := range []string{out, errOut, string(data)} {
				assert.NotContains(t, s, adminKey)
				assert.NotContains(t, s, key)
			}
			if tt.args != nil {
				assert.Contains(t, out, "--admin-key=***")
			}
			assert.Contains(t, string(data), `"freshStore": {`)
		})
	}
}

// Ctrl-C (a cancelled context) ends the run with a report of what ran, exit 2.
func TestExploreInterrupted(t *testing.T) {
	ctx, base := interruptedAfter(t, 50)
	var out, errOut bytes.Buffer
	env := map[string]string{"PETSTORE_API_KEY": key}
	err := run(ctx, []string{"conformance", "explore", "--duration", "1h", "--base-url", base}, func(k string) string { return env[k] }, &out, &errOut)
	assert.Equal(t, cli.ExitUnable, cli.Code(err))
	assert.Contains(t, err.Error(), "interrupted after")
	assert.Contains(t, out.String(), "stopped by interrupt")
	assert.Contains(t, out.String(), "0 findings in what ran: INTERRUPTED")
}

// A file recorded against the in-process reference replays against a fresh one (whatever
// PETSTORE_BASE_URL says), also a version 2 file, which says so only in its target.
func TestReplayRecordedInProcess(t *testing.T) {
	dir := t.TempDir()
	seq := `"lag":"1s","finding":{"rule":"list-limit","section":"4.1 rule 1","message":"m"},"class":"deterministic",` +
		`"workers":[[{"op":"createPet","body":"{\"name\":\"a\",\"categoryId\":1}"},{"op":"listPets"}]]`
	files := map[string]string{
		"v3.json": `{"format":"` + explore.ReplayFormat + `","target":"http://127.0.0.1:1/v1 (the reference, in-process)","inProcess":true,` + seq + `}`,
		"v2.json": `{"format":"petstore-explore-replay/2","target":"http://127.0.0.1:1/v1 (the reference, in-process)",` + seq + `}`,
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(file, []byte(content), 0o644))
			env := map[string]string{"PETSTORE_BASE_URL": "http://127.0.0.1:1/v1", "PETSTORE_API_KEY": "k"}
			code, out, errOut := runMain(t, env, "replay", file, "--replays", "2")
			assert.Equal(t, 0, code, errOut)
			assert.Regexp(t, `^conformance replay: http://127\.0\.0\.1:\d+/v1 \(the reference, in-process\)\n`, out)
			assert.Contains(t, out, "a fresh reference for each run, as the finding was recorded against the reference in-process\n")
			assert.NotContains(t, out, "127.0.0.1:1/")
			assert.Contains(t, out, "failed 0 of 2 replays (not reproduced)")

			// A --base-url needs --elsewhere.
			code, _, errOut = runMain(t, nil, "replay", file, "--base-url", "http://127.0.0.1:1/v1", "--api-key", "k")
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, "recorded against the reference in-process, not http://127.0.0.1:1/v1; add --elsewhere")
		})
	}
}

// A replay file that cannot be used is one line, exit 2.
func TestReplayBadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, []byte(content), 0o644))
		return file
	}
	steps := `"lag":"1s","finding":{"rule":"r"},"class":"deterministic","workers":[[{"op":"listPets"}]]`
	for _, tt := range []struct {
		name, file, want string
		args             []string
	}{
		{"missing", filepath.Join(dir, "nope.json"), "no such file", nil},
		{"not JSON", write("text.json", "FINDING list-filter\n"), "invalid character", nil},
		{"unknown format", write("v9.json", `{"format":"petstore-explore-replay/9",`+steps+`}`), `format "petstore-explore-replay/9"`, nil},
		{"no target", write("none.json", `{"format":"`+explore.ReplayFormat+`",`+steps+`}`), "the file records no target; give one as --base-url", nil},
		{"password", write("pw.json", `{"format":"`+explore.ReplayFormat+`","target":"http://u:xxxxx@127.0.0.1:1/v1",`+steps+`}`),
			"had a password, which the file does not keep; give it as --base-url", nil},
		// A user or query values are written as variables: never sent as they stand.
		{"masked query", write("q.json", `{"format":"`+explore.ReplayFormat+`","target":"http://127.0.0.1:1/v1?code=$PETSTORE_QUERY_1",`+steps+`}`),
			"had secrets in its URL, which the file does not keep; give it as --base-url", nil},
		{"masked user", write("u.json", `{"format":"`+explore.ReplayFormat+`","target":"http://$PETSTORE_URL_USER@127.0.0.1:1/v1",`+steps+`}`),
			"give it as --base-url", nil},
		{"no key", write("url.json", `{"format":"`+explore.ReplayFormat+`","target":"http://127.0.0.1:1/v1",`+steps+`}`), "want an API key", nil},
		{"unreachable", filepath.Join(dir, "url.json"), "conformance replay: target unreachable", []string{"--api-key", "k"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runMain(t, nil, append([]string{"replay", tt.file}, tt.args...)...)
			assert.Equal(t, 2, code, out)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
			assert.NotRegexp(t, doubledPrefix, errOut)
		})
	}
}

func TestExploreCannotBeMade(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"bad flag", []string{"explore", "--nope"}, "conformance explore: flag provided but not defined: --nope"},
		{"no workers", []string{"explore", "--workers", "0"}, "--workers must be at least 1"},
		{"negative duration", []string{"explore", "--duration", "-1s"}, "must not be negative"},
		{"bad format", []string{"explore", "--format", "yaml"}, `unknown --format "yaml"`},
		{"negative lag", []string{"explore", "--lag", "-1s"}, "--lag must not be negative"},
		{"bad seed", []string{"explore", "--seed", "x"}, `invalid value "x" for flag --seed`},
		{"no key", []string{"explore", "--base-url", "http://127.0.0.1:1/v1"}, "want an API key"},
		{"unreachable", []string{"explore", "--base-url", "http://127.0.0.1:1/v1", "--api-key", "k", "--steps", "5"}, "target unreachable"},
		{"key refused", []string{"explore", "--base-url", openReference(t, false), "--api-key", "not-the-key", "--steps", "5"}, "refused the API key"},
		{"replay without file", []string{"replay"}, "want a replay FILE"},
		{"replay missing file", []string{"replay", "/nonexistent.json"}, "no such file"},
		{"replay bad replays", []string{"replay", "x.json", "--replays", "0"}, "--replays must be at least 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runMain(t, nil, tt.args...)
			assert.Equal(t, 2, code, out)
			assert.Contains(t, errOut, tt.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
			assert.NotRegexp(t, doubledPrefix, errOut)
		})
	}
}

// doubledPrefix is a line that says its command's prefix twice, or another package's after it
// ("conformance explore: explore: target unreachable").
var doubledPrefix = regexp.MustCompile(`conformance (explore|replay): (conformance |explore: |replay: )`)

// The help of explore and replay names each flag's value with a placeholder of its own (KEY,
// D, N, FILE), never a generic word or a word of the sentence.
func TestExploreHelpPlaceholders(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  --([a-z-]+)(?: (\S+))?$`)
	for _, cmd := range []string{"explore", "replay"} {
		code, out, _ := runMain(t, nil, cmd, "--help")
		require.Equal(t, 0, code)
		lines := flagLine.FindAllStringSubmatch(out, -1)
		require.NotEmpty(t, lines, out)
		for _, m := range lines {
			if m[2] != "" {
				assert.Regexp(t, `^[A-Z]+$`, m[2], "%s --%s", cmd, m[1])
			}
		}
	}
	_, out, _ := runMain(t, nil, "explore", "--help")
	for _, want := range []string{"--api-key KEY\n", "--duration D\n", "--lag D\n", "--shrink-time D\n", "--timeout D\n", "--seed S\n", "--workers W\n", "--format FORMAT\n"} {
		assert.Contains(t, out, "\n  "+want)
	}
}

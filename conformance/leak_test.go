package conformance_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/explore"
	"github.com/petstore/petstore/conformance/mutants/kit"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/spec"
)

// keyMaterial is every form of testKey a report must not hold.
func keyMaterial() []string { return keyMaterialOf(testKey) }

// keyMaterialOf is every form of key a report must not hold: the key, its base64 (alone and
// as Basic credentials), its URL encodings, and the near-key variants the harness sends.
func keyMaterialOf(key string) []string {
	var out []string
	for _, s := range []string{key, key + ":"} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			out = append(out, enc.EncodeToString([]byte(s)))
		}
	}
	b64 := base64.StdEncoding.EncodeToString([]byte("user:" + key))
	return append(out, key, url.QueryEscape(key), url.PathEscape(key), strings.ToUpper(key), key[:len(key)-1],
		b64[8:len(b64)-4], strings.ReplaceAll(key, "/", `\/`))
}

// assertNoKey writes rep in every format and looks for any form of the key.
func assertNoKey(t *testing.T, rep *conformance.Report) {
	t.Helper()
	for name, write := range conformance.Formats {
		var out bytes.Buffer
		require.NoError(t, write(&out, rep), name)
		for _, m := range keyMaterial() {
			assert.NotContains(t, out.String(), m, "%s report", name)
		}
	}
}

// acceptBasicEchoing lets in HTTP Basic credentials with the key as user name (so the auth
// basic rules fail and keep their exchanges) and echoes every Authorization value it gets
// in a response header and in the body of errors.
func acceptBasicEchoing(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := r.Header.Get("Authorization")
		w.Header().Set("X-Seen-Authorization", seen)
		if user, _, ok := r.BasicAuth(); ok {
			r.Header.Set("Authorization", "Bearer "+user)
		}
		rp := kit.Capture(h, r)
		if rp.Status >= 400 {
			rp.Body = bytes.Replace(rp.Body, []byte(`"message":"`), []byte(`"message":"you sent `+seen+` `), 1)
		}
		rp.Send(w)
	})
}

// Reports hold no form of the key: not the base64 of HTTP Basic, not near-key variants, not
// what a target echoes, in no format.
func TestReportsHoldNoKeyMaterial(t *testing.T) {
	rep := run(t, serve(t, acceptBasicEchoing(newReference(t, beforeSunset, reference.Config{}))),
		conformance.Options{Only: []string{"auth"}})
	res, ok := rep.Result("auth/listPets-basic")
	require.True(t, ok)
	require.Equal(t, conformance.Fail, res.Status)
	require.NotEmpty(t, res.Exchanges)
	ex := res.Exchanges[0]
	assert.Equal(t, []string{"Basic <base64 of $PETSTORE_API_KEY:>"}, ex.Request.Header["Authorization"])
	assert.Contains(t, ex.Curl, `-H "Authorization: Basic $(printf '%s:' "$PETSTORE_API_KEY" | base64)"`)
	assertNoKey(t, rep)
}

// A key too short to replace inside texts leaves bodies alone; headers are replaced whole.
func TestShortKeyDoesNotGarbleReports(t *testing.T) {
	cfg := reference.Config{APIKeys: []string{"1"}}
	h, err := reference.NewServer(cfg)
	require.NoError(t, err)
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/pets/abc") {
			w.WriteHeader(http.StatusInternalServerError) // a failure, so the exchange is kept
			_, _ = w.Write([]byte(`{"code":"x1","message":"10 11","status":500}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	target.APIKey = "1"
	rep := run(t, target, conformance.Options{Only: []string{"getPet/non-integer-id"}})
	res, _ := rep.Result("getPet/non-integer-id")
	require.NotEmpty(t, res.Exchanges)
	assert.Contains(t, res.Exchanges[0].Response.Body, `"message":"10 11"`)
	assert.Equal(t, []string{"Bearer $PETSTORE_API_KEY"}, res.Exchanges[0].Request.Header["Authorization"])
}

// The harness follows no redirect: the key never reaches another port, the 3xx is the answer.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		_, _ = w.Write([]byte("secret page of " + r.Header.Get("Authorization")))
	}))
	defer elsewhere.Close()
	ref := newReference(t, beforeSunset, reference.Config{})
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/pets/abc") {
			http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusTemporaryRedirect)
			return
		}
		ref.ServeHTTP(w, r)
	}))
	rep := run(t, target, conformance.Options{Only: []string{"getPet/non-integer-id"}})
	res, _ := rep.Result("getPet/non-integer-id")
	assert.Equal(t, conformance.Fail, res.Status)
	require.NotEmpty(t, res.Exchanges)
	assert.Equal(t, http.StatusTemporaryRedirect, res.Exchanges[0].Response.Status)
	assert.Zero(t, reached.Load(), "the redirect was followed")
}

// Response headers are capped: a huge one is a transport error (an Error result), a long
// one is cut in the report.
func TestResponseHeadersAreCapped(t *testing.T) {
	for _, tt := range []struct {
		size   int
		status conformance.Status
	}{{100 << 10, conformance.Error}, {8 << 10, conformance.Fail}} {
		ref := newReference(t, beforeSunset, reference.Config{})
		target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/pets/abc") {
				w.Header().Set("X-Big", strings.Repeat("b", tt.size))
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			ref.ServeHTTP(w, r)
		}))
		rep := run(t, target, conformance.Options{Only: []string{"getPet/non-integer-id"}})
		res, _ := rep.Result("getPet/non-integer-id")
		assert.Equal(t, tt.status, res.Status, "header of %d bytes", tt.size)
		require.NotEmpty(t, res.Exchanges)
		if resp := res.Exchanges[0].Response; resp != nil {
			assert.Less(t, len(resp.Header.Get("X-Big")), 2<<10)
		} else {
			assert.Contains(t, res.Exchanges[0].Error, "header")
		}
	}
}

// A password in the base URL shows in no report.
func TestBaseURLPasswordIsRedacted(t *testing.T) {
	target := serve(t, newReference(t, beforeSunset, reference.Config{}))
	u, err := url.Parse(target.BaseURL)
	require.NoError(t, err)
	u.User = url.UserPassword("me", "hunter2-secret")
	target.BaseURL = u.String()
	rep := run(t, target, conformance.Options{Only: []string{"getPet/non-integer-id"}})
	assert.NotContains(t, rep.Target, "hunter2-secret")
	var out bytes.Buffer
	require.NoError(t, conformance.WriteText(&out, rep))
	assert.NotContains(t, out.String(), "hunter2-secret")
}

// exploreKey and exploreAdminKey hold characters that URL encoding changes, so that the
// URL-encoded forms of the key differ from the key.
const (
	exploreKey      = "explore+leak/key=6f1c"
	exploreAdminKey = "explore+admin/key=91d4"
)

// echoEveryForm answers every listing 500 with what it was sent in every form (the
// Authorization value as it came, its token in base64 and URL-encoded), in the body and in
// a response header: explore finds, shrinks and replays a finding whose messages, trace and
// curl lines all pass through what the target echoed.
func echoEveryForm(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := r.Header.Get("Authorization")
		_, token, _ := strings.Cut(seen, " ")
		echo := seen + " " + base64.StdEncoding.EncodeToString([]byte(token)) + " " + url.QueryEscape(token) + " " + r.URL.String() +
			" " + base64.StdEncoding.EncodeToString([]byte("user:"+token)) + " " + strings.ToUpper(token) + " " + strings.ReplaceAll(token, "/", `\/`)
		w.Header().Set("X-Seen-Authorization", echo)
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/pets") && token != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = fmt.Fprintf(w, `{"code":"internal","message":%q,"status":500}`, "you sent "+echo)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Explore's reports (text and JSON), its replay file and the reports of conformance replay
// hold no form of the API key or of the admin key, whatever the target echoes.
func TestExploreReportsAndReplayFilesHoldNoKeyMaterial(t *testing.T) {
	ref, err := reference.NewServer(reference.Config{APIKeys: []string{exploreKey}, AdminKey: exploreAdminKey,
		Now: func() time.Time { return beforeSunset }})
	require.NoError(t, err)
	target := serve(t, echoEveryForm(ref))
	target.APIKey = exploreKey
	doc := spec.MustLoad()
	flags := []string{"--api-key=" + exploreKey, "--seed=3"}
	rep, err := explore.Run(context.Background(), explore.Config{Target: target, Doc: doc, Now: beforeSunset, Seed: 3, Workers: 1,
		Steps: 200, MaxCreates: 50, Lag: time.Second, Replays: 2, ShrinkTime: 2 * time.Second, AdminKey: exploreAdminKey,
		Provenance: explore.NewProvenance("sha", 3, flags, exploreKey)})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings, "the echoing target must give a finding, so that the reports hold a trace")
	require.NotEmpty(t, rep.Findings[0].Trace)
	require.NotNil(t, rep.Findings[0].FreshStore, "the fresh-store check, with the admin key, was made")

	dir := t.TempDir()
	file := filepath.Join(dir, "explore-replay.json")
	require.NoError(t, explore.WriteReplayFile(file, explore.NewReplayFile(rep, rep.Findings[0])))
	rf, err := explore.ReadReplayFile(file)
	require.NoError(t, err)
	rr, err := explore.Replay(context.Background(), explore.ReplayConfig{Target: target, Doc: doc, Times: 1, MaxCreates: 50,
		Provenance: explore.NewProvenance("sha", 3, flags, exploreKey)}, rf)
	require.NoError(t, err)
	require.NotEmpty(t, rr.Trace)

	var text, js, replayText, replayJSON bytes.Buffer
	require.NoError(t, explore.WriteText(&text, rep))
	require.NoError(t, explore.WriteJSON(&js, rep))
	require.NoError(t, explore.WriteReplayText(&replayText, rr))
	require.NoError(t, json.NewEncoder(&replayJSON).Encode(rr))
	replayFile, err := os.ReadFile(file)
	require.NoError(t, err)
	outputs := map[string]string{"explore text": text.String(), "explore JSON": js.String(), "replay file": string(replayFile),
		"replay text": replayText.String(), "replay JSON": replayJSON.String(),
		"replay command": explore.ReplayCommand(file, rep)}
	for name, out := range outputs {
		for _, m := range append(keyMaterialOf(exploreKey), keyMaterialOf(exploreAdminKey)...) {
			assert.NotContains(t, out, m, "%s", name)
		}
	}
	assert.Contains(t, text.String(), `"Authorization: Bearer $PETSTORE_API_KEY"`, "the curl lines read the key from the environment")
	assert.Contains(t, text.String(), "you sent Bearer $PETSTORE_API_KEY", "the echoed key is replaced, not the finding left out")
}

// The key offered elsewhere (a query parameter, a cookie, another header field) is redacted
// there too, and the curl lines read it from the environment.
func TestKeyElsewhereIsRedacted(t *testing.T) {
	anywhere := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, _ := r.Cookie("api_key")
			if r.URL.Query().Get("api_key") == testKey || r.Header.Get("X-API-Key") == testKey || c != nil && c.Value == testKey {
				r.Header.Set("Authorization", "Bearer "+testKey)
			}
			h.ServeHTTP(w, r)
		})
	}
	rep := run(t, serve(t, anywhere(newReference(t, beforeSunset, reference.Config{}))),
		conformance.Options{Only: []string{"listPets/cases-auth"}})
	res, _ := rep.Result("listPets/cases-auth")
	require.Equal(t, conformance.Fail, res.Status)
	var curls []string
	for _, ex := range res.Exchanges {
		curls = append(curls, ex.Curl)
	}
	all := strings.Join(curls, "\n")
	assert.Contains(t, all, `api_key=$PETSTORE_API_KEY`)
	assert.Contains(t, all, `Cookie: api_key=$PETSTORE_API_KEY`)
	assert.Contains(t, all, `X-Api-Key: $PETSTORE_API_KEY`) // Go writes header names canonically
	assertNoKey(t, rep)
}

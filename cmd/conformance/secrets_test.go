package main

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// leakForms are the forms in which a secret must not appear in any output: as it is, upper-
// and lower-cased, URL-escaped, and base64 (std and url alphabets, padded or not) of the
// value, of "value:" and of ":value".
func leakForms(v string) map[string]string {
	forms := map[string]string{"raw": v, "upper": strings.ToUpper(v), "lower": strings.ToLower(v),
		"query-escaped": url.QueryEscape(v), "path-escaped": url.PathEscape(v)}
	for name, enc := range map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding,
		"rawstd": base64.RawStdEncoding, "rawurl": base64.RawURLEncoding} {
		for _, raw := range []string{v, v + ":", ":" + v} {
			forms["base64-"+name+"("+raw+")"] = enc.EncodeToString([]byte(raw))
		}
	}
	return forms
}

// leaks counts, per secret, the occurrences of its forms in every output, and says where.
func leaks(secrets map[string]string, outputs map[string]string) (map[string]int, []string) {
	counts := map[string]int{}
	var where []string
	for name, v := range secrets {
		counts[name] = 0
		seen := map[string]bool{}
		for form, f := range leakForms(v) {
			if seen[f] {
				continue
			}
			seen[f] = true
			for out, text := range outputs {
				if n := strings.Count(text, f); n > 0 {
					counts[name] += n
					i := strings.Index(text, f)
					where = append(where, fmt.Sprintf("%s (%s, %q) %d times in %s, first at: %q", name, form, f, n, out,
						text[max(0, i-60):min(len(text), i+len(f)+20)]))
				}
			}
		}
	}
	sort.Strings(where)
	return counts, where
}

// gatewayReference serves the reference behind a front that wants the gateway header and the
// query code (the header unchecked when it is empty), and drops both before the reference sees them; a
// request without a key gets one, so that the run fails rules and reports their exchanges; getFails answers 500 to
// every getPet, so that explore finds something and writes a replay file.
func gatewayReference(t *testing.T, key, admin, header, code string, getFails bool) *httptest.Server {
	h, err := reference.NewServer(reference.Config{APIKeys: []string{key}, AdminKey: admin})
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if header != "" && r.Header.Get("X-Gateway") != header || q.Get("code") != code {
			http.Error(w, "gateway: no code", http.StatusForbidden)
			return
		}
		r.Header.Del("X-Gateway")
		q.Del("code")
		r.URL.RawQuery = q.Encode()
		r.RequestURI = r.URL.RequestURI()
		if _, pass, ok := r.BasicAuth(); r.Header.Get("Authorization") == "" || ok && pass != "" { // none, or the URL's userinfo
			r.Header.Set("Authorization", "Bearer "+key) // the auth rules fail, with their exchanges
		}
		if getFails && r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/pets/") {
			http.Error(w, "broken", http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestNoSecretInAnyOutput: a run given a key, a -H secret and a base URL with userinfo and a
// query key, and an exploration given an admin key too, write none of them, in any form, in
// any report, stream or file.
func TestNoSecretInAnyOutput(t *testing.T) {
	// Each short secret holds a ~, which the run's random names ("conformance-tduy8d") never
	// do: "Uy8" alone was found in one of them, by chance, as a secret.
	for _, key := range []string{"Q~z7", "Lk9vWq2xTz8mNp4rB6"} {
		t.Run(fmt.Sprintf("key of %d characters", len(key)), func(t *testing.T) {
			secrets := map[string]string{"key": key, "admin key": "J~d5", "header": "G~w4x", "user": "U~y8", "password": "P~f6w", "query": "C~v3q"}
			srv := gatewayReference(t, key, secrets["admin key"], secrets["header"], secrets["query"], false)
			u, _ := url.Parse(srv.URL)
			base := fmt.Sprintf("http://%s:%s@%s/v1?code=%s", secrets["user"], secrets["password"], u.Host, secrets["query"])
			dir := t.TempDir()
			outputs := map[string]string{}
			args := []string{"run", "--base-url", base, "--api-key", key, "-H", "X-Gateway: " + secrets["header"]}
			for format := range conformance.Formats { // every format a run writes, those added later too
				args = append(args, "--report", format+"="+filepath.Join(dir, "report."+format))
			}
			code, out, errOut := runMain(t, nil, args...)
			assert.Equal(t, 1, code, errOut)
			outputs["run stdout"], outputs["run stderr"] = out, errOut
			require.Subset(t, slices.Collect(maps.Keys(conformance.Formats)), []string{"text", "json", "junit", "html", "markdown"})
			for format := range conformance.Formats {
				data, err := os.ReadFile(filepath.Join(dir, "report."+format))
				require.NoError(t, err)
				outputs["run report."+format] = string(data)
			}
			require.Contains(t, outputs["run report.json"], `"curl"`, "the reports hold curl lines")
			assert.Contains(t, out, `-H "X-Gateway: $PETSTORE_HEADER_1"`, "curl lines read the header from the environment")
			assert.Contains(t, out, `"http://$PETSTORE_URL_USER:$PETSTORE_URL_PASSWORD@`+u.Host+`/v1/pets?code=$PETSTORE_QUERY_1`)
			assert.Contains(t, errOut, "export PETSTORE_API_KEY (the API key), PETSTORE_HEADER_1 (the value of the header X-Gateway), "+
				"PETSTORE_URL_USER (the user of the base URL), PETSTORE_URL_PASSWORD (the password of the base URL), "+
				"PETSTORE_QUERY_1 (the value of code= in the base URL's query)\n")

			// An exploration with the admin key, against a front whose getPet fails: a finding,
			// shrunk, replayed after a reset, written to a replay file.
			srv2 := gatewayReference(t, key, secrets["admin key"], "", secrets["query"], true) // explore takes no -H
			u2, _ := url.Parse(srv2.URL)
			base2 := fmt.Sprintf("http://%s:%s@%s/v1?code=%s", secrets["user"], secrets["password"], u2.Host, secrets["query"])
			replay := filepath.Join(dir, "replay.json")
			code, out, errOut = runMain(t, map[string]string{"PETSTORE_ADMIN_KEY": secrets["admin key"]}, "explore", "--base-url", base2,
				"--api-key", key, "--admin-key", secrets["admin key"], "--steps", "60", "--shrink-time", "3s", "--replays", "1",
				"--seed", "7", "--replay-file", replay, "--format", "json")
			outputs["explore stdout"], outputs["explore stderr"] = out, errOut
			if data, err := os.ReadFile(replay); err == nil {
				outputs["explore replay file"] = string(data)
			}
			t.Logf("explore exit %d; replay file written: %v", code, outputs["explore replay file"] != "")

			counts, where := leaks(secrets, outputs)
			t.Logf("occurrences per secret: %v", counts)
			for _, w := range where[:min(len(where), 40)] {
				t.Log(w)
			}
			for name, n := range counts {
				assert.Zero(t, n, "%s found in the outputs", name)
			}
		})
	}
}

// A base URL that does not parse is not written back: it cannot be masked, and may hold a
// user, a password or a query key.
func TestMalformedBaseURLNotEchoed(t *testing.T) {
	for _, base := range []string{"http://usr9:Pw7%zz@127.0.0.1:1/v1", "ftp://usr9:Pw7@h/v1?code=Qk4", "http://usr9:Pw7@[::1/v1?code=Qk4", "http://usr9:Pw7@/v1?code=Qk4"} {
		code, out, errOut := runMain(t, nil, "run", "--base-url", base, "--api-key", "Zk2")
		assert.Equal(t, 2, code, base)
		for _, s := range []string{"usr9", "Pw7", "Qk4", "Zk2"} {
			assert.NotContains(t, out+errOut, s, base)
		}
	}
}

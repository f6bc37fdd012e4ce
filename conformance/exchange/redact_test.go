package exchange

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/secret"
)

// expand has a POSIX shell expand word, as a curl line's argument, with $PETSTORE_API_KEY set.
func expand(t *testing.T, key, word string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", "printf %s "+word)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "PETSTORE_API_KEY=" + key}
	out, err := cmd.Output()
	require.NoError(t, err, word)
	return string(out)
}

// Every Authorization value the harness may send goes into the curl line in a form that sends
// it again once $PETSTORE_API_KEY is set, and into the report without the key: a form of the
// key is rebuilt from the variable, a made-up token that holds a short key by chance is
// written as it is.
func TestAuthorizationCurlRunsAsPrinted(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the curl words")
	}
	const long = "conformance-test-key-6f1c"
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tt := range []struct {
		key, value, shown string
	}{
		{long, "Bearer " + long, "Bearer $PETSTORE_API_KEY"},
		{long, report.CredCaseFlipped.Value(long), report.CredCaseFlipped.Shown},
		{long, "Bearer conformance-wrong-key", "Bearer conformance-wrong-key"},
		{long, "ApiKey " + long + "-and-more", "ApiKey $PETSTORE_API_KEY-and-more"},
		{long, "ApiKey " + long + "x", "ApiKey $PETSTORE_API_KEYx"},
		{"Mixed-Key-42ab", "Bearer MIXED-KEY-42AB", "Bearer <the API key in upper case>"},
		{"Mixed-Key-42ab", "Bearer mixed-key-42ab", "Bearer <the API key in lower case>"},
		{long, "Token " + b64(long), "Token <base64 of the API key>"},
		{long, "Basic " + b64(long+":"), report.CredBasic.Shown},
		// A short key is masked where it stands as a token, in any case, even in a value made up.
		{"KEY", "Bearer conformance-wrong-key", "Bearer conformance-wrong-<the API key in lower case>"},
		{"KEY", "Bearer conformance-wrong!key", "Bearer conformance-wrong!<the API key in lower case>"},
		{"Qz7", "Bearer conformance-Qz7x", "Bearer conformance-Qz7x"},
		{"KEY", "Bearer KEY", "Bearer $PETSTORE_API_KEY"},
		{"key", "Bearer conformance-wrong-key", "Bearer conformance-wrong-$PETSTORE_API_KEY"},
		{"123456", "Bearer 123456", "Bearer $PETSTORE_API_KEY"},
		{"123456", "ApiKey 123456", "ApiKey $PETSTORE_API_KEY"},
	} {
		r := newRedactor(tt.key)
		word := r.authCurl(tt.value)
		assert.Equal(t, "Authorization: "+tt.value, expand(t, tt.key, word), "key %q, value %q: %s", tt.key, tt.value, word)
		assert.Equal(t, tt.shown, r.authValue(tt.value), "key %q, value %q", tt.key, tt.value)
		if len(tt.key) >= secret.MinTextLen {
			assert.NotContains(t, strings.ToLower(word+r.authValue(tt.value)), strings.ToLower(tt.key))
		}
	}

	// Key material the harness can neither describe nor rebuild stays hidden.
	r := newRedactor(long)
	for _, v := range []string{"Basic " + b64("user:"+long), "Bearer Conformance-Test-Key-6F1C"} {
		assert.Equal(t, redactedAuth, r.authValue(v))
		assert.NotContains(t, strings.ToLower(r.authCurl(v)), strings.ToLower(long))
	}
}

// The key variable is expanded as itself even where a letter, digit or underscore follows it.
func TestShellQuoteKeyBeforeANameCharacter(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the curl words")
	}
	for _, s := range []string{"a=$PETSTORE_API_KEY", "a=$PETSTORE_API_KEYx", "$PETSTORE_API_KEY_1 $PETSTORE_API_KEY9", "it's \"$PETSTORE_API_KEY\" `x` $HOME \\"} {
		assert.Equal(t, strings.ReplaceAll(s, report.KeyPlaceholder, "k3y"), expand(t, "k3y", shellQuote(s)), shellQuote(s))
	}
	assert.Equal(t, `'no key, it'\''s quoted'`, shellQuote("no key, it's quoted"))
}

// A key a target echoes is hidden in every form it may take in a body: JSON-escaped (as
// encoding/json writes it, < > & escaped, / as \/), inside the base64 of "user:KEY" at any
// alignment, and in another letter case.
func TestRedactKeyForms(t *testing.T) {
	const key = "pk&<9>+/%Zq-longer"
	r := newRedactor(key)
	for _, user := range []string{"", "u", "us", "user", "admin"} {
		b64 := base64.StdEncoding.EncodeToString([]byte(user + ":" + key))
		got := r.text("basic=" + b64)
		assert.NotContains(t, got, b64[len(b64)-8:], "base64 of %q: %s", user+":"+key, got)
		assert.Contains(t, got, "<base64 of the API key", user)
	}
	for _, echoed := range []string{
		`{"message":"bad token pk\u0026\u003c9\u003e+/%Zq-longer"}`,
		`{"message":"bad token pk&<9>+\/%Zq-longer"}`,
		`token PK&<9>+/%ZQ-LONGER`,
		`token pk&<9>+/%zq-longer`,
	} {
		got := r.text(echoed)
		assert.Contains(t, got, report.KeyPlaceholder, echoed)
		assert.NotContains(t, strings.ToLower(got), "9>+", echoed)
		assert.NotContains(t, got, `\u003c9\u003e`, echoed)
	}
	assert.Equal(t, "nothing to hide here", r.text("nothing to hide here"))
}

// A curl line of a run given secrets besides the key (a -H value, the base URL's userinfo
// and query value) holds none of them, names each as its variable, and sends them again
// once the variables are exported.
func TestCurlReadsEverySecretFromTheEnvironment(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the curl line")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	base := "http://Uy8:Pf6w@" + u.Host + "/v1?code=Cv3q"
	s, err := New(Config{BaseURL: base, APIKey: "Qz7", Facts: facts(t), Headers: http.Header{"X-Gateway": {"Gw4x"}}})
	require.NoError(t, err)
	rec := NewRecorder(s.Redact)
	req, err := http.NewRequest(http.MethodGet, "http://Uy8:Pf6w@"+u.Host+"/v1/pets?limit=3", nil) // as the rules build it
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer Qz7")
	_, _, err = s.DoRead(rec, false, req)
	require.NoError(t, err)
	_, exchanges := rec.Results()
	require.Len(t, exchanges, 1)
	line := exchanges[0].Curl
	for _, v := range []string{"Qz7", "Gw4x", "Uy8", "Pf6w", "Cv3q"} {
		assert.NotContains(t, line, v)
	}
	assert.Contains(t, line, `-H "X-Gateway: $PETSTORE_HEADER_1"`)
	assert.Equal(t, "http://$PETSTORE_URL_USER:$PETSTORE_URL_PASSWORD@"+u.Host+"/v1/pets?code=$PETSTORE_QUERY_1&limit=3", exchanges[0].Request.URL)

	cmd := exec.Command("sh", "-c", `curl() { for a; do printf '%s\n' "$a"; done; }; `+line)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "PETSTORE_API_KEY=Qz7", "PETSTORE_HEADER_1=Gw4x", "PETSTORE_URL_USER=Uy8",
		"PETSTORE_URL_PASSWORD=Pf6w", "PETSTORE_QUERY_1=Cv3q"}
	out, err := cmd.Output()
	require.NoError(t, err, line)
	args := strings.Split(strings.TrimSpace(string(out)), "\n")
	assert.Contains(t, args, "Authorization: Bearer Qz7")
	assert.Contains(t, args, "X-Gateway: Gw4x")
	assert.Contains(t, args, "http://Uy8:Pf6w@"+u.Host+"/v1/pets?code=Cv3q&limit=3")
}

// A query value the user wrote percent-encoded in its own way (%2B and %20, as JavaScript's
// encodeURIComponent writes them) is masked as written and decoded, and the curl line's
// variable holds it as written, so that the URL it makes is the one given.
func TestQueryValueMaskedAsWritten(t *testing.T) {
	base := "http://127.0.0.1:9/v1?tok=Q%2BSECRET%20v"
	s, err := New(Config{BaseURL: base, APIKey: "Lk9vWq2xTz8mNp4rB6", Facts: facts(t)})
	require.NoError(t, err)
	for _, text := range []string{"target " + base, "--base-url=" + base, `{"target":"` + base + `"}`, "the value Q+SECRET v"} {
		got := s.Redact(text)
		assert.NotContains(t, got, "SECRET", text)
	}
	vars := Secrets{BaseURL: base}.Vars()
	require.Len(t, vars, 1)
	assert.Equal(t, "Q%2BSECRET%20v", vars[0].Value)
	assert.Equal(t, "the value of tok= in the base URL's query, percent-encoded as written there", vars[0].What)
}

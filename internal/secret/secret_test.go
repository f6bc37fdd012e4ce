package secret

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLongSecretMaskedInEveryFormInText(t *testing.T) {
	const v = "Lk9v/Wq2&Tz8"
	m := New(Secret{Value: v, Placeholder: "<K>", Base64: "<B>", Base64Colon: "<C>"})
	for _, f := range Forms(v) {
		got := m.Text("before " + f + " after")
		assert.NotContains(t, got, f, "form %q", f)
	}
	assert.Equal(t, "a <K> b <K> c <K>", m.Text("a "+v+" b "+strings.ToUpper(v)+" c "+strings.ToLower(v)))
	assert.Equal(t, "Basic <C>", m.Text("Basic "+base64.StdEncoding.EncodeToString([]byte(v+":"))))
	assert.Equal(t, "<B>", m.Text(base64.RawURLEncoding.EncodeToString([]byte(v))))
	// Inside the base64 of a longer text (user:secret), at each alignment.
	for _, user := range []string{"u", "us", "usr"} {
		b := base64.StdEncoding.EncodeToString([]byte(user + ":" + v + ":tail"))
		assert.Contains(t, m.Text(b), "<B>", "after %q", user)
	}
}

func TestShortSecretMaskedAsAValueLeftInText(t *testing.T) {
	m := New(Secret{Value: "Qz7", Placeholder: "$K"})
	assert.Equal(t, "Bearer $K", m.Value("Bearer Qz7"))
	assert.Equal(t, "Bearer $K", m.Value("Bearer QZ7"), "any letter case")
	assert.Equal(t, "a=$K; b=1", m.Value("a=Qz7; b=1"))
	assert.Equal(t, "Basic $K", m.Value("Basic "+base64.StdEncoding.EncodeToString([]byte("Qz7:"))))
	assert.Equal(t, "xQz7 Qz7x", m.Value("xQz7 Qz7x"), "only where it stands as a token")
	assert.Equal(t, "the id Qz7 of", m.Text("the id Qz7 of"), "free text keeps a short secret")
	assert.True(t, m.Holds("Token "+base64.StdEncoding.EncodeToString([]byte("me:Qz7"))))
	assert.False(t, m.Holds("Bearer nothing"))
	assert.Equal(t, "limit=5&code=$K&x", m.Query("limit=5&code=Qz7&x"))
}

func TestURL(t *testing.T) {
	m := New(Secret{Value: "Us6", Placeholder: "$U"}, Secret{Value: "Cv3", Placeholder: "$Q"}, Secret{Value: "Pw8", Placeholder: "$P"})
	u, _ := url.Parse("http://Us6:Pw8@h:1/v1/pets?code=Cv3&limit=2")
	assert.Equal(t, "http://$U:$P@h:1/v1/pets?code=$Q&limit=2", m.URL(u))
	u, _ = url.Parse("http://me:other@h/v1")
	assert.Equal(t, "http://me:xxxxx@h/v1", m.URL(u), "a password not given is written as Redacted does")
	var none *Masker
	assert.Equal(t, "Qz7", none.Value("Qz7"))
	assert.Equal(t, "Qz7", New().Text("Qz7"))
}

func TestWithAndFirstPlaceholderWins(t *testing.T) {
	m := New(Secret{Value: "abcdefgh", Placeholder: "<1>"}, Secret{Value: "abcdefgh", Placeholder: "<2>"}, Secret{})
	assert.Len(t, m.Secrets(), 1)
	m = m.With(Secret{Value: "Jd5", Placeholder: "<A>"})
	assert.Equal(t, "<1> <A>", m.Value("abcdefgh Jd5"))
}

func TestShortSecretMaskedWhereTextShowsItAsAValue(t *testing.T) {
	m := New(Secret{Value: "Us6", Placeholder: "$U"}, Secret{Value: "Cv3", Placeholder: "$Q"})
	assert.Equal(t, `Get "http://$U:***@h/v1/pets?code=$Q&limit=2": EOF`, m.Text(`Get "http://Us6:***@h/v1/pets?code=Cv3&limit=2": EOF`))
	assert.Equal(t, "Us6 and Cv3 in prose, a=Cv3x", m.Text("Us6 and Cv3 in prose, a=Cv3x"))
}

// A text or a query that holds no secret is returned as it is, without allocating: the
// double's access log masks the query of every request.
func TestNothingMaskedAllocatesNothing(t *testing.T) {
	m := New(Secret{Value: "a-long-key-93b2", Placeholder: "<K>"}, Secret{Value: "Qz7", Placeholder: "<S>"})
	for _, s := range []string{"limit=5&status=sold", "a body without a key, id=12"} {
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = m.Query(s); _ = m.Text(s) }), s)
	}
}

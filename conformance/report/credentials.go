package report

import (
	"encoding/base64"
	"strings"
	"unicode"
)

// Credentials: the forms of the API key the harness sends in an Authorization header, how
// reports show each, and how a curl line rebuilds it; the key itself is never written.

// Credential is an Authorization value derived from the key: how it is built, how reports
// show it and how a curl line rebuilds it from $PETSTORE_API_KEY (inside double quotes).
type Credential struct {
	// Value builds the header value from the key.
	Value func(key string) string
	// Shown is how reports write it.
	Shown string
	// Curl rebuilds it in a curl line from $PETSTORE_API_KEY (inside double quotes).
	Curl func(key string) string
}

func fixedCurl(s string) func(string) string { return func(string) string { return s } }

// The credentials the harness sends. Each near-key form differs from the key in one way a
// sloppy comparison ignores (a prefix match, a case-insensitive one).
var (
	CredBearer = Credential{func(k string) string { return "Bearer " + k },
		"Bearer " + KeyPlaceholder, fixedCurl("Bearer " + KeyPlaceholder)}
	CredBearerLower = Credential{func(k string) string { return "bearer " + k },
		"bearer " + KeyPlaceholder, fixedCurl("bearer " + KeyPlaceholder)}
	CredBearerUpper = Credential{func(k string) string { return "BEARER " + k },
		"BEARER " + KeyPlaceholder, fixedCurl("BEARER " + KeyPlaceholder)}
	CredToken = Credential{func(k string) string { return "Token " + k },
		"Token " + KeyPlaceholder, fixedCurl("Token " + KeyPlaceholder)}
	CredBasic = Credential{func(k string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(k+":")) },
		"Basic <base64 of " + KeyPlaceholder + ":>", fixedCurl(`Basic $(printf '%s:' "` + KeyPlaceholder + `" | base64)`)}
	CredAppended = Credential{func(k string) string { return "Bearer " + k + "x" },
		"Bearer <" + KeyPlaceholder + " followed by x>", fixedCurl("Bearer ${PETSTORE_API_KEY}x")}
	CredLastChanged = Credential{func(k string) string { return "Bearer " + lastChanged(k) },
		"Bearer <" + KeyPlaceholder + " with its last character changed>",
		func(k string) string { return "Bearer ${PETSTORE_API_KEY%?}" + lastChanged(k)[len(k)-1:] }}
	CredCaseFlipped = Credential{func(k string) string { return "Bearer " + flipCase(k) },
		"Bearer <" + KeyPlaceholder + " with its case flipped>",
		fixedCurl(`Bearer $(printf %s "` + KeyPlaceholder + `" | tr a-zA-Z A-Za-z)`)}
)

// Forms the generated auth cases send.
var (
	CredJunkAfter = Credential{func(k string) string { return "Bearer " + k + " junk" },
		"Bearer " + KeyPlaceholder + " junk", fixedCurl("Bearer " + KeyPlaceholder + " junk")}
	CredDoubleSpace = Credential{func(k string) string { return "Bearer  " + k },
		"Bearer  " + KeyPlaceholder, fixedCurl("Bearer  " + KeyPlaceholder)}
	CredQuoted = Credential{func(k string) string { return `Bearer "` + k + `"` },
		`Bearer "` + KeyPlaceholder + `"`, fixedCurl(`Bearer \"` + KeyPlaceholder + `\"`)}
	CredKeyAlone = Credential{func(k string) string { return k },
		KeyPlaceholder, fixedCurl(KeyPlaceholder)}
)

// Credentials are every form above: the redactor recognises each in a report.
var Credentials = []Credential{CredBearer, CredBearerLower, CredBearerUpper, CredToken, CredBasic, CredJunkAfter, CredDoubleSpace, CredQuoted, CredKeyAlone,
	CredAppended, CredLastChanged, CredCaseFlipped}

// lastChanged is key with its last byte replaced by another letter.
func lastChanged(key string) string {
	if key == "" {
		return "x"
	}
	c := byte('x')
	if key[len(key)-1] == 'x' {
		c = 'y'
	}
	return key[:len(key)-1] + string(c)
}

// flipCase swaps upper and lower case letters.
func flipCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

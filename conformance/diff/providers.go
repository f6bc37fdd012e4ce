package diff

import (
	"regexp"
	"strings"
)

// Who a change breaks. Clients are oasdiff's verdict (Change.Breaking). Providers are
// deployments that conform to the base spec: a change breaks them when such a deployment,
// unchanged, fails the catalogue built from the head spec. That follows from the kind of
// the change: a narrowed request bound breaks a deployment that still accepts the old
// values (limit=100 answered with 100 animals where the maximum is now 50), a new required
// field one that accepts requests without it, a new operation every deployment that lacks
// it.

// providers is what a kind does to deployments conforming to the base: whether they fail
// the head's catalogue, and why, in words that complete "a deployment ...".
var providers = map[string]struct {
	breaks bool
	why    string
}{
	OperationAdded:       {true, "lacks the new operation, so its rules fail (a 404 or 405 where the spec documents answers)"},
	OperationRemoved:     {false, "still serving the operation is not judged on it"},
	ResponseRemoved:      {true, "still answering with the status answers outside the spec"},
	RequiredFieldAdded:   {true, "still accepting requests without the field answers 2xx where the head's cases require 400"},
	RequirementRelaxed:   {true, "still refusing requests without the field answers 400 where the head's cases expect success"},
	OptionalFieldAdded:   {false, "that ignores the new optional input still answers as the document asks"},
	EnumNarrowed:         {true, "still accepting or returning the removed value answers outside the spec"},
	EnumWidened:          {true, "refusing the new value answers 400 where the head's rules and cases expect success"},
	BoundNarrowed:        {true, "still accepting values between the new and the old bound answers them beyond what the head allows (e.g. 100 animals for limit=100 where the maximum is now 50)"},
	BoundWidened:         {true, "refusing values between the old and the new bound answers 400 where the head's rules expect them accepted"},
	DefaultChanged:       {true, "still applying the old default answers beyond or short of what the head's rules expect without the parameter"},
	TypeChanged:          {true, "still reading or writing the old type answers outside the spec"},
	ResponseFieldAdded:   {true, "omitting the now required response field answers outside the spec"},
	ResponseFieldRemoved: {false, "still sending the field sends a property the schema does not forbid"},
	DeprecationAdded:     {false, "without Deprecation and Sunset headers fails SHOULD rules only (warnings)"},
	SunsetBroughtForward: {false, "still serving the operation fails the versioning rules only on and after the new date"},
	SunsetPostponed:      {false, "is judged on the operation until the new date"},
	SunsetRemoved:        {false, "is judged on the operation as before"},
}

// forProviders fills in c's verdict for providers from its kind; a kind this package does
// not name is not counted as breaking, and says so. A widening of what a response may hold
// breaks no provider: one conforming to the base never sends the new values.
func forProviders(c *Change) {
	p, ok := providers[c.Kind]
	if !ok {
		c.Providers = "not classified for providers: see the rules and families that change"
		return
	}
	if (c.Kind == EnumWidened || c.Kind == BoundWidened) && strings.HasPrefix(c.Check, "response-") {
		p.breaks, p.why = false, "never sends the new values, so its answers stay inside the spec"
	}
	c.BreaksProviders = p.breaks
	c.Providers = "a deployment conforming to the base " + p.why
}

// integral is a number oasdiff prints with two decimals; bounds and defaults of integers
// read better without them.
var integral = regexp.MustCompile("`(-?[0-9]+)\\.0+`")

// integers rewrites `100.00` as `100` in an oasdiff message.
func integers(msg string) string {
	return integral.ReplaceAllString(strings.Join(strings.Fields(msg), " "), "`$1`")
}

package report

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
)

// Provenance is what a report needs to reproduce its run: the harness that made it, the
// description it used, the seed and the command line (the key masked).
type Provenance struct {
	// Harness is the module version and VCS revision of the harness that ran.
	Harness string `json:"harness"`
	// SpecSHA256 is the hex sha256 of the description as read (the file, or the embedded
	// spec/openapi.yaml).
	SpecSHA256 string `json:"specSha256"`
	Seed       uint64 `json:"seed"`
	// Flags are the command line's flags as --name=value, the key masked.
	Flags []string `json:"flags,omitempty"`
}

// NewProvenance is the provenance of a run of the harness version harness with the
// description whose sha256 is specSHA256, the seed, and the flags given as --name=value. The
// key never appears: --api-key's value is masked, and so is the key wherever another value
// holds it (a base URL's query), and a password in a URL.
func NewProvenance(harness, specSHA256 string, seed uint64, flags []string, key string) Provenance {
	masked := make([]string, 0, len(flags))
	for _, f := range flags {
		name, value, _ := strings.Cut(f, "=")
		switch {
		case name == "--api-key":
			value = masks
		case len(key) >= 4:
			value = strings.ReplaceAll(value, key, masks)
		}
		if u, err := url.Parse(value); err == nil && u.User != nil {
			value = u.Redacted()
		}
		masked = append(masked, name+"="+value)
	}
	return Provenance{Harness: harness, SpecSHA256: specSHA256, Seed: seed, Flags: masked}
}

// masks stands for a key in the flags of a provenance.
const masks = "***"

// SpecSHA256 is the hex sha256 of a description as read.
func SpecSHA256(spec []byte) string {
	sum := sha256.Sum256(spec)
	return hex.EncodeToString(sum[:])
}

package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// module is this project's module line: a checkout has it in its go.mod.
const module = "module github.com/petstore/petstore\n"

// Stale says, in one line, when dir lies in a checkout of this project whose
// spec/openapi.yaml differs from the description embedded at build time: a binary built
// before the spec changed, run from the checkout, would otherwise serve or judge the old
// spec without a word. "" when the two agree or dir is in no checkout.
func Stale(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if mod, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(mod, []byte(module)) {
			path := filepath.Join(d, "spec", "openapi.yaml")
			data, err := os.ReadFile(path)
			if err != nil || bytes.Equal(data, embedded) {
				return ""
			}
			return fmt.Sprintf("warning: the spec built into this binary (sha256 %s) differs from %s (sha256 %s): rebuild (make build) or pass --spec",
				shortSum(embedded), path, shortSum(data))
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func shortSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

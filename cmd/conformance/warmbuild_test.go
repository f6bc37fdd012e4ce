package main

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

var warm struct {
	once sync.Once
	out  []byte
	err  error
}

// warmBuildCache compiles both commands as `make build` does (-trimpath, so that the build
// cache serves a clone in any directory), once per test binary. The tests that build the
// module in clones of their own run in parallel; without it, on a cold cache each compiled
// every package of the module at the same time as the others.
func warmBuildCache(t *testing.T) {
	t.Helper()
	warm.once.Do(func() {
		dir, err := os.MkdirTemp("", "warm-build-")
		if err != nil {
			warm.err = err
			return
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("go", "build", "-trimpath", "-o", dir+string(os.PathSeparator), "./cmd/...")
		cmd.Dir = "../.."
		warm.out, warm.err = cmd.CombinedOutput()
	})
	if warm.err != nil {
		t.Fatalf("building the commands: %v\n%s", warm.err, warm.out)
	}
}

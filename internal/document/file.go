package document

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The interface document itself is not part of the repository: it lies beside it
// (../shared/pet-store-interface.md), or where FileEnv names. Tests that check the facts and
// the rules' citations against its text find it with ReadFile.
const (
	// FileEnv names the interface document's file, wherever it is.
	FileEnv = "PETSTORE_INTERFACE_DOC"
	// RequireEnv, set to 1, makes a missing document fail the tests that read it instead of
	// skipping them (.ci/run sets it, so that CI cannot skip them silently).
	RequireEnv = "PETSTORE_REQUIRE_INTERFACE_DOC"
	// besideRoot is where the document lies relative to the module's root.
	besideRoot = "../shared/pet-store-interface.md"
)

// TB is the part of testing.TB that ReadFile uses.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// ReadFile returns the text of the interface document, for a test that checks something
// against it: the file FileEnv names, else ../shared/pet-store-interface.md beside the
// module's root (the directory with go.mod, from the working directory up). Without it the
// test is skipped, saying where to put the document, or fails when RequireEnv is 1. A file
// that FileEnv names and that cannot be read always fails.
func ReadFile(t TB) []byte {
	t.Helper()
	if name := os.Getenv(FileEnv); name != "" {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("the interface document %s names cannot be read: %v", FileEnv, err)
			return nil
		}
		return data
	}
	name, err := besideModule()
	if err != nil {
		t.Fatalf("finding the interface document: %v", err)
		return nil
	}
	data, err := os.ReadFile(name)
	if err == nil {
		return data
	}
	if !errors.Is(err, fs.ErrNotExist) || os.Getenv(RequireEnv) == "1" {
		t.Fatalf("the interface document must lie beside the repository, at %s, or where %s names (%s=1 makes its absence fail): %v",
			name, FileEnv, RequireEnv, err)
		return nil
	}
	t.Skipf("skipped: checks against the interface document, which is not at %s; put pet-store-interface.md there or set %s to its path",
		name, FileEnv)
	return nil
}

// besideModule is where the document lies beside the module's root.
func besideModule() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, filepath.FromSlash(besideRoot)), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

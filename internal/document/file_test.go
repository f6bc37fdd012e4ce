package document_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/internal/document"
)

// recorder is a document.TB that records how a test would have ended.
type recorder struct{ skipped, failed string }

func (r *recorder) Helper()                          {}
func (r *recorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

// Where there is no document beside the module, the tests that read it are skipped and say
// where to put it; under PETSTORE_REQUIRE_INTERFACE_DOC=1 (CI) they fail instead. The file
// PETSTORE_INTERFACE_DOC names is read wherever it is, and fails when it cannot be.
func TestReadFile(t *testing.T) {
	bare := t.TempDir() // a module with nothing beside it
	root := filepath.Join(bare, "petstore")
	sub := filepath.Join(root, "internal", "document")
	assert.NoError(t, os.MkdirAll(sub, 0o755))
	assert.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644))
	t.Chdir(sub)

	t.Setenv(document.FileEnv, "")
	t.Setenv(document.RequireEnv, "")
	var r recorder
	assert.Nil(t, document.ReadFile(&r))
	assert.Empty(t, r.failed)
	assert.Contains(t, r.skipped, filepath.Join(bare, "shared", "pet-store-interface.md"))
	assert.Contains(t, r.skipped, document.FileEnv)

	t.Setenv(document.RequireEnv, "1")
	r = recorder{}
	document.ReadFile(&r)
	assert.Empty(t, r.skipped)
	assert.Contains(t, r.failed, "must lie beside the repository")

	assert.NoError(t, os.Mkdir(filepath.Join(bare, "shared"), 0o755))
	assert.NoError(t, os.WriteFile(filepath.Join(bare, "shared", "pet-store-interface.md"), []byte("beside"), 0o644))
	r = recorder{}
	assert.Equal(t, "beside", string(document.ReadFile(&r)))
	assert.Equal(t, recorder{}, r)

	elsewhere := filepath.Join(t.TempDir(), "doc.md")
	assert.NoError(t, os.WriteFile(elsewhere, []byte("elsewhere"), 0o644))
	t.Setenv(document.FileEnv, elsewhere)
	r = recorder{}
	assert.Equal(t, "elsewhere", string(document.ReadFile(&r)))
	assert.Equal(t, recorder{}, r)

	t.Setenv(document.RequireEnv, "")
	t.Setenv(document.FileEnv, elsewhere+".missing")
	r = recorder{}
	document.ReadFile(&r)
	assert.Empty(t, r.skipped)
	assert.Contains(t, r.failed, document.FileEnv)
}

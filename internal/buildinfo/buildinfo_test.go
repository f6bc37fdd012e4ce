package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	for _, tt := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Path: "github.com/petstore/petstore", Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}}},
			"github.com/petstore/petstore v1.2.3 rev abc123 (2026-01-02T03:04:05Z)"},
		{"modified", debug.BuildInfo{Main: debug.Module{Path: "m", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"m (devel) rev abc (modified)"},
		{"go run", debug.BuildInfo{Main: debug.Module{Path: "m", Version: "(devel)"}},
			"m (devel) (no VCS revision recorded: built by go run or go test, or with -buildvcs=false; make build records it)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, fromBuildInfo(&tt.bi).String())
		})
	}
}

func TestReadInTest(t *testing.T) {
	assert.NotEmpty(t, Read().Version)
}

// What the release tool stamps wins over what the toolchain recorded.
func TestStamped(t *testing.T) {
	bi := debug.BuildInfo{Main: debug.Module{Path: "github.com/petstore/petstore", Version: "(devel)"}}
	i := stamped(fromBuildInfo(&bi), "v1.2.3", "abc123", "2026-01-02T03:04:05Z", "false")
	assert.Equal(t, "github.com/petstore/petstore v1.2.3 rev abc123 (2026-01-02T03:04:05Z)", i.String())
	i = stamped(fromBuildInfo(&bi), "abc1234-dirty", "abc1234", "", "true")
	assert.Equal(t, "github.com/petstore/petstore abc1234-dirty rev abc1234 (modified)", i.String())
	assert.Equal(t, fromBuildInfo(&bi), stamped(fromBuildInfo(&bi), "", "", "", ""))
}

// Package buildinfo reads what the Go toolchain recorded about the running binary (module
// version, VCS revision and time, whether the tree was modified), for --version and for the
// provenance of reports.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is the provenance of the running binary.
type Info struct {
	Path     string `json:"module"`             // main module path
	Version  string `json:"version"`            // module version, "(devel)" for a local build
	Revision string `json:"revision,omitempty"` // VCS revision, "" when not recorded (go run, go test)
	Time     string `json:"time,omitempty"`     // commit time, RFC 3339
	Modified bool   `json:"modified,omitempty"` // the work tree had uncommitted changes
}

// Set by the linker (-ldflags -X) where the release tool builds (make dist, make image): the
// version (the tag, else the short commit), the revision, its time and whether the tree was
// modified. They win over what the toolchain recorded, which a cross-build without VCS
// information (-buildvcs=false, a worktree) lacks.
var (
	stampedVersion  string
	stampedRevision string
	stampedTime     string
	stampedModified string
)

// Read returns the build information of the running binary; fields the toolchain did not
// record are empty (Version is then "unknown").
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	i := Info{Version: "unknown"}
	if ok {
		i = fromBuildInfo(bi)
	}
	return stamped(i, stampedVersion, stampedRevision, stampedTime, stampedModified)
}

// stamped is i with what the linker stamped in its place.
func stamped(i Info, version, revision, time, modified string) Info {
	if version != "" {
		i.Version = version
	}
	if revision != "" {
		i.Revision, i.Time, i.Modified = revision, time, modified == "true"
	}
	return i
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	i := Info{Path: bi.Main.Path, Version: bi.Main.Version}
	if i.Version == "" {
		i.Version = "unknown"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// String is the one line --version prints: "MODULE VERSION rev REVISION (TIME, modified)".
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(i.Path)
	if i.Path != "" {
		b.WriteByte(' ')
	}
	b.WriteString(i.Version)
	if i.Revision == "" {
		b.WriteString(" (no VCS revision recorded: built by go run or go test, or with -buildvcs=false; make build records it)")
		return b.String()
	}
	b.WriteString(" rev " + i.Revision)
	var extra []string
	if i.Time != "" {
		extra = append(extra, i.Time)
	}
	if i.Modified {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	return b.String()
}

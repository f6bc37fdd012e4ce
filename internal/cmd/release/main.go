// Command release builds what a release publishes (docs/release.md). `release dist`
// cross-builds static binaries of cmd/conformance and cmd/petstore for each platform, stamped
// with the version, and writes an archive per platform (tar.gz; zip for windows) and
// SHA256SUMS into dist/; then it unpacks the archive of the machine's own platform and checks
// that both commands print that version. `release image` builds the container image of both
// commands for linux, as an OCI image layout and docker-load tarballs (docs/container.md),
// without a Docker engine. The Makefile runs it (make dist, make image); it is no part of
// either command.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// platforms are the GOOS/GOARCH pairs of a release.
var platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// commands are the module's commands a release holds.
var commands = []string{"conformance", "petstore"}

const usage = `usage: release dist [-out DIR] [-version V] [-platforms LIST]
       release image [-out DIR] [-version V] [-platforms LIST] [-ca-certs FILE]`

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("release "+args[0], flag.ContinueOnError)
	out := fs.String("out", "dist", "the directory to write into")
	version := fs.String("version", "", "the version to stamp (default: the tag of HEAD, else its short commit, -dirty when the tree is modified)")
	plats := fs.String("platforms", "", "comma-separated GOOS/GOARCH pairs (default: every platform of the command)")
	root := fs.String("root", ".", "the module's root")
	caCerts := fs.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "the CA certificates the image carries (image)")
	fs.SetOutput(stdout)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	st, err := readStamp(ctx, *root, *version)
	if err != nil {
		return err
	}
	b := builder{root: *root, stamp: st, log: stdout}
	switch args[0] {
	case "dist":
		list := platforms
		if *plats != "" {
			list = strings.Split(*plats, ",")
		}
		return b.dist(ctx, *out, list)
	case "image":
		list := imagePlatforms
		if *plats != "" {
			list = strings.Split(*plats, ",")
		}
		return b.image(ctx, *out, list, *caCerts)
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}

// stamp is what a build records of the tree it was built from.
type stamp struct {
	Version  string // the tag, else the short commit; "-dirty" when modified
	Revision string // the full commit
	Time     string // the commit's time, RFC 3339 in UTC
	Modified bool   // tracked files differ from the commit
}

// readStamp reads the stamp of the tree at root with git; version, when given, replaces the
// version read.
func readStamp(ctx context.Context, root, version string) (stamp, error) {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return strings.TrimSpace(string(out)), nil
	}
	var st stamp
	var err error
	if st.Revision, err = git("rev-parse", "HEAD"); err != nil {
		return st, fmt.Errorf("the version is read from git (give -version otherwise): %w", err)
	}
	if st.Time, err = git("log", "-1", "--date=format-local:%Y-%m-%dT%H:%M:%SZ", "--format=%cd"); err != nil {
		return st, err
	}
	status, err := git("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return st, err
	}
	st.Modified = status != ""
	st.Version = version
	if st.Version == "" {
		if st.Version, err = git("describe", "--tags", "--exact-match"); err != nil {
			st.Version = st.Revision[:7]
		}
		if st.Modified {
			st.Version += "-dirty"
		}
	}
	return st, nil
}

// ldflags stamp the binaries (internal/buildinfo) and drop the symbol table and DWARF.
func (st stamp) ldflags() string {
	const pkg = "github.com/petstore/petstore/internal/buildinfo."
	return fmt.Sprintf("-s -w -X %sstampedVersion=%s -X %sstampedRevision=%s -X %sstampedTime=%s -X %sstampedModified=%t",
		pkg, st.Version, pkg, st.Revision, pkg, st.Time, pkg, st.Modified)
}

// mtime is the time the archives give their files: the commit's, so that two builds of one
// commit write the same bytes.
func (st stamp) mtime() time.Time {
	t, err := time.Parse(time.RFC3339, st.Time)
	if err != nil {
		return time.Unix(0, 0).UTC()
	}
	return t
}

// builder cross-builds the commands of the module at root.
type builder struct {
	root  string
	stamp stamp
	log   io.Writer
}

// build writes static binaries of the commands for goos/goarch into dir (name.exe on windows)
// and returns their paths, in the order of commands.
func (b builder) build(ctx context.Context, dir, goos, goarch string) ([]string, error) {
	gobin := os.Getenv("GO")
	if gobin == "" {
		gobin = "go"
	}
	args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", b.stamp.ldflags(), "-o", dir + string(filepath.Separator)}
	var paths []string
	for _, c := range commands {
		args = append(args, "./cmd/"+c)
		paths = append(paths, filepath.Join(dir, exe(c, goos)))
	}
	cmd := exec.CommandContext(ctx, gobin, args...)
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build for %s/%s: %v\n%s", goos, goarch, err, out)
	}
	return paths, nil
}

// exe is a command's file name on goos.
func exe(name, goos string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

// hostPlatform is the platform whose binaries this machine runs.
func hostPlatform() string { return runtime.GOOS + "/" + runtime.GOARCH }

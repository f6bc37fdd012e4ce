package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// sumsFile lists the SHA-256 of every archive, in the form sha256sum -c reads.
const sumsFile = "SHA256SUMS"

// archiveName is the archive of one platform: petstore_VERSION_OS_ARCH.tar.gz (.zip on windows).
func archiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("petstore_%s_%s_%s%s", version, goos, goarch, ext)
}

// dist builds and archives every platform of list into out, writes SHA256SUMS, and checks the
// archive of this machine's platform, when it is among them.
func (b builder) dist(ctx context.Context, out string, list []string) error {
	for _, p := range list {
		if !slices.Contains(platforms, p) {
			return fmt.Errorf("platform %q is none of %s", p, strings.Join(platforms, ", "))
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// An earlier version's archives would be listed beside this one's.
	old, _ := filepath.Glob(filepath.Join(out, "petstore_*"))
	for _, f := range append(old, filepath.Join(out, sumsFile)) {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	work, err := os.MkdirTemp("", "petstore-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	var names []string
	for _, p := range list {
		goos, goarch, _ := strings.Cut(p, "/")
		bins, err := b.build(ctx, filepath.Join(work, goos+"_"+goarch), goos, goarch)
		if err != nil {
			return err
		}
		name := archiveName(b.stamp.Version, goos, goarch)
		write := writeTarGz
		if goos == "windows" {
			write = writeZip
		}
		if err := write(filepath.Join(out, name), bins, b.stamp.mtime()); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(b.log, "dist: %s\n", filepath.Join(out, name))
		names = append(names, name)
	}
	if err := writeSums(out, names); err != nil {
		return err
	}
	fmt.Fprintf(b.log, "dist: %s (%d archives, version %s)\n", filepath.Join(out, sumsFile), len(names), b.stamp.Version)
	if !slices.Contains(list, hostPlatform()) {
		fmt.Fprintf(b.log, "dist: not checked: no archive for this machine's platform (%s)\n", hostPlatform())
		return nil
	}
	return b.check(ctx, out)
}

// check verifies SHA256SUMS and runs `--version` of each command from the archive of this
// machine's platform, which must print the stamped version.
func (b builder) check(ctx context.Context, out string) error {
	if err := checkSums(out); err != nil {
		return err
	}
	goos, goarch, _ := strings.Cut(hostPlatform(), "/")
	name := archiveName(b.stamp.Version, goos, goarch)
	dir, err := os.MkdirTemp("", "petstore-dist-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if goos == "windows" {
		err = unzip(filepath.Join(out, name), dir)
	} else {
		err = untar(filepath.Join(out, name), dir)
	}
	if err != nil {
		return fmt.Errorf("unpacking %s: %w", name, err)
	}
	for _, c := range commands {
		got, err := exec.CommandContext(ctx, filepath.Join(dir, exe(c, goos)), "--version").CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s from %s: --version: %v: %s", c, name, err, got)
		}
		line := strings.TrimSpace(string(got))
		if !strings.Contains(line, " "+b.stamp.Version+" rev "+b.stamp.Revision) {
			return fmt.Errorf("%s from %s: --version prints %q, not version %s rev %s", c, name, line, b.stamp.Version, b.stamp.Revision)
		}
		fmt.Fprintf(b.log, "dist: checked %s: %s\n", name, line)
	}
	return nil
}

// writeTarGz writes the files into a gzipped tar at path, at its root, executable, with the
// given time and no owner names, so that the same binaries give the same archive.
func writeTarGz(path string, files []string, mtime time.Time) error {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.Base(f), Mode: 0o755, Size: int64(len(data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeZip writes the files into a zip at path, at its root, executable, with the given time.
func writeZip(path string, files []string, mtime time.Time) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: filepath.Base(f), Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(0o755)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeSums writes SHA256SUMS of the named files in out, sorted by name.
func writeSums(out string, names []string) error {
	var b strings.Builder
	names = slices.Sorted(slices.Values(names))
	for _, n := range names {
		sum, err := sha256File(filepath.Join(out, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return os.WriteFile(filepath.Join(out, sumsFile), []byte(b.String()), 0o644)
}

// checkSums does what `sha256sum -c SHA256SUMS` does in out.
func checkSums(out string) error {
	f, err := os.Open(filepath.Join(out, sumsFile))
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return fmt.Errorf("%s: line %q is not SUM  NAME", sumsFile, sc.Text())
		}
		got, err := sha256File(filepath.Join(out, name))
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s: %s has SHA-256 %s, the list says %s", sumsFile, name, got, want)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s lists nothing", sumsFile)
	}
	return sc.Err()
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// untar unpacks the regular files at the root of a gzipped tar into dir.
func untar(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Name != filepath.Base(hdr.Name) {
			return fmt.Errorf("unexpected entry %q", hdr.Name)
		}
		if err := writeFrom(filepath.Join(dir, hdr.Name), tr, hdr.FileInfo().Mode()); err != nil {
			return err
		}
	}
}

// unzip unpacks the files at the root of a zip into dir.
func unzip(path, dir string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if zf.Name != filepath.Base(zf.Name) {
			return fmt.Errorf("unexpected entry %q", zf.Name)
		}
		r, err := zf.Open()
		if err != nil {
			return err
		}
		err = writeFrom(filepath.Join(dir, zf.Name), r, zf.Mode())
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func writeFrom(path string, r io.Reader, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

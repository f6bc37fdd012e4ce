package main

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the module's root, from this package's directory.
const root = "../../.."

// make dist for this machine's platform only (the six platforms are .ci/run's make dist):
// the archive and SHA256SUMS are written, and both commands unpacked from it print the
// version stamped.
func TestDistHostPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both commands")
	}
	if !slices.Contains(platforms, hostPlatform()) {
		t.Skipf("no release for this machine's platform %s", hostPlatform())
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	out := t.TempDir()
	var log bytes.Buffer
	err := run(context.Background(), []string{"dist", "-root", root, "-out", out, "-platforms", hostPlatform(), "-version", "v0.0.0-disttest"}, &log)
	require.NoError(t, err, log.String())

	goos, goarch, _ := strings.Cut(hostPlatform(), "/")
	name := archiveName("v0.0.0-disttest", goos, goarch)
	assert.FileExists(t, filepath.Join(out, name))
	sums, err := os.ReadFile(filepath.Join(out, sumsFile))
	require.NoError(t, err)
	assert.Regexp(t, `\A[0-9a-f]{64}  `+name+`\n\z`, string(sums))
	for _, c := range commands {
		assert.Regexp(t, `(?m)^dist: checked `+name+`: `+c+` github.com/petstore/petstore v0\.0\.0-disttest rev [0-9a-f]{40}`, log.String())
	}
}

// The windows archive is a zip whose files unpack executable, at its root; a changed
// archive fails SHA256SUMS.
func TestZipAndSums(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"conformance.exe", "petstore.exe"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
	}
	out := t.TempDir()
	name := archiveName("v1.2.3", "windows", "arm64")
	assert.Equal(t, "petstore_v1.2.3_windows_arm64.zip", name)
	mtime := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)
	require.NoError(t, writeZip(filepath.Join(out, name), []string{filepath.Join(dir, "conformance.exe"), filepath.Join(dir, "petstore.exe")}, mtime))
	require.NoError(t, writeSums(out, []string{name}))
	require.NoError(t, checkSums(out))

	unpacked := t.TempDir()
	require.NoError(t, unzip(filepath.Join(out, name), unpacked))
	data, err := os.ReadFile(filepath.Join(unpacked, "petstore.exe"))
	require.NoError(t, err)
	assert.Equal(t, "petstore.exe", string(data))
	info, err := os.Stat(filepath.Join(unpacked, "conformance.exe"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())

	require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("changed"), 0o644))
	assert.ErrorContains(t, checkSums(out), name+" has SHA-256")
}

// make image for this machine's platform: the OCI layout holds the platform's image and an
// index of it, the image runs /conformance as 65532 on a layer holding both commands, the
// users, the CA certificates given and the seed animals; the conformance unpacked from the
// layer prints the version stamped; the docker-load tarball holds the same config.
func TestImageHostPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both commands")
	}
	platform := hostPlatform()
	if !slices.Contains(imagePlatforms, platform) {
		t.Skipf("the image is for %s; this machine runs %s", strings.Join(imagePlatforms, ", "), platform)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	_, goarch, _ := strings.Cut(platform, "/")
	certs := []byte("-----BEGIN CERTIFICATE-----\nnot a real one\n-----END CERTIFICATE-----\n")
	certFile := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(certFile, certs, 0o644))
	out := t.TempDir()
	var log bytes.Buffer
	err := run(context.Background(), []string{"image", "-root", root, "-out", out, "-platforms", platform,
		"-version", "v0.0.0-imagetest", "-ca-certs", certFile}, &log)
	require.NoError(t, err, log.String())

	lp, err := layout.FromPath(filepath.Join(out, imageLayout))
	require.NoError(t, err)
	idx, err := lp.ImageIndex()
	require.NoError(t, err)
	manifest, err := idx.IndexManifest()
	require.NoError(t, err)
	refs := map[string]v1.Descriptor{}
	for _, d := range manifest.Manifests {
		refs[d.Annotations["org.opencontainers.image.ref.name"]] = d
	}
	require.Contains(t, refs, imageRef+"-linux-"+goarch)
	require.Contains(t, refs, imageRef)
	img, err := idx.Image(refs[imageRef+"-linux-"+goarch].Digest)
	require.NoError(t, err)
	digest, err := img.Digest()
	require.NoError(t, err)
	inner, err := idx.ImageIndex(refs[imageRef].Digest)
	require.NoError(t, err)
	innerManifest, err := inner.IndexManifest()
	require.NoError(t, err)
	require.Len(t, innerManifest.Manifests, 1)
	assert.Equal(t, digest, innerManifest.Manifests[0].Digest, "the index holds the platform's image")
	assert.Equal(t, &v1.Platform{OS: "linux", Architecture: goarch}, innerManifest.Manifests[0].Platform)

	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, "65532:65532", cfg.Config.User)
	assert.Equal(t, []string{"/conformance"}, cfg.Config.Entrypoint)
	assert.Equal(t, "/work", cfg.Config.WorkingDir)
	assert.Equal(t, "linux", cfg.OS)
	assert.Equal(t, goarch, cfg.Architecture)
	assert.Equal(t, "v0.0.0-imagetest", cfg.Config.Labels["org.opencontainers.image.version"])

	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	bin := t.TempDir()
	files := map[string]*tar.Header{}
	contents := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		files[hdr.Name] = hdr
		switch hdr.Name {
		case "conformance":
			require.NoError(t, writeFrom(filepath.Join(bin, "conformance"), tr, 0o755))
		case "etc/passwd", "etc/group", imageCACerts:
			data, err := io.ReadAll(tr)
			require.NoError(t, err)
			contents[hdr.Name] = string(data)
		}
	}
	for _, name := range []string{"conformance", "petstore"} {
		require.Contains(t, files, name)
		assert.Equal(t, int64(0o755), files[name].Mode, name)
	}
	assert.Contains(t, files, imageSeed)
	assert.Contains(t, contents["etc/passwd"], "nonroot:x:65532:65532:")
	assert.Contains(t, contents["etc/group"], "nonroot:x:65532:")
	assert.Equal(t, string(certs), contents[imageCACerts])
	require.Contains(t, files, "work/")
	assert.Equal(t, 65532, files["work/"].Uid, "the working directory belongs to the image's user")

	version, err := exec.Command(filepath.Join(bin, "conformance"), "--version").CombinedOutput()
	require.NoError(t, err, "%s", version)
	assert.Regexp(t, `^conformance github.com/petstore/petstore v0\.0\.0-imagetest rev [0-9a-f]{40}`, string(version))

	docker, err := tarball.ImageFromPath(filepath.Join(out, dockerArchiveName("v0.0.0-imagetest", goarch)), nil)
	require.NoError(t, err)
	dockerConfig, err := docker.ConfigName()
	require.NoError(t, err)
	configName, err := img.ConfigName()
	require.NoError(t, err)
	assert.Equal(t, configName, dockerConfig, "the docker-load tarball holds the same image")
}

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The container image (docs/container.md): both commands, static, on an empty base, run as
// an unprivileged user, with the build machine's CA certificates so that HTTPS targets are
// trusted. No Docker engine builds it: go-containerregistry writes the layers, the config
// and the manifests as files.
const (
	// imageLayout is the OCI image layout directory under the output directory.
	imageLayout = "image-layout"
	// imageRef names the image index of every platform in the layout (oci:dist/image-layout:petstore);
	// imageRef-OS-ARCH names the image of one platform.
	imageRef = "petstore"
	// imageUser is the user the image runs as: distroless's nonroot, never root.
	imageUser = 65532
	// imageWorkDir is where reports are written unless a path says otherwise; mount a
	// directory there to keep them.
	imageWorkDir = "work"
	// imageSource is the repository the image is built from, a label of the image.
	imageSource = "https://github.com/petstore/petstore"
	// imageCACerts is where the image holds the CA certificates (where Go looks first on linux).
	imageCACerts = "etc/ssl/certs/ca-certificates.crt"
	// imageSeed is testdata/pets.json in the image, for petstore serve --seed /pets.json.
	imageSeed = "pets.json"
)

// imagePlatforms are the platforms of the image: linux only, the binaries are linux's.
var imagePlatforms = []string{"linux/amd64", "linux/arm64"}

// dockerArchiveName is the docker-load tarball of one platform's image.
func dockerArchiveName(version, goarch string) string {
	return fmt.Sprintf("petstore-image_%s_linux_%s.tar", version, goarch)
}

// image builds the image of each platform of list and writes them into out: the OCI layout
// out/image-layout (an image index of all of them, and each image on its own) and, for each
// platform, a tarball that `docker load` reads.
func (b builder) image(ctx context.Context, out string, list []string, caCerts string) error {
	for _, p := range list {
		if !slices.Contains(imagePlatforms, p) {
			return fmt.Errorf("image platform %q is none of %s", p, strings.Join(imagePlatforms, ", "))
		}
	}
	certs, err := os.ReadFile(caCerts)
	if err != nil {
		return fmt.Errorf("the image carries the build machine's CA certificates (-ca-certs): %w", err)
	}
	work, err := os.MkdirTemp("", "petstore-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	dir := filepath.Join(out, imageLayout)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	// An earlier version's tarballs would lie beside this one's.
	old, _ := filepath.Glob(filepath.Join(out, "petstore-image_*.tar"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range list {
		goos, goarch, _ := strings.Cut(p, "/")
		bins, err := b.build(ctx, filepath.Join(work, goarch), goos, goarch)
		if err != nil {
			return err
		}
		img, err := b.platformImage(goos, goarch, bins, certs)
		if err != nil {
			return fmt.Errorf("image for %s: %w", p, err)
		}
		platform := v1.Platform{OS: goos, Architecture: goarch}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &platform}})
		ref := imageRef + "-" + goos + "-" + goarch
		if err := lp.AppendImage(img, layout.WithPlatform(platform), layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": ref,
		})); err != nil {
			return err
		}
		tag, err := name.NewTag("petstore:" + b.stamp.Version + "-" + goarch)
		if err != nil {
			return err
		}
		docker := filepath.Join(out, dockerArchiveName(b.stamp.Version, goarch))
		if err := tarball.WriteToFile(docker, tag, img); err != nil {
			return err
		}
		digest, err := img.Digest()
		if err != nil {
			return err
		}
		fmt.Fprintf(b.log, "image: %s %s (oci:%s:%s; docker load -i %s: %s)\n", p, digest, dir, ref, docker, tag)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": imageRef,
	})); err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(b.log, "image: index of %s %s (oci:%s:%s), version %s\n", strings.Join(list, ", "), digest, dir, imageRef, b.stamp.Version)
	return nil
}

// platformImage is one platform's image: an empty base and one layer.
func (b builder) platformImage(goos, goarch string, bins []string, certs []byte) (v1.Image, error) {
	seed, err := os.ReadFile(filepath.Join(b.root, "testdata", "pets.json"))
	if err != nil {
		return nil, err
	}
	layerTar, err := imageLayer(bins, certs, seed, b.stamp.mtime())
	if err != nil {
		return nil, err
	}
	// Compressed once here: given a gzip stream, the layer uses it as it is, instead of
	// compressing tens of megabytes again for the digest, the layout and each tarball.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(layerTar); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gz.Bytes())), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: b.stamp.mtime()}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created:   created,
		CreatedBy: "internal/cmd/release image: /conformance, /petstore, /pets.json, /etc/passwd, /etc/group, /" + imageCACerts,
		Comment:   "static binaries of both commands, the spec embedded",
	}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = goos, goarch, created
	cfg.Config = v1.Config{
		User:         fmt.Sprintf("%d:%d", imageUser, imageUser),
		Entrypoint:   []string{"/conformance"},
		Cmd:          []string{"--help"},
		WorkingDir:   "/" + imageWorkDir,
		Env:          []string{"PATH=/", "SSL_CERT_FILE=/" + imageCACerts},
		ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "petstore conformance harness and reference server",
			"org.opencontainers.image.description": "/conformance (the entrypoint) and /petstore (--entrypoint /petstore); docs/container.md",
			"org.opencontainers.image.source":      imageSource,
			"org.opencontainers.image.version":     b.stamp.Version,
			"org.opencontainers.image.revision":    b.stamp.Revision,
			"org.opencontainers.image.created":     b.stamp.Time,
		},
	}
	return mutate.ConfigFile(img, cfg)
}

// imageLayer is the image's one layer as a tar: the binaries at the root, the users and
// groups (root, and nonroot as 65532), the CA certificates, the seed animals, /tmp and the working directory
// owned by the user, every entry with the commit's time, so that a commit gives one layer.
func imageLayer(bins []string, certs, seed []byte, mtime time.Time) ([]byte, error) {
	type entry struct {
		name string
		mode int64
		uid  int
		data []byte
		dir  bool
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/%s:/sbin/nologin\n", imageUser, imageUser, imageWorkDir)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", imageUser)
	entries := []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: imageCACerts, mode: 0o644, data: certs},
		{name: imageSeed, mode: 0o644, data: seed},
		{name: "tmp/", mode: 0o1777, dir: true},
		{name: imageWorkDir + "/", mode: 0o755, uid: imageUser, dir: true},
	}
	for _, bin := range bins {
		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{name: filepath.Base(bin), mode: 0o755, data: data})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: mtime, Format: tar.FormatPAX}
		if e.dir {
			hdr.Typeflag = tar.TypeDir
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

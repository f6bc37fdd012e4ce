#!/usr/bin/env bash
# The image's file system without a container engine: the layer of the machine's platform
# (from the docker-load tarball in dist/) unpacked into an empty root, then, under chroot as
# the image's user 65532, petstore serve with the seed animals and conformance run against
# it, writing a report into /work. Needs root (chroot); .ci/run runs it after make image.
set -euo pipefail
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) echo "image-smoke: no image for $(uname -m)" >&2; exit 1 ;;
esac
tarball=$(ls dist/petstore-image_*_linux_$arch.tar)
root=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; fi
  rm -rf "$root"
}
trap cleanup EXIT
chmod 755 "$root"
tar -xOf "$tarball" "$(tar -tf "$tarball" | grep '\.tar\.gz$')" | tar -xz -C "$root"
as_user() { chroot --userspec=65532:65532 "$root" "$@"; }

as_user /conformance --version
# chroot itself in the background (not as_user: $! would be a subshell's), so that $! is the
# server, which chroot becomes.
chroot --userspec=65532:65532 "$root" /petstore serve --addr 127.0.0.1:0 --api-key image-smoke-key --seed /pets.json >"$root/tmp/serve.log" 2>&1 &
pid=$!
base=
for _ in $(seq 100); do
  base=$(sed -n 's/^petstore: serving \(http:[^ ]*\) .*/\1/p' "$root/tmp/serve.log")
  [ -n "$base" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$root/tmp/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$base" ] || { echo "image-smoke: petstore serve did not say where it listens" >&2; cat "$root/tmp/serve.log" >&2; exit 1; }
as_user /conformance run --base-url "$base" --api-key image-smoke-key --report json=/work/reports/report.json | tail -1
test -s "$root/work/reports/report.json"
echo "image-smoke: $tarball: both commands ran as 65532 from the image's files, the report written in /work"

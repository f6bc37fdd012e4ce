#!/usr/bin/env bash
# Downloads the exact module versions recorded in go.mod/go.sum and builds bin/go-ogen.
set -uo pipefail
cd "$(dirname "$0")"
if ! command -v go >/dev/null 2>&1; then
  echo "go-ogen: go not found; install Go 1.26 or later" >&2
  exit 1
fi
if ! go mod download >install.log 2>&1; then
  echo "go-ogen: go mod download failed (see zoo/go-ogen/install.log)" >&2
  exit 1
fi
if ! go build -o bin/go-ogen . >>install.log 2>&1; then
  echo "go-ogen: go build failed (see zoo/go-ogen/install.log)" >&2
  exit 1
fi
rm -f install.log

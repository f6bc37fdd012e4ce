#!/usr/bin/env bash
# Regenerates ./api from ../../spec/openapi.yaml with ogen v1.24.0 (the go:generate line in
# generate.go). Commit the result.
set -euo pipefail
cd "$(dirname "$0")"
go generate .

#!/usr/bin/env bash
# Installs the exact dependencies recorded in package-lock.json.
set -uo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
  echo "node-hapi: npm not found; install Node.js 20 or later" >&2
  exit 1
fi
if ! npm ci --no-audit --no-fund >npm-ci.log 2>&1; then
  echo "node-hapi: npm ci failed (see zoo/node-hapi/npm-ci.log)" >&2
  exit 1
fi
rm -f npm-ci.log

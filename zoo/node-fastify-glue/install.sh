#!/bin/sh
# Install the pinned dependencies from package-lock.json.
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
	echo "install.sh: npm not found" >&2
	exit 1
fi
if ! npm ci --no-audit --no-fund >install.log 2>&1; then
	echo "install.sh: npm ci failed, see $(pwd)/install.log" >&2
	exit 1
fi

#!/bin/sh
# Start the pet store service in the foreground on 127.0.0.1:$PORT (default 3000).
# API_KEY (required) is the one accepted bearer key.
set -e
cd "$(dirname "$0")"
: "${PORT:=3000}"
if [ -z "${API_KEY:-}" ]; then
	echo "start.sh: API_KEY must be set" >&2
	exit 1
fi
export PORT API_KEY
exec node server.js

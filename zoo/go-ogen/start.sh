#!/usr/bin/env bash
# Starts the server on 127.0.0.1:$PORT; the API key comes from $API_KEY.
# Builds bin/go-ogen first when it is missing or older than the sources.
set -euo pipefail
cd "$(dirname "$0")"
bin=bin/go-ogen
if [[ ! -x $bin || -n $(find . -path ./bin -prune -o \( -name '*.go' -o -name go.mod -o -name go.sum \) -newer "$bin" -print) ]]; then
  go build -o "$bin" .
fi
exec "$bin"

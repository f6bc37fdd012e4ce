#!/usr/bin/env bash
# Starts the server on 127.0.0.1:$PORT; the API key comes from $API_KEY.
set -euo pipefail
cd "$(dirname "$0")"
exec node server.js

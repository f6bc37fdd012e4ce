#!/usr/bin/env bash
# Starts the server on 127.0.0.1:$PORT; the API key comes from $API_KEY.
# Each start has a fresh SQLite database in a temporary folder, removed when it stops.
set -euo pipefail
cd "$(dirname "$0")"
PORT=${PORT:-8000}
export DATABASE_PATH
DATABASE_PATH=$(mktemp -d)/db.sqlite3
trap 'rm -rf "$(dirname "$DATABASE_PATH")"' EXIT
trap 'kill -TERM "$server" 2>/dev/null' TERM INT
/usr/bin/python3 manage.py migrate --noinput >/dev/null
/usr/bin/python3 -m gunicorn petstore.wsgi --bind "127.0.0.1:$PORT" &
server=$!
wait "$server" || wait "$server"

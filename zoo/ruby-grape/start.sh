#!/bin/bash
# Starts Puma (unix socket) and Caddy (127.0.0.1:$PORT) in the foreground.
set -u
# A shell started in the background inherits SIGINT as ignored and then cannot
# trap it; re-exec once with default dispositions so Ctrl-C/SIGINT always works.
if [ -z "${PETSTORE_SIGNALS_RESET:-}" ]; then
  export PETSTORE_SIGNALS_RESET=1
  exec env --default-signal=INT,TERM,QUIT bash "$0" "$@"
fi
HERE="$(cd "$(dirname "$0")" && pwd)"
PORT="${PORT:-8080}"
if [ -z "${API_KEY:-}" ]; then
  echo "start.sh: API_KEY is required" >&2; exit 1
fi
export API_KEY

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/petstore-grape.XXXXXX")"
mkdir -p "$RUN_DIR/home" "$RUN_DIR/xdg-data" "$RUN_DIR/xdg-config"
SOCK="$RUN_DIR/puma.sock"

cat > "$RUN_DIR/Caddyfile" <<CADDY
{
	admin off
	auto_https off
	storage file_system $RUN_DIR/xdg-data/caddy
}

http://127.0.0.1:$PORT {
	bind 127.0.0.1
	reverse_proxy unix/$SOCK
}
CADDY

PUMA_PID=""; CADDY_PID=""
cleanup() {
  trap - TERM INT EXIT
  [ -n "$CADDY_PID" ] && kill -TERM "$CADDY_PID" 2>/dev/null
  [ -n "$PUMA_PID" ] && kill -TERM "$PUMA_PID" 2>/dev/null
  [ -n "$CADDY_PID" ] && wait "$CADDY_PID" 2>/dev/null
  [ -n "$PUMA_PID" ] && wait "$PUMA_PID" 2>/dev/null
  rm -rf "$RUN_DIR"
}
trap 'cleanup; exit 0' TERM INT
trap cleanup EXIT

cd "$HERE"
RACK_ENV=production puma --environment production --bind "unix://$SOCK" \
  --workers 0 --dir "$HERE" "$HERE/config.ru" &
PUMA_PID=$!

for _ in $(seq 1 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
if [ ! -S "$SOCK" ]; then echo "start.sh: puma did not start" >&2; exit 1; fi

HOME="$RUN_DIR/home" XDG_DATA_HOME="$RUN_DIR/xdg-data" XDG_CONFIG_HOME="$RUN_DIR/xdg-config" \
  caddy run --adapter caddyfile --config "$RUN_DIR/Caddyfile" &
CADDY_PID=$!

# Stay in the foreground until either child exits or we get a signal.
wait -n "$PUMA_PID" "$CADDY_PID"
rc=$?
echo "start.sh: a child process exited (rc=$rc); stopping" >&2
cleanup
exit "$rc"

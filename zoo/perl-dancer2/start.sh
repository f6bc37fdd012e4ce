#!/bin/bash
# Starts Starman (one worker, loopback TCP) behind nginx (daemon off).
# PORT: nginx listen port on 127.0.0.1 (default 8080). API_KEY: required.
set -euo pipefail

PORT="${PORT:-8080}"
if [ -z "${API_KEY:-}" ]; then
    echo "start.sh: API_KEY must be set" >&2
    exit 1
fi
export API_KEY

APPDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUNDIR="$(mktemp -d "${TMPDIR:-/tmp}/petstore-dancer2.XXXXXX")"
chmod 755 "$RUNDIR"

# A free loopback port for Starman.
APP_PORT="$(perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 1, ReuseAddr => 1) or die "$!\n";
    print $s->sockport;')"

NGINX_USER_LINE=""
mkdir -p "$RUNDIR"/{client_body,proxy,fastcgi,uwsgi,scgi}
if [ "$(id -u)" -eq 0 ]; then
    # Same unprivileged worker user as Debian's stock nginx.conf.
    NGINX_USER_LINE="user www-data;"
    chown www-data "$RUNDIR"/{client_body,proxy,fastcgi,uwsgi,scgi}
fi

cat > "$RUNDIR/nginx.conf" <<CONF
$NGINX_USER_LINE
worker_processes 1;
daemon off;
pid $RUNDIR/nginx.pid;
error_log $RUNDIR/error.log;

events {
    worker_connections 768;
}

http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 65;

    access_log $RUNDIR/access.log;

    client_body_temp_path $RUNDIR/client_body;
    proxy_temp_path       $RUNDIR/proxy;
    fastcgi_temp_path     $RUNDIR/fastcgi;
    uwsgi_temp_path       $RUNDIR/uwsgi;
    scgi_temp_path        $RUNDIR/scgi;

    upstream backendurl {
        server 127.0.0.1:$APP_PORT;
    }

    server {
        listen 127.0.0.1:$PORT;
        server_name localhost;

        location / {
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-Host \$host;
            proxy_set_header X-Real-IP \$remote_addr;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_pass       http://backendurl;
        }
    }
}
CONF

STARMAN_PID=""
NGINX_PID=""
cleanup() {
    trap - TERM INT EXIT
    [ -n "$NGINX_PID" ]   && kill -TERM "$NGINX_PID"   2>/dev/null || true
    [ -n "$STARMAN_PID" ] && kill -TERM "$STARMAN_PID" 2>/dev/null || true
    [ -n "$NGINX_PID" ]   && wait "$NGINX_PID"   2>/dev/null || true
    [ -n "$STARMAN_PID" ] && wait "$STARMAN_PID" 2>/dev/null || true
    rm -rf "$RUNDIR"
}
trap 'echo "start.sh: signal received, stopping" >&2; cleanup; exit 0' TERM INT
trap cleanup EXIT

cd "$APPDIR"
plackup -E production -s Starman --workers=1 \
    --listen "127.0.0.1:$APP_PORT" -a "$APPDIR/bin/app.psgi" &
STARMAN_PID=$!

# Wait for Starman to accept connections.
for _ in $(seq 1 50); do
    if perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(PeerAddr=>"127.0.0.1:'"$APP_PORT"'") ? 0 : 1)'; then
        break
    fi
    sleep 0.2
done

nginx -p "$RUNDIR" -e "$RUNDIR/error.log" -c "$RUNDIR/nginx.conf" &
NGINX_PID=$!

echo "pet store listening on http://127.0.0.1:$PORT/v1 (run dir $RUNDIR)" >&2

# Stay in the foreground until either process exits or we get a signal.
rc=0
wait -n "$STARMAN_PID" "$NGINX_PID" || rc=$?
echo "start.sh: a child process exited (status $rc), stopping" >&2
cleanup
exit "$rc"

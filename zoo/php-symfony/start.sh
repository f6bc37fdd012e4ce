#!/bin/bash
# Starts PHP-FPM and Apache httpd (mod_proxy_fcgi) in the foreground.
# Everything they write (config, pid files, socket, logs, cache, SQLite file)
# lives in a temporary folder that is removed on exit.
set -u

# A shell started in the background inherits SIGINT/SIGQUIT as "ignored" and
# cannot trap them; re-exec once with default signal handling so Ctrl-C and
# `kill -INT` stop the servers as documented.
if [ -z "${PETSTORE_SIGNALS_RESET:-}" ] && env --default-signal=INT true 2>/dev/null; then
    export PETSTORE_SIGNALS_RESET=1
    exec env --default-signal=INT,QUIT bash "$0" "$@"
fi

PORT="${PORT:-8080}"
if [ -z "${API_KEY:-}" ]; then
    echo "start.sh: API_KEY must be set" >&2
    exit 1
fi

APP_DIR="$(cd "$(dirname "$0")" && pwd)"
FPM_BIN="${FPM_BIN:-/usr/sbin/php-fpm8.2}"
APACHE_BIN="${APACHE_BIN:-/usr/sbin/apache2}"

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/petstore-symfony.XXXXXX")"
chmod 755 "$RUN_DIR"
mkdir -p "$RUN_DIR/apache" "$RUN_DIR/fpm" "$RUN_DIR/var"

if [ "$(id -u)" -eq 0 ]; then
    RUN_USER=www-data
    RUN_GROUP=www-data
    chown "$RUN_USER:$RUN_GROUP" "$RUN_DIR/var"
else
    RUN_USER="$(id -un)"
    RUN_GROUP="$(id -gn)"
fi

# ---- PHP-FPM: one pool on a unix socket, Debian's default pool sizes ----
cat > "$RUN_DIR/fpm/php-fpm.conf" <<CONF
[global]
pid = $RUN_DIR/fpm/php-fpm.pid
error_log = $RUN_DIR/fpm/php-fpm.log
daemonize = no

[petstore]
$( [ "$(id -u)" -eq 0 ] && printf 'user = %s\ngroup = %s\n' "$RUN_USER" "$RUN_GROUP" )
listen = $RUN_DIR/fpm/php-fpm.sock
listen.owner = $RUN_USER
listen.group = $RUN_GROUP
listen.mode = 0660
pm = dynamic
pm.max_children = 5
pm.start_servers = 2
pm.min_spare_servers = 1
pm.max_spare_servers = 3
; pass API_KEY, APP_ENV, APP_VAR_DIR, DATABASE_PATH from this script's environment
clear_env = no
CONF

# ---- Apache: Debian's apache2.conf, minus ports.conf and sites-enabled ----
cat > "$RUN_DIR/apache/apache2.conf" <<CONF
ServerRoot /etc/apache2
DefaultRuntimeDir $RUN_DIR/apache
PidFile $RUN_DIR/apache/apache2.pid
Mutex file:$RUN_DIR/apache default
Timeout 300
KeepAlive On
MaxKeepAliveRequests 100
KeepAliveTimeout 5
User $RUN_USER
Group $RUN_GROUP
HostnameLookups Off
ErrorLog $RUN_DIR/apache/error.log
LogLevel warn

IncludeOptional mods-enabled/*.load
IncludeOptional mods-enabled/*.conf
<IfModule !proxy_module>
    LoadModule proxy_module /usr/lib/apache2/modules/mod_proxy.so
</IfModule>
<IfModule !proxy_fcgi_module>
    LoadModule proxy_fcgi_module /usr/lib/apache2/modules/mod_proxy_fcgi.so
</IfModule>
<IfModule !rewrite_module>
    LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
</IfModule>

Listen 127.0.0.1:$PORT
ServerName 127.0.0.1

<Directory />
    Options FollowSymLinks
    AllowOverride None
    Require all denied
</Directory>
<Directory /usr/share>
    AllowOverride None
    Require all granted
</Directory>
<Directory /var/www/>
    Options Indexes FollowSymLinks
    AllowOverride None
    Require all granted
</Directory>
AccessFileName .htaccess
<FilesMatch "^\.ht">
    Require all denied
</FilesMatch>
LogFormat "%v:%p %h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\"" vhost_combined
LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\"" combined
LogFormat "%h %l %u %t \"%r\" %>s %O" common
IncludeOptional conf-enabled/*.conf

# The Symfony application (symfony.com/doc/5.4/setup/web_server_configuration.html)
<VirtualHost 127.0.0.1:$PORT>
    ServerName 127.0.0.1

    # Pass the Authorization header on to PHP-FPM
    SetEnvIfNoCase ^Authorization\$ "(.+)" HTTP_AUTHORIZATION=\$1

    <FilesMatch \.php\$>
        SetHandler "proxy:unix:$RUN_DIR/fpm/php-fpm.sock|fcgi://localhost"
    </FilesMatch>

    DocumentRoot $APP_DIR/public
    <Directory $APP_DIR/public>
        AllowOverride None
        Require all granted
        DirectoryIndex /index.php
        FallbackResource /index.php
    </Directory>

    ErrorLog $RUN_DIR/apache/project_error.log
    CustomLog $RUN_DIR/apache/project_access.log combined
</VirtualHost>
CONF

export APACHE_RUN_USER="$RUN_USER" APACHE_RUN_GROUP="$RUN_GROUP"
export APACHE_RUN_DIR="$RUN_DIR/apache" APACHE_LOCK_DIR="$RUN_DIR/apache"
export APACHE_LOG_DIR="$RUN_DIR/apache" APACHE_PID_FILE="$RUN_DIR/apache/apache2.pid"
export LANG=C
export API_KEY APP_ENV=prod APP_DEBUG=0
export APP_VAR_DIR="$RUN_DIR/var" DATABASE_PATH="$RUN_DIR/var/pets.sqlite"

FPM_PID=""
APACHE_PID=""
cleanup() {
    trap - TERM INT EXIT
    [ -n "$APACHE_PID" ] && kill -TERM "$APACHE_PID" 2>/dev/null
    [ -n "$FPM_PID" ] && kill -QUIT "$FPM_PID" 2>/dev/null
    [ -n "$APACHE_PID" ] && wait "$APACHE_PID" 2>/dev/null
    [ -n "$FPM_PID" ] && wait "$FPM_PID" 2>/dev/null
    rm -rf "$RUN_DIR"
    exit 0
}
trap cleanup TERM INT EXIT

"$FPM_BIN" --nodaemonize --fpm-config "$RUN_DIR/fpm/php-fpm.conf" &
FPM_PID=$!

for _ in $(seq 1 50); do
    [ -S "$RUN_DIR/fpm/php-fpm.sock" ] && break
    sleep 0.1
done

"$APACHE_BIN" -f "$RUN_DIR/apache/apache2.conf" -DFOREGROUND &
APACHE_PID=$!

echo "pet store listening on http://127.0.0.1:$PORT/v1 (run dir $RUN_DIR)" >&2

# stay in the foreground; if either server dies, stop the other
wait -n "$FPM_PID" "$APACHE_PID"
cleanup

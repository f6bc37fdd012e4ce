#!/bin/sh
# Idempotent installer for the pet store service (Debian 12 packages only).
PKGS="php8.2-fpm php8.2-cli php8.2-sqlite3 apache2 php-symfony-framework-bundle php-symfony-http-kernel php-symfony-http-foundation php-symfony-routing php-symfony-dependency-injection php-symfony-config php-symfony-event-dispatcher php-symfony-error-handler"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "install.sh: missing packages:$missing (need root or passwordless sudo to install them)" >&2
    exit 1
fi

try_apt() {
    i=0
    while [ $i -lt 15 ]; do
        if $SUDO env DEBIAN_FRONTEND=noninteractive "$@"; then return 0; fi
        # dpkg lock held by someone else: wait and retry
        if ! fuser /var/lib/dpkg/lock-frontend >/dev/null 2>&1 && ! fuser /var/lib/dpkg/lock >/dev/null 2>&1; then
            return 1
        fi
        sleep 20; i=$((i+1))
    done
    return 1
}

if ! try_apt apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
    try_apt apt-get update >/dev/null 2>&1
    if ! try_apt apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
        echo "install.sh: apt-get could not install:$missing" >&2
        exit 1
    fi
fi
exit 0

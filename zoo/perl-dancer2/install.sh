#!/bin/sh
# Idempotent installer: Debian packages only (no CPAN).
set -u
PKGS="libdancer2-perl starman nginx libjson-maybexs-perl libcpanel-json-xs-perl curl"

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
    echo "install.sh: need root or passwordless sudo to install:$missing" >&2
    exit 1
fi

apt_install() {
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
}

tries=0
until apt_install >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [ "$tries" -ge 2 ]; then
        $SUDO apt-get update >/dev/null 2>&1
    fi
    if [ "$tries" -ge 6 ]; then
        echo "install.sh: apt-get install failed for:$missing" >&2
        exit 1
    fi
    sleep 20   # dpkg lock may be held
done
exit 0

#!/bin/sh
# Installs the Debian packages this service needs (idempotent).
PKGS="ruby ruby-grape puma caddy curl"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"
else echo "install.sh: need root or passwordless sudo to install:$missing" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
try() {
  i=0
  while ! $SUDO "$@"; do
    i=$((i+1)); [ $i -ge 10 ] && return 1
    sleep 20   # dpkg lock may be held
  done
}
try apt-get update -q >/dev/null 2>&1 || true
if ! try apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
  echo "install.sh: apt-get install failed for:$missing" >&2; exit 1
fi
exit 0

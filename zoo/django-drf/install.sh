#!/usr/bin/env bash
# Installs Django REST framework and gunicorn from Debian's packages (PyPI is not used) for
# Debian's system Python, /usr/bin/python3.
set -uo pipefail
cd "$(dirname "$0")"
packages=(python3-djangorestframework python3-gunicorn)
have() { /usr/bin/python3 -c 'import django, rest_framework, gunicorn' >/dev/null 2>&1; }
if have; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "django-drf: apt-get not found; install ${packages[*]} (Debian 12) by hand" >&2
  exit 1
fi
sudo=()
if [[ $(id -u) != 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "django-drf: not root and no sudo; install ${packages[*]} by hand" >&2
    exit 1
  fi
  sudo=(sudo -n)
fi
if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}" >install.log 2>&1 || ! have; then
  echo "django-drf: apt-get install ${packages[*]} failed (see zoo/django-drf/install.log)" >&2
  exit 1
fi
rm -f install.log

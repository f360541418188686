#!/usr/bin/env bash
# What pip needs to build plyvel (LevelDB, a core dependency) from source, installed when it must:
# plyvel publishes wheels for CPython up to 3.12, so on a newer Python (Debian 13's 3.13) pip compiles
# it, which needs LevelDB's headers and a C++ compiler.  Nothing is installed when plyvel is already
# importable, when a wheel exists for this Python, or when the headers and g++ are there.  Debian/Ubuntu,
# as root or with sudo.
#
#   bash scripts/build_deps.sh [PYTHON]      # default: python3
#
# LEVELDB_HEADER: where LevelDB's db.h is looked for (default /usr/include/leveldb/db.h).
set -euo pipefail
PY=${1:-python3}
if "$PY" -c 'import plyvel' >/dev/null 2>&1; then
    exit 0
fi
if [ -e "${LEVELDB_HEADER:-/usr/include/leveldb/db.h}" ] && command -v g++ >/dev/null 2>&1; then
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: plyvel -d "$tmp" \
    >/dev/null 2>&1; then
    exit 0
fi
echo "no plyvel wheel for $("$PY" -c 'import sys; print(sys.version.split()[0])'): installing libleveldb-dev and g++ to build it" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq libleveldb-dev g++ python3-dev >/dev/null

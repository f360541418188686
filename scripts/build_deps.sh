#!/usr/bin/env bash
# What pip needs to build the core dependencies from source, installed when it must.  PyPI has wheels of
# plyvel (LevelDB) for CPython 3.10-3.12 on Linux x86_64 and of pyfarmhash for 3.11-3.13: on another Python
# (Debian 13's 3.13, Ubuntu 22.04's 3.10) pip compiles one of them, which needs a C++ compiler and
# Python's headers, and LevelDB's headers for plyvel.  Nothing is installed for a package already
# importable, or with a wheel for this Python, or whose build needs are there.  Debian/Ubuntu, as root or
# with sudo.
#
#   bash scripts/build_deps.sh [PYTHON]      # default: python3
#
# LEVELDB_HEADER: where LevelDB's db.h is looked for (default /usr/include/leveldb/db.h).
set -euo pipefail
PY=${1:-python3}
LEVELDB_HEADER=${LEVELDB_HEADER:-/usr/include/leveldb/db.h}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Whether pip would have to build the distribution $1 (imported as $2).
must_build() {
    if "$PY" -c "import $2" >/dev/null 2>&1; then
        return 1
    fi
    if "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: "$1" -d "$tmp" \
        >/dev/null 2>&1; then
        return 1
    fi
    return 0
}

# CXX: the compiler setuptools would use.
compiler() {
    command -v "${CXX:-g++}" >/dev/null 2>&1
}

python_headers() {
    "$PY" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' >/dev/null 2>&1
}

# Everything either build needs is there: nothing to ask pip (a network round trip each).
if compiler && python_headers && [ -e "$LEVELDB_HEADER" ]; then
    exit 0
fi
packages=()
if must_build plyvel plyvel; then
    [ -e "$LEVELDB_HEADER" ] || packages+=(libleveldb-dev)
    built="plyvel"
fi
if must_build pyfarmhash farmhash; then
    built="${built:+$built and }pyfarmhash"
fi
if [ -n "${built:-}" ]; then
    compiler || packages+=(g++)
    python_headers || packages+=(python3-dev)
fi
if [ ${#packages[@]} -eq 0 ]; then
    exit 0
fi
version=$("$PY" -c 'import sys; print(sys.version.split()[0])')
echo "no wheel of $built for $version: installing ${packages[*]} to build it" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${packages[@]}" >/dev/null

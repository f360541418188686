#!/usr/bin/env bash
# Create ./.venv once, for installing nshash from this checkout.  Debian's system
# Python refuses `pip install` outside a virtual environment (PEP 668), and its
# venv module is a separate package: install it (and a compiler for the C
# accelerator) when it is missing, and what building plyvel or pyfarmhash needs
# when this Python has no wheel of one (scripts/build_deps.sh).  Works as root or with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ] && ! python3 -m venv .venv >/dev/null 2>&1; then
    rm -rf .venv
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq python3-venv python3-dev gcc >/dev/null
    python3 -m venv .venv
fi
# A compiler and headers when pip will have to build plyvel or pyfarmhash (a Python without their wheels).
bash scripts/build_deps.sh .venv/bin/python

#!/usr/bin/env bash
# The test command of the README: installs what the tests need, then runs the
# linters and the test suite.  Works on a fresh Debian machine as root.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's system Python refuses pip outside a virtual environment (PEP 668): use ./.venv there.
if [ -z "${VIRTUAL_ENV:-}" ] && python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    bash scripts/venv.sh
    # shellcheck disable=SC1091
    . .venv/bin/activate
fi

bash scripts/build_deps.sh python3  # LevelDB's headers and g++, if plyvel must be built here
python3 -m pip install --quiet --disable-pip-version-check -e '.[dev]'

# The Redis store's tests start a real redis-server.
if ! command -v redis-server >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq redis-server >/dev/null
fi

ruff check .
ruff format --check .
mypy
# The documentation site: every warning is an error; nothing is fetched (no Google Fonts, no inventories).
# Not --quiet: it hides the warnings from --strict too (a broken link passed with it).
NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build --strict
# The suite with the C accelerator (a failed build is an error here, not a
# silent fallback), then again in pure Python every test file whose code has
# a C twin (features, decisions, the memory store's tables) or that checks ids.
# (The whole suite passes in pure Python too: about 4 minutes on a 2-core machine, measured
# 2026-12-04; the C-only tests skip there.)
# -n: two pytest workers a core, up to 4 (pytest-xdist; many tests wait on a subprocess, a server or a
# disk, so two a core ran faster than one); each test file runs whole on one worker, so its module
# fixtures run once and its tests in order.  Pass -n 0 to run in this process (a debugger).
WORKERS=$(python3 -c 'import os; cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1; print(min(4, 2 * cores))')
PARALLEL=(-n "$WORKERS" --dist loadfile)
NSHASH_REQUIRE_SPEEDUPS=1 python3 -m pytest -q "${PARALLEL[@]}" "$@"
NSHASH_NO_SPEEDUPS=1 python3 -m pytest -q -p no:randomly "${PARALLEL[@]}" tests/test_decide.py tests/test_decide_frame.py \
    tests/test_decide_body.py tests/test_decide_edits.py tests/test_decide_lines.py tests/test_decide_members.py tests/test_estimate.py tests/test_clean.py \
    tests/test_nshash.py tests/test_batch.py tests/test_speedups.py tests/test_options.py tests/test_determinism.py \
    tests/test_store_contract.py tests/test_persistence.py tests/test_many.py tests/test_odd_input.py \
    tests/test_sketch_numpy.py tests/test_packed.py tests/test_site.py tests/test_pieces.py tests/test_markdown.py tests/test_mojibake.py tests/test_mojibake_gbk.py tests/test_escaped.py \
    tests/test_wrapping.py tests/test_bylines.py

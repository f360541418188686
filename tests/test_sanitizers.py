"""The C accelerator under AddressSanitizer and UndefinedBehaviorSanitizer.

Out-of-bounds reads, use after free and undefined behaviour (a misaligned load, an overflowing shift) often
give right answers on x86 and wrong ones, or a crash, elsewhere or later: tests that compare answers do not
see them.  Here a copy of the package gets an accelerator built with both sanitisers (unoptimised: about
4 s of gcc, against 9 at -O1), and ``sanitized_workload.py`` runs the sample, odd pages, a store saved and
reopened, batch, LevelDB and the tables through it; any report ends the process with an error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "nshash"
SAMPLE = ROOT / "examples" / "data" / "news_sample.jsonl"


def runtime(name: str) -> str | None:
    """The path of gcc's sanitiser runtime ``name``, or None without gcc or the runtime."""
    compiler = shutil.which("gcc")
    if compiler is None:
        return None
    found = subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
    return found if os.path.isabs(found) and os.path.exists(found) else None


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch folder with a copy of the package whose accelerator is built with both sanitisers."""
    if sys.platform != "linux" or os.environ.get("NSHASH_NO_SPEEDUPS"):
        pytest.skip("gcc's sanitisers on Linux, with the accelerator")
    if not (PACKAGE / "_speedups_tables.h").exists():
        pytest.skip("the generated headers are missing: build the accelerator first")
    if runtime("libasan.so") is None or runtime("libubsan.so") is None:
        pytest.skip("gcc or its sanitiser runtimes are missing")
    scratch = tmp_path_factory.mktemp("sanitized")
    shutil.copytree(PACKAGE, scratch / "nshash", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    built = subprocess.run(
        [
            "gcc", "-shared", "-fPIC", "-O0", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all", f"-I{sysconfig.get_paths()['include']}", str(PACKAGE / "_speedups.c"),
            "-o", str(scratch / "nshash" / f"_speedups{sysconfig.get_config_var('EXT_SUFFIX')}"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    return scratch


def test_the_accelerator_is_clean_under_asan_and_ubsan(sanitized: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(sanitized),
        "NSHASH_REQUIRE_SPEEDUPS": "1",
        # The interpreter is not instrumented: the ASan runtime must be loaded first, and its leak check
        # would report the interpreter's own allocations.
        "LD_PRELOAD": f"{runtime('libasan.so')} {runtime('libubsan.so')}",
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:exitcode=86",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:exitcode=87",
    }
    # Where ASan cannot run at all (no room for its shadow memory, a ptrace-ing sandbox), say so: that is
    # the machine, not nshash.
    probe = subprocess.run([sys.executable, "-c", "pass"], env=env, capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"AddressSanitizer does not run here: {probe.stderr.strip()[-300:]}")
    result = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "sanitized_workload.py"), str(sanitized), str(SAMPLE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = result.stderr[-6000:]
    assert "runtime error" not in result.stderr and "AddressSanitizer" not in result.stderr, report
    assert result.returncode == 0 and result.stdout.startswith("ok "), report

"""scripts/build_deps.sh installs what pip needs to build a core dependency, and only when it must."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "build_deps.sh"


def fake_tools(tmp_path: Path, *, imports: set[str], wheels: set[str], python_headers: bool = True) -> Path:
    """Stand-ins: a python that imports the modules ``imports`` and finds wheels of ``wheels``; apt-get; id; g++."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    scripts = {
        "python": f"""#!/bin/sh
case "$*" in
  "-c import plyvel") exit {0 if "plyvel" in imports else 1} ;;
  "-c import farmhash") exit {0 if "farmhash" in imports else 1} ;;
  "-m pip download"*" plyvel -d"*) exit {0 if "plyvel" in wheels else 1} ;;
  "-m pip download"*" pyfarmhash -d"*) exit {0 if "pyfarmhash" in wheels else 1} ;;
  *sysconfig*) exit {0 if python_headers else 1} ;;
  *) echo 3.99.0 ;;
esac
""",
        "apt-get": f'#!/bin/sh\necho "apt-get $*" >> {log}\n',
        "id": "#!/bin/sh\necho 0\n",
        "fake-g++": "#!/bin/sh\nexit 0\n",
    }
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return bin_dir


def run(
    tmp_path: Path, bin_dir: Path, *, leveldb_headers: bool, compiler: bool = True
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    header_path = tmp_path / "db.h"
    if leveldb_headers:
        header_path.write_text("")
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "LEVELDB_HEADER": str(header_path),
        "CXX": "fake-g++" if compiler else "no-such-compiler",
    }
    done = subprocess.run(
        ["bash", str(SCRIPT), str(bin_dir / "python")], env=env, capture_output=True, text=True, check=False
    )
    log = tmp_path / "calls.log"
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(
    ("imports", "wheels", "leveldb_headers"),
    [
        ({"plyvel", "farmhash"}, set(), False),
        (set(), {"plyvel", "pyfarmhash"}, False),
        ({"farmhash"}, set(), True),
    ],
    ids=["both-importable", "wheels-exist", "build-needs-there"],
)
def test_nothing_is_installed_when_pip_needs_nothing(
    tmp_path: Path, imports: set[str], wheels: set[str], leveldb_headers: bool
) -> None:
    done, calls = run(tmp_path, fake_tools(tmp_path, imports=imports, wheels=wheels), leveldb_headers=leveldb_headers)
    assert done.returncode == 0, done.stderr
    assert calls == []


def test_headers_and_compiler_are_installed_when_plyvel_must_be_built(tmp_path: Path) -> None:
    bin_dir = fake_tools(tmp_path, imports={"farmhash"}, wheels=set(), python_headers=False)
    done, calls = run(tmp_path, bin_dir, leveldb_headers=False, compiler=False)
    assert done.returncode == 0, done.stderr
    assert "no wheel of plyvel for 3.99.0" in done.stderr
    assert calls == ["apt-get update -qq", "apt-get install -y -qq libleveldb-dev g++ python3-dev"]


def test_a_compiler_not_leveldb_is_installed_when_only_pyfarmhash_must_be_built(tmp_path: Path) -> None:
    # CPython 3.10 on Linux: plyvel has a wheel, pyfarmhash 0.5 has none.
    done, calls = run(
        tmp_path, fake_tools(tmp_path, imports=set(), wheels={"plyvel"}), leveldb_headers=False, compiler=False
    )
    assert done.returncode == 0, done.stderr
    assert "no wheel of pyfarmhash for 3.99.0" in done.stderr
    assert calls == ["apt-get update -qq", "apt-get install -y -qq g++"]


def test_both_built_install_each_need_once(tmp_path: Path) -> None:
    bin_dir = fake_tools(tmp_path, imports=set(), wheels=set(), python_headers=False)
    done, calls = run(tmp_path, bin_dir, leveldb_headers=False, compiler=False)
    assert done.returncode == 0, done.stderr
    assert "no wheel of plyvel and pyfarmhash for 3.99.0" in done.stderr
    assert calls[1] == "apt-get install -y -qq libleveldb-dev g++ python3-dev"

"""scripts/build_deps.sh installs LevelDB's headers and g++ only when pip will have to build plyvel."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "build_deps.sh"


def fake_tools(tmp_path: Path, *, imports: bool, wheel: bool) -> Path:
    """A directory of stand-ins: a python that can import plyvel or not and find a wheel or not, apt-get, id, g++."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    scripts = {
        "python": f"""#!/bin/sh
case "$*" in
  "-c import plyvel") exit {0 if imports else 1} ;;
  "-m pip download"*) exit {0 if wheel else 1} ;;
  *) echo 3.99.0 ;;
esac
""",
        "apt-get": f'#!/bin/sh\necho "apt-get $*" >> {log}\n',
        "id": "#!/bin/sh\necho 0\n",
        "g++": "#!/bin/sh\nexit 0\n",
    }
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return bin_dir


def run(tmp_path: Path, bin_dir: Path, header: bool) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    header_path = tmp_path / "db.h"
    if header:
        header_path.write_text("")
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "LEVELDB_HEADER": str(header_path)}
    done = subprocess.run(
        ["bash", str(SCRIPT), str(bin_dir / "python")], env=env, capture_output=True, text=True, check=False
    )
    log = tmp_path / "calls.log"
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(
    ("imports", "wheel", "header"),
    [(True, False, False), (False, True, False), (False, False, True)],
    ids=["plyvel-importable", "wheel-exists", "headers-there"],
)
def test_nothing_is_installed_when_pip_needs_nothing(tmp_path: Path, imports: bool, wheel: bool, header: bool) -> None:
    done, calls = run(tmp_path, fake_tools(tmp_path, imports=imports, wheel=wheel), header)
    assert done.returncode == 0, done.stderr
    assert calls == []


def test_headers_and_compiler_are_installed_when_plyvel_must_be_built(tmp_path: Path) -> None:
    done, calls = run(tmp_path, fake_tools(tmp_path, imports=False, wheel=False), header=False)
    assert done.returncode == 0, done.stderr
    assert "no plyvel wheel for 3.99.0" in done.stderr
    assert calls[0] == "apt-get update -qq"
    assert calls[1].startswith("apt-get install") and "libleveldb-dev" in calls[1] and "g++" in calls[1]

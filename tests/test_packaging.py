"""What ships: an sdist whose own tests run, one version, a changelog, typing, licence metadata."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import nshash

ROOT = Path(__file__).resolve().parent.parent

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli")


def pyproject() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return dict(tomllib.load(handle))


def test_one_version_source() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert "version" not in project and "version" in project["dynamic"]
    tool = pyproject()["tool"]
    assert isinstance(tool, dict)
    assert tool["setuptools"]["dynamic"]["version"] == {"attr": "nshash.__version__"}
    assert nshash.__version__.count(".") == 2


def test_changelog_has_a_section_for_the_next_or_current_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## Unreleased" in changelog or f"## {nshash.__version__}" in changelog


# Files the test suite reads besides the test modules themselves.
NEEDED = [
    "tests/conftest.py",
    "tests/fleet.py",
    "examples/data/news_sample.jsonl",
    "examples/crawler_loop.py",
    "examples/scrapy_project/scrapy.cfg",
    "examples/scrapy_project/newsdedup/settings.py",
    "examples/scrapy_project/sample_site.py",
    "benchmarks/metrics.py",
    "nshash/py.typed",
    "nshash/data/t2s.txt",
    "nshash/data/NOTICE",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
    "scripts/test.sh",
    "scripts/build_deps.sh",  # tests/test_build_deps.py runs it
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The sdist, built as pip builds it (an isolated environment with the newest setuptools), and its log."""
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("sdist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (archive,) = out.glob("nshash-*.tar.gz")
    return archive, result.stdout + result.stderr


@pytest.fixture(scope="module")
def sdist(built: tuple[Path, str]) -> Path:
    return built[0]


def test_the_build_uses_nothing_setuptools_deprecates(built: tuple[Path, str]) -> None:
    # setuptools announced that a licence given as a table stops building on 2027-02-18: every pip install
    # from the sdist would then fail.  Its deprecations are warnings until they are errors.
    log = built[1]
    assert "SetuptoolsDeprecationWarning" not in log and "is deprecated" not in log, log[-3000:]


def test_a_build_leaves_generated_headers_that_are_current_untouched() -> None:
    # Rewriting them in place, as every build did, let a build beside another (the sdist test beside
    # the sanitizer's copy of the package, under pytest -n) read a half-written header.
    headers = [ROOT / "nshash" / name for name in ("_speedups_constants.h", "_speedups_tables.h")]
    if not all(header.exists() for header in headers):
        pytest.skip("no generated headers: the accelerator was never built in this checkout")
    before = [header.stat().st_mtime_ns for header in headers]
    result = subprocess.run([sys.executable, "setup.py", "--name"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert [header.stat().st_mtime_ns for header in headers] == before
    assert not list((ROOT / "nshash").glob(".*.tmp"))


def members(archive: Path) -> set[str]:
    with tarfile.open(archive) as tar:
        return {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}


def test_the_sdist_holds_what_its_tests_need(sdist: Path) -> None:
    names = members(sdist)
    assert sdist.name == f"nshash-{nshash.__version__}.tar.gz"
    missing = [name for name in NEEDED if name not in names]
    assert not missing, f"not in the sdist: {missing}"
    tests = {f"tests/{path.name}" for path in (ROOT / "tests").glob("*.py")}
    assert tests <= names
    assert not [name for name in names if name.endswith((".so", ".pyc", ".hashdb.pkl"))]


#: What building an sdist writes that git does not track: metadata, and the headers setup.py generates.
GENERATED = {"PKG-INFO", "setup.cfg", "nshash/_speedups_constants.h", "nshash/_speedups_tables.h"}


def test_the_sdist_holds_only_what_git_tracks(sdist: Path) -> None:
    # A developer's tree holds more than the repository: benchmarks/indep/fetch_sources.sh unpacks ~550 MB of
    # Debian packages under benchmarks/ (an sdist of 518 MB and 18,803 files once, Debian's texts in it).
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0 or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = set(listed.stdout.splitlines())
    with tarfile.open(sdist) as tar:
        files = {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile() and "/" in m.name}
    files = {name for name in files if not name.startswith("nshash.egg-info/")}
    untracked = sorted(files - tracked - GENERATED)
    assert not untracked, f"in the sdist but not in git: {untracked[:20]} ({len(untracked)} in all)"


def c_sources() -> set[str]:
    """The C accelerator's sources: the .c files and every header they include, followed through headers."""
    todo = [f"nshash/{path.name}" for path in (ROOT / "nshash").glob("*.c")]
    found: set[str] = set()
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        for header in re.findall(r'^#include "([^"]+)"', (ROOT / name).read_text(encoding="utf-8"), re.MULTILINE):
            todo.append(f"nshash/{header}")
    return found


def test_the_sdist_holds_the_c_sources_and_headers(sdist: Path) -> None:
    # Without them pip builds no accelerator from the sdist (optional=True: silently pure Python).
    sources = c_sources()
    assert {"nshash/_speedups.c", "nshash/_farmhash.h", "nshash/_sentences.h"} <= sources
    missing = sorted(sources - members(sdist))
    assert not missing, f"not in the sdist: {missing}"
    assert "setup.py" in members(sdist)
    # What make_corpus.py downloads (hundreds of MB) never ships.
    assert not [name for name in members(sdist) if name.startswith(("benchmarks/.cache/", "benchmarks/data/"))]


def test_the_sdist_metadata(sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/PKG-INFO") and m.name.count("/") == 1)
        handle = tar.extractfile(member)
        assert handle is not None
        info = handle.read().decode()
    assert f"Version: {nshash.__version__}\n" in info
    assert "License-Expression: MIT\n" in info and "License-File: LICENSE\n" in info
    assert "Provides-Extra: scrapy" in info and "Provides-Extra: detect" in info
    # The core dependencies; plyvel everywhere but Windows, where it does not build.
    assert "Requires-Dist: pyfarmhash>=0.4\n" in info
    assert 'Requires-Dist: plyvel>=1.3; sys_platform != "win32"\n' in info


def test_tests_run_in_the_unpacked_sdist(sdist: Path, tmp_path: Path) -> None:
    # A few quick modules stand for the suite (the full run is in the report of the change that added this).
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path, filter="data") if sys.version_info >= (3, 12) else tar.extractall(tmp_path)
    (tree,) = tmp_path.glob("nshash-*")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_api.py", "tests/test_examples.py"],
        cwd=tree,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin:" + str(Path(sys.executable).parent), "PYTHONPATH": str(tree)},
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]

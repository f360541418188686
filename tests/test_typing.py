"""nshash is typed for its users: ``py.typed`` ships, and the README's examples pass ``mypy --strict``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# Names the README's snippets use without defining them: the user's own code.
PRELUDE = """\
from __future__ import annotations
from collections.abc import Iterator
import nshash
import pandas as pd

page_text = page = text_a = text_b = "A page."
df = pd.DataFrame()


def crawl() -> Iterator[tuple[str, str]]:
    yield "https://example.com/1", page_text


def store_page(url: str, text: str, sid: int) -> None:
    pass
"""

# Third-party libraries without types of their own (pandas-stubs is a separate install;
# distributed ships py.typed, but its Client is unannotated, so it is taken as untyped too).
CONFIG = """\
[mypy]
strict = True
cache_dir = {cache}

[mypy-pandas.*,dask.*,distributed.*]
ignore_missing_imports = True
follow_imports = skip
"""


def readme_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def run_mypy(tmp_path: Path, sources: dict[str, str]) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy")
    (tmp_path / "mypy.ini").write_text(CONFIG.format(cache=tmp_path / ".mypy_cache"), encoding="utf-8")
    for name, source in sources.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    # nshash found through PYTHONPATH is treated as an installed package: without py.typed it is skipped.
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(tmp_path / "mypy.ini"), *sorted(sources)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        timeout=600,
    )


def test_py_typed_ships() -> None:
    assert (ROOT / "nshash" / "py.typed").exists()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"py.typed"' in pyproject  # in the package data, so wheels and sdists carry it


def test_readme_examples_pass_mypy_strict(tmp_path: Path) -> None:
    blocks = readme_blocks()
    assert len(blocks) >= 5
    sources = {f"readme_{n}.py": PRELUDE + "\n" + block for n, block in enumerate(blocks)}
    # What the types promise, checked the same way: list in, list of ints out; Series in, Series out.
    sources["promises.py"] = PRELUDE + (
        "from typing import Optional\n"
        "ids: list[int] = nshash.similar_ids(['a', 'b'])\n"
        "holes: list[Optional[int]] = nshash.similar_ids(['a', None])\n"
        "strict: list[int] = nshash.similar_ids(['a'], na='raise')\n"
        "one: int = nshash.NSHash().get_similar(b'bytes too')\n"
    )
    result = run_mypy(tmp_path, sources)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_type_error_in_user_code_is_caught(tmp_path: Path) -> None:
    # The check above is worth something only if nshash's types reach the user's script.
    result = run_mypy(
        tmp_path,
        {
            "wrong.py": "import nshash\n"
            "sid: str = nshash.NSHash().get_similar('x')\n"
            "ids: list[int] = nshash.similar_ids(['a', None])\n"
        },
    )
    assert result.returncode == 1
    assert 'Incompatible types in assignment (expression has type "int", variable has type "str")' in result.stdout
    assert 'expression has type "list[int | None]", variable has type "list[int]"' in result.stdout

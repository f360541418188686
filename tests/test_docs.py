"""The documentation site's code runs: each page's ```python blocks, in order, in an empty directory.

A block that cannot run on a test machine (a Redis server, a Dask cluster,
your crawler) starts with ``# not run: <why>``; it is still compiled.  The
site itself is built by ``mkdocs build --strict`` in ``scripts/test.sh``.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
# A fence may be indented (inside a list item); its closing fence has the same indentation.
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.S | re.M)
NOT_RUN = re.compile(r"#\s*not run:\s*(?P<why>\S.*)")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number, code)`` of each ```python block of a page."""
    blocks = []
    for match in FENCE.finditer(text):
        info = match["info"].strip().split()
        if info and info[0] in ("python", "py"):
            line = text.count("\n", 0, match.start()) + 2
            blocks.append((line, textwrap.dedent(match["body"])))
    return blocks


def skip_reason(code: str) -> str | None:
    """The reason a block is marked not to run (its first line), or ``None``."""
    first = code.lstrip("\n").splitlines()[0] if code.strip() else ""
    marked = NOT_RUN.fullmatch(first.strip())
    return marked["why"] if marked else None


def test_the_block_finder_sees_every_kind_of_block() -> None:
    page = "```python\na = 1\n```\n\n* item\n\n    ```python\n    b = a + 1\n    ```\n\n```bash\nls\n```\n"
    assert python_blocks(page) == [(2, "a = 1\n"), (8, "b = a + 1\n")]
    assert skip_reason("# not run: needs a Redis server\nx = 1\n") == "needs a Redis server"
    assert skip_reason("# a comment\nx = 1\n") is None
    assert skip_reason("# not run:\nx = 1\n") is None  # a reason is required


def test_every_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert PAGES, "no docs/*.md"
    for page in PAGES:
        assert f": {page.name}" in nav, f"{page.name} is not in mkdocs.yml's nav"


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_page_code_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    ran = 0
    try:
        for line, code in blocks:
            where = f"{page.relative_to(ROOT)}:{line}"
            compiled = compile(code, where, "exec")
            if skip_reason(code) is not None:
                continue
            exec(compiled, namespace)  # the page's blocks share one namespace, like a reader's session
            ran += 1
    finally:
        # Indexes a page left open are closed here, so their files and locks go with tmp_path.
        for value in namespace.values():
            close = getattr(value, "close", None)
            if callable(close) and type(value).__module__.startswith("nshash"):
                close()
    marked = [line for line, code in blocks if skip_reason(code) is not None]
    assert ran or not blocks, f"every block of {page.name} is marked not to run ({marked})"

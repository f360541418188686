"""The independent corpus's table in README.md and docs/benchmarks.md is the committed run's means."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "indep" / "quality.json"
# The table's row names -> run_quality's method names.
METHODS = {
    "**nshash**": "nshash",
    "nshash.Shingles": "nshash.Shingles",
    "nshash.SimHash": "nshash.SimHash",
    "datasketch MinHashLSH": "datasketch-lsh",
    "rensa": "rensa-lsh",
    "PyPI simhash": "simhash",
    "original 2019 nshash": "original",
}


def means() -> dict[tuple[str, str], list[str]]:
    """``(method, lang)`` -> P, R, F1 averaged over the seeds, as the tables print them."""
    results = json.loads(RESULTS.read_text(encoding="utf-8"))["results"]
    rows: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for r in results:
        rows.setdefault((r["method"], r["lang"]), []).append((r["precision"], r["recall"], r["f1"]))
    return {key: [f"{sum(v[i] for v in vals) / len(vals):.3f}" for i in range(3)] for key, vals in rows.items()}


def table_rows(page: Path) -> list[tuple[str, list[str], list[str]]]:
    text = page.read_text(encoding="utf-8")
    section = text[text.index("**A corpus built by someone else.**") :]
    table = section[section.index("| method | zh P / R / F1") :]
    out = []
    for line in table[: table.index("\n\n")].splitlines()[2:]:  # past the header and its rule
        name, zh, en = (cell.strip() for cell in line.strip("|").split("|"))
        numbers = [re.findall(r"\d\.\d{3}", cell) for cell in (zh, en)]
        out.append((name, numbers[0], numbers[1]))
    return out


@pytest.mark.parametrize("page", ["README.md", "docs/benchmarks.md"])
def test_indep_table_is_the_committed_runs_means(page: str) -> None:
    computed = means()
    rows = table_rows(ROOT / page)
    assert len(rows) >= 4
    for name, zh, en in rows:
        method = next(m for label, m in METHODS.items() if name.startswith(label))
        assert zh == computed[method, "zh"], (page, name)
        assert en == computed[method, "en"], (page, name)
    # Online and batch decide alike on every seed (the table's first row says so).
    assert computed["nshash-batch", "zh"] == computed["nshash", "zh"]
    assert computed["nshash-batch", "en"] == computed["nshash", "en"]

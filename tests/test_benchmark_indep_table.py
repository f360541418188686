"""The independent corpus's tables in README.md and docs/benchmarks.md are the committed runs' means."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
#: The tables' sections (their first words) -> the run each gives the means of.
SECTIONS = {
    "**A corpus built by someone else.**": RESULTS / "indep" / "quality.json",
    "**The same simulation over real articles.**": RESULTS / "indep-real" / "quality.json",
    "**Books no rule was checked on.**": RESULTS / "indep-heldout" / "quality.json",
}
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


def means(run: Path) -> dict[tuple[str, str], list[str]]:
    """``(method, lang)`` -> P, R, F1 averaged over the seeds of ``run``, as the tables print them."""
    results = json.loads(run.read_text(encoding="utf-8"))["results"]
    rows: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for r in results:
        rows.setdefault((r["method"], r["lang"]), []).append((r["precision"], r["recall"], r["f1"]))
    return {key: [f"{sum(v[i] for v in vals) / len(vals):.3f}" for i in range(3)] for key, vals in rows.items()}


def table_rows(page: Path, section_start: str) -> list[tuple[str, list[str], list[str]]]:
    text = page.read_text(encoding="utf-8")
    section = text[text.index(section_start) :]
    table = section[section.index("| method | zh P / R / F1") :]
    out = []
    for line in table[: table.index("\n\n")].splitlines()[2:]:  # past the header and its rule
        name, zh, en = (cell.strip() for cell in line.strip("|").split("|"))
        numbers = [re.findall(r"\d\.\d{3}", cell) for cell in (zh, en)]
        out.append((name, numbers[0], numbers[1]))
    return out


@pytest.mark.parametrize("section", list(SECTIONS))
@pytest.mark.parametrize("page", ["README.md", "docs/benchmarks.md"])
def test_indep_table_is_the_committed_runs_means(page: str, section: str) -> None:
    computed = means(SECTIONS[section])
    rows = table_rows(ROOT / page, section)
    assert len(rows) >= 4
    for name, zh, en in rows:
        method = next(m for label, m in METHODS.items() if name.startswith(label))
        assert zh == computed[method, "zh"], (page, name)
        assert en == computed[method, "en"], (page, name)
    # Online and batch decide alike on every seed (the table's first row says so).
    assert computed["nshash-batch", "zh"] == computed["nshash", "zh"]
    assert computed["nshash-batch", "en"] == computed["nshash", "en"]


def test_errors_count_false_pairs_by_manual_and_misses_by_length(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from run_indep_errors import errors, length_bucket

    story = "这是一篇足够长的文章，讲述了一个完整的故事，里面有很多句子。第二句话也很长，而且内容和第一句完全不同。"
    other = "另一篇文章说的是别的事情，它的句子和前一篇没有任何相同的地方。它还有第二句话，也同样足够长。"
    rows = [  # (label, manual, text): a copy of A, a page of B that is A's text word for word, a lone C
        ("A", "m1", story),
        ("A", "m1", "记者 张三\n" + story),
        ("B", "m1", story),
        ("C", "m2", other),
    ]
    seed = tmp_path / "seed1"
    seed.mkdir()
    with (seed / "zh.jsonl").open("w", encoding="utf-8") as f, (seed / "zh.meta.jsonl").open("w") as m:
        for i, (label, manual, text) in enumerate(rows):
            f.write(json.dumps({"id": i, "label": label, "text": text, "site": "s", "kind": "source"}) + "\n")
            m.write(json.dumps({"id": i, "edits": [], "article_chars": len(text), "group": manual}) + "\n")
    found = errors(seed / "zh.jsonl")
    assert found["file"] == "seed1/zh.jsonl"
    # A, A and B in one cluster: B with each A is a false pair, both within manual m1.
    assert (found["false_pairs_within_manual"], found["false_pairs_across_manuals"]) == (2, 0)
    assert found["by_manual"] == {"m1": 2}
    assert found["biggest_mixed_cluster"] == {"false_pairs": 2, "pages": 3, "labels": 2}
    assert found["copies_by_length"] == {length_bucket(len(rows[1][2])): 1}
    assert found["missed_by_length"] == {length_bucket(len(rows[1][2])): 0}
    assert [length_bucket(n) for n in (0, 149, 150, 999, 1000)] == ["0-149", "0-149", "150-299", "600-999", "1000+"]

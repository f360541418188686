"""Corpus v2 (benchmarks/corpus): deterministic, and its hard cases are present with the right labels.

Runs on made-up articles, so it needs neither the Debian packages nor the
generated files.
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from corpus import assemble, hard, pool, t2s
from corpus.build import _sites
from corpus.sources import Article

TEMPLATE = "To access this command, open the Tools menu and choose the Options entry of the dialog that appears."


def _articles(n: int = 60) -> list[Article]:
    rng = random.Random(7)
    words = "package system kernel mirror archive install option network device driver user file".split()
    out = []
    for i in range(n):
        paras = []
        for j in range(4):
            sent = [
                " ".join(rng.choice(words) for _ in range(14)).capitalize() + f" item {i} part {j}." for _ in range(3)
            ]
            paras.append(" ".join(sent))
        if i % 3 == 0:  # templated help pages: a shared long sentence
            paras.insert(1, TEMPLATE)
        out.append(Article("en", "pkg", f"page{i}.html", f"g{i // 10}", f"Title number {i}", paras))
    return out


def _rows(seed: int = 3) -> list[dict[str, object]]:
    arts = _articles()
    sites = _sites(seed)[("en", "tune")]
    hard.add_habits(sites, random.Random(f"{seed}:habits"))
    sib = {k for k, v in pool.siblings(arts).items() if v}
    records, _ = assemble.simulate_v2("en", arts, sites, random.Random(seed), sib, pool.key)
    return assemble.to_rows(records, "t", cases=True)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    return _rows()


def test_same_seed_same_rows_other_seed_other_rows(rows: list[dict[str, object]]) -> None:
    assert _rows() == rows
    assert _rows(4) != rows


def test_clusters_mostly_small(rows: list[dict[str, object]]) -> None:
    sizes = defaultdict(int)
    for r in rows:
        sizes[r["label"]] += 1
    assert max(sizes.values()) <= 10
    assert sum(s <= 8 for s in sizes.values()) / len(sizes) > 0.95


def test_siblings_are_different_labels_sharing_a_sentence(rows: list[dict[str, object]]) -> None:
    sources = [r for r in rows if r["kind"] == "source" and TEMPLATE in str(r["text"])]
    assert len({r["label"] for r in sources}) == len(sources) >= 10
    assert all("sibling" in r["cases"] for r in sources)


def test_early_copies_arrive_before_their_source(rows: list[dict[str, object]]) -> None:
    first = {}
    for r in rows:
        first.setdefault(r["label"], r)
    early = [r for r in rows if "early" in r["cases"]]
    assert early
    assert any(first[r["label"]]["kind"] == "reprint" for r in early)


def test_revisions_keep_label_and_site_and_differ_a_little(rows: list[dict[str, object]]) -> None:
    src = {r["label"]: r for r in rows if r["kind"] == "source"}
    revs = [r for r in rows if r["kind"] == "revision"]
    assert revs
    for r in revs:
        assert r["site"] == src[r["label"]]["site"]
        assert "revision" in r["cases"]


def test_hard_edits_and_site_habits_are_present(rows: list[dict[str, object]]) -> None:
    seen = {c for r in rows for c in r["cases"]}
    assert {"heavy_edits", "foreign_paragraph", "wrap", "join_paragraphs", "revision", "early", "sibling"} <= seen
    assert {"shared_boilerplate", "glued_site", "related_titles", "site_wrap"} <= seen


def test_shared_notices_are_verbatim_on_several_sites(rows: list[dict[str, object]]) -> None:
    sites_with = defaultdict(set)
    for r in rows:
        for text in hard.SHARED_BOILERPLATE["en"]:
            if text in str(r["text"]):
                sites_with[text].add(r["site"])
    assert max(len(s) for s in sites_with.values()) >= 2


def test_foreign_paragraph_keeps_host_label() -> None:
    page = assemble.Page("en", "t", ["a" * 400, "b" * 400])
    ctx = hard.HardContext("s", "d", (), foreign=("x" * 300, "y" * 900))
    hard.foreign_paragraph(page, random.Random(1), ctx)
    assert "x" * 300 in page.paras and "y" * 900 not in page.paras  # never more than half the host


def test_wrap_breaks_lines_at_width() -> None:
    lines = hard.wrap_lines(["word " * 60], "en", 60, blank=False)
    assert len(lines) > 3 and all(len(x) <= 60 for x in lines)
    zh = hard.wrap_lines(["字" * 100], "zh", 70, blank=False)
    assert [len(x) for x in zh] == [35, 35, 30]


def test_heavy_edits_keep_most_sentences() -> None:
    page = assemble.Page("en", "t", [" ".join(f"Sentence number {i} is here." for i in range(20))])
    hard.heavy_edits(page, random.Random(2), hard.HardContext("s", "d", ()))
    kept = len(hard.split_sentences(page.paras[0]))
    assert 13 <= kept <= 18


def test_dedupe_v2_keeps_siblings_drops_near_copies() -> None:
    arts = _articles(12)
    copy = Article("en", "pkg", "copy.html", "gx", "Copy", [*arts[1].paras, "One more short line."])
    kept = pool.dedupe([*arts, copy], containment=pool.CONTAINMENT_V2, shared_sentences=None)
    assert [a.path for a in kept] == [a.path for a in arts]
    # v1 drops an article only at 3+ shared long sentences; one shared template line is kept by both.
    assert len(pool.dedupe(_articles(12))) == 12


def test_t2s_copies_are_traditional_and_same_label() -> None:
    pytest.importorskip("opencc")
    convert = t2s.converters()
    arts = [
        Article("zh", "pkg", f"p{i}", "g", f"软件包管理{i}", [f"这个软件包管理系统的默认设置第{i}项会被删除。" * 4])
        for i in range(30)
    ]
    sites = _sites(3)[("zh", "heldout")]
    records, counts = t2s.simulate_t2s(arts, sites, random.Random(1), pool.key, convert)
    assert counts["s2t"] + counts["s2tw"] + counts["s2twp"] > 0
    for r in records:
        if any(c.startswith("t2s:") for c in r.cases):
            assert "軟" in r.text and "软" not in r.text
            assert any(o.cluster == r.cluster and o.kind == "source" and "软" in o.text for o in records)


def test_the_corpus_script_runs_from_any_directory_without_a_path_hack(tmp_path: Path) -> None:
    # benchmarks/make_corpus.py once shared its name with the corpus/ package
    # next to it and had to put its directory first on sys.path.
    import subprocess

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "make_corpus.py"
    assert "sys.path" not in script.read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "--sample" in done.stdout

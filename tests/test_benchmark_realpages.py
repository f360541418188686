"""benchmarks/run_realpages.py and run_sample.py: the loader's pairing of forms, the per-site and per-form-pair
counts, the skip without data, and the sample helpers."""

from __future__ import annotations

import gzip
import json
import random
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import run_realpages as rp
import run_sample as rs


def _write(folder: Path) -> None:
    pages = [
        {"id": "a", "site": "x.com", "cluster": "a", "forms": {"full": "A full", "main": "A main", "traf": "A traf"}},
        {"id": "b", "site": "x.com", "cluster": "b", "forms": {"full": "B full", "traf": "B traf"}},
        {"id": "c", "site": "y.com", "cluster": "a", "forms": {"full": "C full", "traf": ""}},
    ]
    with gzip.open(folder / "pages.jsonl.gz", "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(p) + "\n" for p in pages)
    with gzip.open(folder / "html.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": "b", "html": "<p>B</p>"}) + "\n")


def test_loader_joins_html_as_a_form(tmp_path: Path) -> None:
    _write(tmp_path)
    pages = rp.load_pages(tmp_path)
    docs = rp.form_docs(pages, rp.ALL_FORMS)
    assert [(d.page, d.form) for d in docs] == [
        ("a", "full"), ("a", "main"), ("a", "traf"), ("b", "full"), ("b", "traf"), ("b", "html"), ("c", "full"),
    ]  # fmt: skip
    assert {d.cluster for d in docs if d.page == "c"} == {"a"}  # a shared cluster label is kept
    assert len(rp.form_docs(rp.load_pages(tmp_path, limit=1), rp.ALL_FORMS)) == 3


def test_form_pair_recall_counts_pages_with_both_forms(tmp_path: Path) -> None:
    _write(tmp_path)
    docs = rp.form_docs(rp.load_pages(tmp_path), rp.ALL_FORMS)
    pred = [1, 1, 2, 3, 3, 4, 5]
    assert rp.form_pair_recall(docs, pred, "main", "full") == (1, 1)
    assert rp.form_pair_recall(docs, pred, "traf", "full") == (1, 2)
    assert rp.form_pair_recall(docs, pred, "html", "full") == (0, 1)


def test_site_pairs_counts_false_pairs_within_sites(tmp_path: Path) -> None:
    _write(tmp_path)
    docs = rp.form_docs(rp.load_pages(tmp_path), ("full",))
    assert rp.site_pairs(docs, [1, 1, 1]) == {"x.com": {"pages": 2, "pred_pairs": 1, "false_pairs": 1}}
    assert rp.site_pairs(docs, [1, 2, 1])["x.com"]["false_pairs"] == 0


def test_orders_are_seeded(tmp_path: Path) -> None:
    _write(tmp_path)
    docs = rp.form_docs(rp.load_pages(tmp_path), rp.ALL_FORMS)
    assert rp.shuffled(docs, 1) == rp.shuffled(docs, 1)
    assert sorted(rp.shuffled(docs, 2), key=docs.index) == docs


def test_scores_one_method_on_tiny_pages(tmp_path: Path) -> None:
    _write(tmp_path)
    res = rp.score_method(rp.build_methods(["original"])[0], rp.load_pages(tmp_path), [1, 2])
    assert len(res["seeds"]) == 2
    assert set(res["mean"]) >= {"all", "text", "full", "same_site_precision", "recall main-full"}


def test_main_transforms_every_form_and_names_its_report_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path)
    out = tmp_path / "out"
    name = "every page's lines joined"
    seen: list[tuple[str, str]] = []
    monkeypatch.setitem(rp.TRANSFORMS, name, lambda text, site: seen.append((text, site)) or text.upper())
    assert (
        rp.main(
            ["--data", str(tmp_path), "--methods", "original", "--seeds", "1", "--out", str(out), "--transform", name]
        )
        == 0
    )
    report = json.loads((out / "every-page-s-lines-joined.json").read_text(encoding="utf-8"))
    assert report["transform"] == name
    assert f"every form transformed: {name}" in (out / "every-page-s-lines-joined.md").read_text(encoding="utf-8")
    assert not (out / "realpages.md").exists()
    forms = {"x.com": ["A full", "A main", "A traf", "B full", "B traf", "<p>B</p>"], "y.com": ["C full"]}
    assert sorted(seen) == sorted((text, site) for site, texts in forms.items() for text in texts)  # every form


def test_main_skips_without_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rp.main(["--data", str(tmp_path / "absent"), "--out", str(tmp_path / "out")]) == 0
    assert "skipped" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not (rp.DEFAULT_DATA / "pages.jsonl.gz").exists(), reason="no ../shared/data/realpages")
def test_real_pages_load_with_their_forms() -> None:
    pages = rp.load_pages(rp.DEFAULT_DATA, limit=40)
    forms = {d.form for d in rp.form_docs(pages, rp.ALL_FORMS)}
    assert {"full", "traf"} <= forms
    assert all(p["site"] and p["cluster"] for p in pages)


def test_popular_copies_are_unique_and_labelled() -> None:
    texts, labels = rs.popular(["alpha beta gamma", "delta epsilon"], ["x", "y"], 10, 1)
    assert len(texts) == 10 and len(set(texts)) == 10
    assert labels == ["x", "y"] * 5
    assert rs.char_edits("abcdef", 3, random.Random(1)) != "abcdef"


def test_sample_loader_joins_title_and_content(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps({"id": 1, "title": "T2", "content": "c2", "label": "b"}) + "\n"
        + json.dumps({"id": 0, "title": "T1", "content": "c1", "label": "a"}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    assert rs.load_sample(path) == (["T1\nc1", "T2\nc2"], ["a", "b"])


def test_markdown_forms_and_scores_on_tiny_pages(tmp_path: Path) -> None:
    pytest.importorskip("html2text")
    import run_markdown as rm

    _write(tmp_path)
    with gzip.open(tmp_path / "html.jsonl.gz", "wt", encoding="utf-8") as f:
        for page, body in (("a", "<p>A <a href='https://x.com/a'>main</a></p>"), ("b", "<p><b>B</b></p>")):
            f.write(json.dumps({"id": page, "html": f"<html><body>{body}</body></html>"}) + "\n")
    pages = rm.markdown_pages(rp.load_pages(tmp_path))
    assert [p["id"] for p in pages] == ["a", "b"]  # only the pages with raw HTML
    assert "[main](https://x.com/a)" in pages[0]["forms"]["md"] and "**B**" in pages[1]["forms"]["md78"]
    res = rm.score_method(rp.build_methods(["original"])[0], pages, [1, 2])
    assert {"all f1", "wrapped f1", "full+md f1", "md-full", "md78-main", "full+md same-site precision"} <= set(
        res["mean"]
    )
    if shutil.which("lynx"):  # lynx -dump's text: its feeds too
        assert "lynx" in pages[0]["forms"] and {"lynx f1", "lynx-full", "full+lynx same-site precision"} <= set(
            res["mean"]
        )
    assert len(rm.row(res)) == len(rm.COLUMNS)


def test_lynx_dumps_of_one_page_are_the_same() -> None:
    import run_markdown as rm

    if not shutil.which("lynx"):
        pytest.skip("lynx is not installed")
    page = "<html><body><p>Text and <a href='#comments'>relative</a> <a href='other.html'>links</a>.</p></body></html>"
    first = rm.to_lynx(page)
    assert first is not None and "file:///page.html#comments" in first and "file:///other.html" in first
    assert first == rm.to_lynx(page)  # lynx's temporary file and folder get new names each run


def test_markdown_skips_without_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("html2text")
    import run_markdown as rm

    assert rm.main(["--data", str(tmp_path / "absent"), "--out", str(tmp_path / "out")]) == 0
    assert "skipped" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()

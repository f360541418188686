"""benchmarks/indep: the independent corpus generator labels, orders and reproduces its pages (no downloads)."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "indep"))

import sources
from simulate import Simulated, simulate
from sources import drop_near_copies, en_articles, zh_articles

INDEP = Path(__file__).resolve().parent.parent / "benchmarks" / "indep"


def _load_build() -> Any:
    # Loaded under its own name: "build" is also the PyPA package.
    spec = importlib.util.spec_from_file_location("indep_build", INDEP / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load_build()

ZH_SHARED = "请注意，本游戏的计分规则与其他纸牌游戏的计分规则完全相同。"
EN_SHARED = "Note that the scoring rules of this game are exactly the same as those of the other games."
ZH_SENTENCES = [
    "在窗口左上角单击菜单按钮，然后选择首选项，就可以打开设置对话框。",
    "如果您想更改显示的字体大小，可以在外观页面中选择新的字号。",
    "系统会自动保存所有更改，因此您不需要手动单击保存按钮。",
    "电路板的每一层都可以在图层管理器中单独显示或者隐藏。",
    "在星空视图中拖动鼠标，可以旋转天空并查看不同方向的星座。",
    "乐谱中的每个音符都由音高和时值两个基本属性来确定。",
    "使用键盘快捷键可以更快地完成常见的编辑操作，例如复制和粘贴。",
    "打印之前请先预览页面，确认页边距和纸张方向都设置正确。",
]
EN_SENTENCES = [
    "Click the menu button in the top-left corner of the window and choose Preferences to open the settings.",
    "If you want to change the size of the text, select a new font size on the Appearance page of the dialog.",
    "The application saves every change automatically, so you never need to press a Save button yourself.",
    "Each layer of the board can be shown or hidden on its own from the layer manager on the right side.",
    "A transaction groups several statements into a single step that either happens completely or not at all.",
    "Regular expressions describe patterns of text, and Perl makes it easy to match them against strings.",
    "Every commit records a snapshot of the project together with the name of its author and a short message.",
    "Before printing a document, preview the pages to check that the margins and the orientation are right.",
]


def _mark(sentence: str, i: int, zh: bool) -> str:
    """The sentence made article ``i``'s own: no two articles share it."""
    return f"第{i}章：{sentence}" if zh else f"In chapter {i}, {sentence[0].lower()}{sentence[1:]}"


def _articles(zh: bool) -> list[dict[str, Any]]:
    """Six made-up articles: three of group 'tpl' share a sentence (templated siblings), three of 'other' do not.

    Each has a distinct length, so a page's ``article_chars`` names its article.
    """
    sentences, shared, tail = (ZH_SENTENCES, ZH_SHARED, "详见附录。") if zh else (EN_SENTENCES, EN_SHARED, "See below.")
    sep = "" if zh else " "
    arts = []
    for i in range(6):
        group = "tpl" if i < 3 else "other"
        own = [_mark(sentences[(i + k) % len(sentences)], i, zh) for k in (0, 1, 2, 4, 5)]
        paras = [sep.join(own[:2]), sep.join([own[2], *([shared] if group == "tpl" else [])]), sep.join(own[3:])]
        paras[-1] += sep + sep.join([tail] * (i + 1))
        if zh and i == 5:
            paras = [own[0]]  # a short page (< 150 chars)
        arts.append({"title": f"Article {i}", "paras": paras, "group": group, "src": f"f{i}"})
    assert len({sum(map(len, a["paras"])) for a in arts}) == 6
    return arts


def _run(lang: str, seed: int = 1, n_sites: int = 8) -> Simulated:
    return simulate(lang, _articles(lang == "zh"), seed, 6, n_sites)


def _dump(sim: Simulated) -> str:
    return json.dumps([sim.docs, sim.metas], ensure_ascii=False)


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_ids_are_the_arrival_order_and_records_have_their_fields(lang: str) -> None:
    sim = _run(lang)
    assert [d["id"] for d in sim.docs] == list(range(len(sim.docs)))
    assert [m["id"] for m in sim.metas] == list(range(len(sim.docs)))
    for d, m in zip(sim.docs, sim.metas):
        assert list(d) == ["id", "label", "text", "site", "kind"]
        assert list(m) == ["id", "edits", "article_chars", "group"]
        assert d["kind"] in ("source", "sibling", "reprint", "revision")
        assert d["text"].strip() and d["site"].startswith("www.")
        assert d["label"].startswith(f"{lang}-1-")


def test_a_label_is_one_article_with_one_first_publication(lang: str) -> None:
    sim = _run(lang)
    articles_of = defaultdict(set)
    kinds = defaultdict(Counter)
    for d, m in zip(sim.docs, sim.metas):
        articles_of[d["label"]].add((m["article_chars"], m["group"]))
        kinds[d["label"]][d["kind"]] += 1
    assert len(articles_of) == sim.articles == 6
    assert all(len(a) == 1 for a in articles_of.values())
    # Distinct labels are distinct articles: templated siblings are not merged with their mates.
    assert len({next(iter(a)) for a in articles_of.values()}) == 6
    for k in kinds.values():
        assert k["source"] + k["sibling"] == 1
        assert k["revision"] <= 2
        assert 1 <= sum(k.values()) <= 15


def test_revisions_follow_their_source_on_the_same_site(lang: str) -> None:
    checked = 0
    for seed in range(1, 4):
        sim = _run(lang, seed)
        first = {d["label"]: d for d in sim.docs if d["kind"] in ("source", "sibling")}
        revisions = [d for d in sim.docs if d["kind"] == "revision"]
        for d in revisions:
            assert d["id"] > first[d["label"]]["id"] and d["site"] == first[d["label"]]["site"]
        checked += len(revisions)
    assert checked > 0  # the seeds draw revisions: the loop above is not empty


def test_edits_are_recorded_for_copies_only(lang: str) -> None:
    sim = _run(lang)
    for d, m in zip(sim.docs, sim.metas):
        if d["kind"] in ("source", "sibling"):
            assert m["edits"] == []
        elif d["kind"] == "reprint":
            assert sum(e.startswith("intensity_") for e in m["edits"]) == 1, m["edits"]
        else:
            assert m["edits"] and all(e.startswith("rev_") for e in m["edits"])
    assert sim.log["reprints"] == sum(d["kind"] == "reprint" for d in sim.docs)


def test_only_templated_articles_become_siblings(lang: str) -> None:
    siblings = Counter()
    for seed in range(1, 6):
        sim = _run(lang, seed, n_sites=4)
        for d, m in zip(sim.docs, sim.metas):
            if d["kind"] == "sibling":
                siblings[m["group"]] += 1
    assert siblings["tpl"] > 0
    assert siblings["other"] == 0


def test_same_seed_same_output_other_seed_differs(lang: str) -> None:
    assert _dump(_run(lang, 1)) == _dump(_run(lang, 1))
    assert _dump(_run(lang, 1)) != _dump(_run(lang, 2))


def test_output_is_pinned() -> None:
    """An accidental change of the random draws (or of any edit) fails here, not silently in the corpus.

    The generator as first written (before it was split into modules) gives the same digests.
    """
    digests = {lang: hashlib.sha256(_dump(_run(lang)).encode()).hexdigest()[:16] for lang in ("zh", "en")}
    assert digests == {"zh": "5acb5c4d9d8a97a9", "en": "0e8177cefd1f1ab7"}


def test_too_few_sites_is_refused() -> None:
    with pytest.raises(ValueError, match="n_sites"):
        simulate("en", _articles(False), 1, 6, 3)


def test_near_copies_are_dropped_templated_siblings_kept() -> None:
    arts = _articles(False)
    copy = dict(arts[4], paras=[*arts[4]["paras"][:-1], arts[4]["paras"][-1] + " Yes."])
    kept = drop_near_copies([*arts, copy])
    assert kept == arts


def _mallard(article: dict[str, Any]) -> str:
    body = "".join(f"<p>{p}</p>" for p in article["paras"])
    return f'<page xmlns="http://projectmallard.org/1.0/"><info/><title>{article["title"]}</title>{body}</page>'


def test_build_writes_the_four_files_from_a_source_tree(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for lang_dir, zh in (("zh_CN", True), ("C", False)):
        for i, article in enumerate(_articles(zh)):
            page = src / "usr/share/help" / lang_dir / f"app{i % 2}" / f"p{i}.page"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(_mallard(article), encoding="utf-8")
    assert len(zh_articles(str(src))) == 5  # the short page is below the 70 chars of a Chinese article
    assert len(en_articles(str(src))) == 6
    out = tmp_path / "out"
    stats = build.build(str(src), 1, str(out))
    for name in ("zh", "en", "zh-small", "en-small"):
        docs = [json.loads(line) for line in (out / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
        metas = (out / f"{name}.meta.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(docs) == len(metas) == stats[name]["docs"]
        assert len({d["label"] for d in docs}) == stats[name]["clusters"] == stats[name]["articles"]
    assert json.loads((out / "stats.json").read_text(encoding="utf-8")) == json.loads(json.dumps(stats))


def _handbook(article: dict[str, Any]) -> str:
    """An article as a page of the Debian Administrator's Handbook: Publican's ``<div class="para">``."""
    paras = "".join(f'<div class="para">\n{p}\n</div>' for p in article["paras"])
    return f'<html><body><div class="section"><h2 class="title">{article["title"]}</h2>{paras}</div></body></html>'


def test_heldout_books_give_their_own_pool_and_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    books = {
        ("zh", "handbook"): "usr/share/doc/debian-handbook/html/zh-CN/sect.p{i}.html",
        ("zh", "reference"): "usr/share/doc/debian-reference-zh-cn/docs/ch0{i}.zh-cn.html",
        ("en", "handbook"): "usr/share/doc/debian-handbook/html/en-US/sect.p{i}.html",
        ("en", "reference"): "usr/share/doc/debian-reference-en/docs/ch0{i}.en.html",
    }
    for (lang, book), pattern in books.items():
        for i, article in enumerate(_articles(lang == "zh")):
            if (i % 2 == 0) != (book == "handbook"):
                continue  # half the articles in each book
            page = src / pattern.format(i=i)
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(_handbook(article), encoding="utf-8")
    zh, en = (articles(str(src)) for articles in sources.SOURCE_SETS["heldout"])
    assert {a["group"] for a in zh} == {a["group"] for a in en} == {"handbook", "reference"}  # a book a manual
    assert len(zh) == 5 and len(en) == 6  # the short zh article is below 70 characters, as in the default pool
    assert zh_articles(str(src)) == en_articles(str(src)) == []  # the default pool reads none of it
    stats = build.build(str(src), 1, str(tmp_path / "out"), sources="heldout")
    assert stats["pool_articles"] == {"zh": 5, "en": 6}
    assert sorted(p.name for p in (tmp_path / "out").glob("*.jsonl")) == [
        "en.jsonl",
        "en.meta.jsonl",
        "zh.jsonl",
        "zh.meta.jsonl",
    ]
    assert stats["zh"]["clusters"] == 5 and stats["en"]["clusters"] == 6  # every article of the pool once


ROFF = """.\\" a comment: no text
.de XX
\\$1 is a macro's body, no text
..
.TH LS 1 2022 "GNU coreutils"
.SH NAME
ls \\- list directory contents
.SH SYNOPSIS
.B ls
[\\fIOPTION\\fR]...
.SH DESCRIPTION
.PP
List information about the \\fBFILEs\\fP (the current
directory by default).
.TP
.BR \\-a ", " \\-\\-all
do not ignore entries starting with \\(aq.\\(aq
.nf
int main(void);
.fi
.TS
l l.
a	b
.TE
.PP
Exit status is 0 if OK.
"""


def test_a_man_page_gives_its_filled_text_titled_by_its_name_line() -> None:
    from manpages import man_paras

    title, paras = man_paras(ROFF, "en")
    assert title == "ls - list directory contents"
    assert paras == [
        "List information about the FILEs (the current directory by default).",
        "-a, --all do not ignore entries starting with '.'",  # a tagged paragraph: its tag and text
        "Exit status is 0 if OK.",
    ]  # no comment, macro body, synopsis, code or table
    _, zh = man_paras(".SH 描述\n.PP\n列出指定文件的\n信息。\n", "zh")
    assert zh == ["列出指定文件的信息。"]  # a line break between two CJK characters is no space


def test_man_pages_give_one_article_a_page_each_section_a_manual(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for lang, where in (("zh", "usr/share/man/zh_CN/man{s}/p{i}.{s}.gz"), ("en", "usr/share/man/man{s}/p{i}.{s}.gz")):
        for i, article in enumerate(_articles(lang == "zh")):
            section = 2 if i % 2 else 7
            page = src / where.format(s=section, i=i)
            page.parent.mkdir(parents=True, exist_ok=True)
            roff = f".TH P{i} {section}\n.SH NAME\n{article['title']}\n.SH DESCRIPTION\n"
            page.write_bytes(gzip.compress((roff + "".join(f".PP\n{p}\n" for p in article["paras"])).encode()))
        alias = src / where.format(s=2, i=99)
        alias.write_bytes(gzip.compress(b".so man2/p1.2\n"))  # points at another page: no article
    zh, en = (articles(str(src)) for articles in sources.SOURCE_SETS["manpages"])
    assert len(zh) == 5 and len(en) == 6  # the short zh article is below 70 characters, as in the other pools
    assert {a["group"] for a in zh} == {"zh-man2", "zh-man7"} and {a["group"] for a in en} == {"en-man2", "en-man7"}
    assert sorted(a["title"] for a in en) == sorted(a["title"] for a in _articles(False))
    assert zh_articles(str(src)) == en_articles(str(src)) == []  # the default pool reads none of it
    stats = build.build(str(src), 1, str(tmp_path / "out"), sources="manpages")
    assert stats["pool_articles"] == {"zh": 5, "en": 6}


def test_traditional_mirrors_convert_half_the_later_pages_never_the_first() -> None:
    pytest.importorskip("opencc")
    from traditional import traditional_mirrors

    sim = _run("zh", seed=3)
    docs, metas = traditional_mirrors(sim.docs, sim.metas, seed=3)
    assert [d["id"] for d in docs] == [d["id"] for d in sim.docs] and docs is not sim.docs
    first: set[str] = set()
    converted = later = 0
    for before, after, meta in zip(sim.docs, docs, metas):
        if before["label"] not in first:
            first.add(before["label"])
            assert after == before and "traditional" not in meta
            continue
        later += 1
        if "traditional" in meta:
            converted += 1
            assert meta["traditional"] in {"s2t", "s2tw", "s2twp"}
            assert after["text"] != before["text"] and after["label"] == before["label"]
        else:
            assert after == before
    assert 0.25 * later <= converted <= 0.75 * later
    assert traditional_mirrors(sim.docs, sim.metas, seed=3) == (docs, metas)  # the same seed, the same files


def _real_page(pid: str, lang: str, site: str, cluster: str, main: str = "", traf: str = "") -> dict[str, Any]:
    return {"id": pid, "lang": lang, "site": site, "cluster": cluster, "forms": {"main": main, "traf": traf}}


def test_real_pages_give_one_article_a_label_titled_by_their_first_line(tmp_path: Path) -> None:
    from realpool import real_articles

    pages = []
    for zh in (True, False):
        lang = "zh" if zh else "en"
        for i, article in enumerate(_articles(zh)[:5]):
            text = "\n".join([article["title"], *article["paras"]])
            form = {"main": text} if i % 2 else {"traf": text, "main": ""}  # main when it has one, else traf
            pages.append(_real_page(f"{lang}{i}", lang, f"site{i % 2}.{lang}", f"{lang}-c{i}", **form))
        pages.append(_real_page(f"{lang}-copy", lang, "copy.example", f"{lang}-c0", main=pages[-5]["forms"]["traf"]))
    pages.append(_real_page("de0", "de", "x.de", "de-c0", main="Titel\n" + "Ein deutscher Satz hier. " * 40))
    pages.append(_real_page("en-one-line", "en", "y.com", "en-c9", main=" ".join(EN_SENTENCES)))
    with gzip.open(tmp_path / "pages.jsonl.gz", "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(page, ensure_ascii=False) + "\n" for page in pages)
    pools = real_articles(str(tmp_path))
    assert [a["src"] for a in pools["other"]] == ["de0"]  # other languages, cut by the English rules
    assert [a["src"] for a in pools["en"]] == ["en0", "en1", "en2", "en3", "en4"]  # one per label; no one-line page
    assert [a["title"] for a in pools["en"]] == [f"Article {i}" for i in range(5)]
    assert pools["en"][1]["group"] == "site:site1.en"
    assert [a["src"] for a in pools["zh"]] == ["zh0", "zh1", "zh2", "zh3", "zh4"]
    stats = build.build("unused", 1, str(tmp_path / "out"), realpages=str(tmp_path))
    assert sorted(name for name in stats if name != "pool_articles") == ["en", "other", "zh"]
    assert stats["other"]["clusters"] == 1
    assert stats["en"]["clusters"] == stats["en"]["articles"] == 5  # every article of the pool


def test_a_long_first_line_is_a_lead_paragraph_titled_by_its_first_words() -> None:
    from realpool import TITLE_MAX, title_and_paragraphs

    assert title_and_paragraphs(["A short title", "Body."]) == ("A short title", ["Body."])
    short = "The council met on Monday to discuss the plan for the new bridge. It will cost more than planned."
    assert title_and_paragraphs([short, "Body."]) == (
        "The council met on Monday to discuss the plan for the new bridge.",
        [short, "Body."],
    )
    lead = (
        "The council met on Monday evening to discuss at length the plan for a new bridge over the river "
        "near the old mill. More."
    )
    title, paras = title_and_paragraphs([lead, "Body."])
    assert paras == [lead, "Body."]  # the lead stays the article's first paragraph
    assert lead.startswith(title) and len(title) <= TITLE_MAX and lead[len(title)] == " "  # whole words
    dateline = "ST. JOSEPH, Mich. (AP) — Health authorities are reporting a case of a rare virus in the state, " * 2
    assert title_and_paragraphs([dateline, "Body."])[0].startswith("ST. JOSEPH, Mich. (AP) — Health")  # not "ST."
    zh_lead = "据外媒报道，日本现存的唯一一家提供传呼机服务的营运商将正式终止服务。日本电信电话公社开始提供传呼机业务。"
    zh_title, _ = title_and_paragraphs([zh_lead, "正文。"])
    assert zh_lead.startswith(zh_title) and 2 * len(zh_title) <= TITLE_MAX  # a CJK character counts two


def test_a_part_that_repeats_an_earlier_part_of_its_text_is_dropped() -> None:
    from realpool import without_repeats

    body = [f"{sentence} It is paragraph {i}." for i, sentence in enumerate(EN_SENTENCES)]
    parts = [
        {"title": "T (part 1)", "paras": body[:6], "group": "g", "src": "a"},
        {"title": "T (part 2)", "paras": [p.upper() for p in body[:2]] + body[:4], "group": "g", "src": "a"},
        {"title": "T (part 3)", "paras": body[6:], "group": "g", "src": "a"},
        {"title": "U", "paras": body[:6], "group": "g", "src": "b"},  # another text: drop_near_copies' to judge
    ]
    assert [p["title"] for p in without_repeats(parts)] == ["T (part 1)", "T (part 3)", "U"]


def test_a_missing_real_pages_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no labelled real pages in .*nowhere"):
        build.build("unused", 1, str(tmp_path / "out"), realpages=str(tmp_path / "nowhere"))

"""benchmarks/run_realchrome.py: chrome cut from a full page, articles wrapped in it, pairs counted by kind."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from run_realchrome import (
    Chrome,
    Doc,
    chromes_and_articles,
    cut_chrome,
    edit_article,
    make_docs,
    missed_copies,
    pair_kinds,
)

FULL = "Site | Home | News\nThe title\nFirst line of the story.\n\nLast line of the story.\nRelated: a, b\n(c) Site"
MAIN = "The title\nFirst line of the story.\nLast line of the story."


def page(pid: str, lang: str, site: str, full: str = FULL, main: str = MAIN) -> dict[str, object]:
    return {"id": pid, "lang": lang, "site": site, "cluster": pid, "forms": {"full": full, "main": main}}


def test_cut_chrome_keeps_the_lines_around_the_article() -> None:
    assert cut_chrome(FULL, MAIN) == ("Site | Home | News", "Related: a, b\n(c) Site")
    assert cut_chrome(FULL, "One line only") is None  # too short to place
    assert cut_chrome(FULL, "Not on the page\nNor this") is None
    assert cut_chrome(FULL, "Last line of the story.\nThe title") is None  # out of order


def test_chromes_need_a_long_enough_frame_and_a_language_of_the_benchmark() -> None:
    long_full = FULL.replace("(c) Site", "(c) Site " + "footer words " * 20)
    pages = [page("a", "en", "x.com", long_full), page("b", "en", "y.com"), page("c", "de", "z.de", long_full)]
    chromes, articles = chromes_and_articles(pages)
    assert [c.site for c in chromes] == ["x.com"]  # y.com's chrome is under MIN_CHROME, de is not benchmarked
    assert [cluster for cluster, _ in articles["en"]] == ["a", "b"]
    assert articles["zh"] == []


def test_every_chrome_gets_per_articles_of_its_language_in_a_seeded_order() -> None:
    chromes = [Chrome("x.com", "en", "HEAD", "FOOT"), Chrome("y.cn", "zh", "头", "尾")]
    articles = {"en": [("e1", "english one"), ("e2", "english two")], "zh": [("z1", "中文一")]}
    docs = make_docs(chromes, articles, 4, seed=7)
    assert Counter(d.chrome for d in docs) == {0: 4, 1: 4}
    assert all(d.text.startswith("HEAD\n") and d.text.endswith("\nFOOT") for d in docs if d.chrome == 0)
    assert {d.article for d in docs if d.chrome == 1} == {"z1"}
    assert docs == make_docs(chromes, articles, 4, seed=7)
    assert docs != make_docs(chromes, articles, 4, seed=8)


def test_edits_change_copies_but_not_which_article_goes_where() -> None:
    chromes = [Chrome("x.com", "en", "HEAD", "FOOT"), Chrome("y.com", "en", "HEAD2", "FOOT2")]
    body = "\n".join(f"Sentence {i} of a longer story. It goes on with more words here." for i in range(12))
    articles = {"en": [("a", "A title\n" + body), ("b", "B title\n" + body.replace("story", "tale"))], "zh": []}
    plain = make_docs(chromes, articles, 20, seed=3)
    edited = make_docs(chromes, articles, 20, seed=3, edits=1.0)
    assert [(d.article, d.chrome) for d in edited] == [(d.article, d.chrome) for d in plain]
    changed = [e for d, e in zip(plain, edited) if d.text != e.text]
    assert len(changed) >= 20  # most of the 40 copies (a light edit may change nothing)
    wrapped = [(chromes[e.chrome].head + "\n", "\n" + chromes[e.chrome].foot) for e in changed]
    assert all(e.text.startswith(head) and e.text.endswith(foot) for e, (head, foot) in zip(changed, wrapped))
    assert make_docs(chromes, articles, 20, seed=3, edits=1.0) == edited
    assert make_docs(chromes, articles, 20, seed=3, edits=0.0) == plain


ZH_ARTICLE = "标题\n" + "\n".join(f"第{i}段的内容很长，说的是同一件事情。又一句话在这里。" for i in range(10))


def test_an_edited_article_is_seeded_and_keeps_most_of_its_text() -> None:
    outs = [edit_article(ZH_ARTICLE, random.Random(seed), "zh", [ZH_ARTICLE]) for seed in range(20)]
    assert outs[5] == edit_article(ZH_ARTICLE, random.Random(5), "zh", [ZH_ARTICLE])
    assert sum(out != ZH_ARTICLE for out in outs) >= 10
    # A reprint keeps much of the article (a truncation to under 40% is undone; rewording takes more).
    han = Counter(c for c in ZH_ARTICLE if "\u4e00" <= c <= "\u9fff")
    assert all(sum((han & Counter(out)).values()) >= 0.3 * sum(han.values()) for out in outs)


def test_an_article_never_lends_itself_the_inserted_paragraph() -> None:
    # With only itself in the pool, no paragraph is inserted: a paragraph appearing twice would be its own.
    outs = [edit_article(ZH_ARTICLE, random.Random(seed), "zh", [ZH_ARTICLE]) for seed in range(300)]
    assert all(out.count(f"第{i}段") <= 1 for out in outs for i in range(10))


def test_pair_kinds_counts_each_pair_once() -> None:
    docs = make_docs([Chrome("x", "en", "H", "F"), Chrome("y", "en", "H2", "F2")], {"en": [("a", "t")]}, 2, seed=1)
    # One article on both chromes, twice each: 4 pairs across chromes, 2 within one chrome (not counted).
    assert pair_kinds(docs, [1, 1, 1, 1]) == {
        "false_same_chrome": 0,
        "false_across": 0,
        "copies_across": 4,
        "copies_across_joined": 4,
    }
    assert pair_kinds(docs, [1, 2, 3, 4])["copies_across_joined"] == 0


def test_missed_copies_by_length_and_by_the_pages_place_on_its_site() -> None:
    # Site 0 shows a, b, c, d (its 4th page is d); site 1 shows a, d; site 2 shows a.
    docs = [Doc(x, site, "") for x, site in [("a", 0), ("b", 0), ("a", 1), ("c", 0), ("a", 2), ("d", 0), ("d", 1)]]
    lengths = {"a": 100, "b": 100, "c": 100, "d": 2000}
    found = missed_copies(docs, [1, 2, 1, 3, 9, 4, 5], lengths)
    # a on sites 0 and 1 joined, on 0 and 2 and on 1 and 2 apart: 3 pairs under 300, 2 missed; d's pair missed.
    assert found["under 300"] == [3, 2] and found["1,000-2,999"] == [1, 1] and found["300-999"] == [0, 0]
    # Later copies: a on site 1 (its 1st page, found), a on site 2 (1st, missed), d on site 1 (2nd, missed).
    assert found["1st"] == [2, 1] and found["2nd"] == [1, 1] and found["4th and later"] == [0, 0]
    # A page whose earlier copy sits on its own site is no later copy: d on site 0 came first.
    assert sum(count for count, _ in found.values()) == 4 + 3
    # A page with the label of any one earlier copy is found, though another earlier copy has another.
    assert missed_copies(docs, [1, 2, 7, 3, 7, 4, 4], lengths)["1st"] == [2, 1]


def test_docstring_examples() -> None:
    import doctest

    import run_realchrome

    assert doctest.testmod(run_realchrome).failed == 0

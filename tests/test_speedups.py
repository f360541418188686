"""The C accelerator must give exactly the keys of the pure-Python specification."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
from nshash import core
from nshash.core import NSHash

pytestmark = pytest.mark.skipif(core._speedups is None, reason="C accelerator not built")

# Text rich in what the splitter treats specially: boundaries, noise, case, ". ".
special = st.sampled_from(list("。！？!?；;｡．\n\r.,，、:：\"'“”‘’()（） \t\u3000\xa0\u200b\ufeffAZaz"))
unicode_text = st.lists(st.one_of(special, st.characters(), st.text(min_size=1, max_size=30)), max_size=80).map("".join)


def python_features(nsh: NSHash, text: str) -> core.Features:
    nsh._accelerated = False
    try:
        return nsh._features(text)
    finally:
        nsh._accelerated = True


@settings(max_examples=400, deadline=None)
@given(unicode_text, st.integers(1, 12), st.integers(1, 30), st.integers(0, 16))
def test_c_equals_python(text: str, n: int, min_len: int, anchor: int) -> None:
    nsh = NSHash(n=n, min_len=min_len, anchor=anchor, extra=3)
    assert nsh._accelerated
    assert nsh._features(text) == python_features(nsh, text)


# Few distinct sentences, so lines repeat: a repeated line among the longest
# must make room for the next one down.
repeating_text = st.lists(
    st.sampled_from(["甲乙丙丁戊", "Hello world again", "abc", "长句子长句子", "x", "甲乙丙丁戊己"]), max_size=14
).map("。".join)


@settings(max_examples=300, deadline=None)
@given(repeating_text, st.integers(1, 4), st.integers(1, 6), st.integers(0, 4))
def test_c_equals_python_with_repeated_lines(text: str, n: int, min_len: int, anchor: int) -> None:
    nsh = NSHash(n=n, min_len=min_len, anchor=anchor, extra=0)
    assert nsh._features(text) == python_features(nsh, text)


def test_a_repeated_longest_line_counts_once() -> None:
    nsh = NSHash(n=2, min_len=2, extra=0, anchor=0)
    features = nsh._features("aaaa。aaaa。bbb。cc")
    assert features == python_features(nsh, "aaaa。aaaa。bbb。cc")
    assert features.positions == [0, 2]


# Text made of what the HTML stripper treats specially: tags (block, inline,
# broken, nested, long), entities, spaces (Unicode ones too), case.
html_piece = st.sampled_from(
    [
        "<",
        ">",
        "/",
        " ",
        "\n",
        "\u3000",
        "\x85",
        "&",
        ";",
        "#",
        "x",
        "X",
        "9",
        "a",
        "F",
        "p",
        "P",
        "r",
        "e",
        "<p>",
        "</P >",
        "< br/>",
        "<div class='x'>",
        "<pre>",
        "<p2>",
        "<h1>",
        "<H6 id=1>",
        "<hr>",
        "<b>",
        "</b>",
        "<blockquote>",
        "<title>",
        "<tablex>",
        '<a href="#">',
        "<中>",
        "<p中>",
        "<<p>b>",
        "< /li >",
        "&nbsp;",
        "&lt;",
        "&gt;",
        "&quot;",
        "&#39;",
        "&amp;",
        "&#169;",
        "&#x4e2d;",
        "&copy",
        "&#;",
        "&#x;",
        "&1",
        "<" + "a" * 501 + ">",
        "<lİ>",
        "<pK>",
        "<ſection>",
        "<" + "a" * 502 + ">",
        "<p" + " " * 500 + ">",
        "<p" + " " * 501 + ">",
        "İ",
        "ı",
        "ſ",
        "K",
        "中文",
        "。",
        "！",
    ]
)
html_text = st.lists(st.one_of(html_piece, st.characters()), max_size=60).map("".join)


# What may make the C scan leave HTML to Python: a non-ASCII letter that
# re.IGNORECASE reads as ASCII, a '<' right after an '&', or a reference
# that only html.unescape knows.
DECLINE_CAUSE = re.compile(r"[İıſK]|&(?:[^<]{0,4}<|#[0-9]|#[xX][0-9a-fA-F]|(?!amp;)[a-zA-Z])", re.DOTALL)


@settings(max_examples=1500, deadline=None)
@given(html_text)
def test_c_html_stripping_equals_python_or_declines(text: str) -> None:
    # Whole-sentence keys of every line: equal keys mean equal stripped, normalised lines.
    nsh = NSHash(min_len=1, anchor=0, n=64, extra=0)
    found = core._speedups.sentence_keys(text, 64, 1, 0, True)
    if found is None:
        assert DECLINE_CAUSE.search(text)
    else:
        assert core.Features(*found[:2]) == python_features(nsh, text)
    assert nsh._features(text) == python_features(nsh, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(html_piece, special, st.text(max_size=20)), max_size=40).map("".join))
def test_c_equals_python_on_html(text: str) -> None:
    nsh = NSHash(min_len=2)
    assert nsh._features(text) == python_features(nsh, text)


@pytest.mark.parametrize(
    "text",
    [
        "<p>A&nbsp;B</p><b>C</b>",
        "A&amp;B&amp;lt;",
        "<P>İ",
        "end.</p>next",
        "end.<b> next",
        "end.<b>&nbsp;next",
        "end.&nbsp;next",
        "<<p>b>",
        "< <br>/ <p> b>x",
        "x&lt;p&gt;y",
    ],
)
def test_c_strips_html_itself(text: str) -> None:
    nsh = NSHash(min_len=1, anchor=0, n=64, extra=0)
    found = core._speedups.sentence_keys(text, 64, 1, 0, True)
    assert found is not None
    assert core.Features(*found[:2]) == python_features(nsh, text)


@pytest.mark.parametrize("text", ["A&amp;B&copy;", "<lİ>x", "&am<b>p;", "&#169;", "&<b>nbsp;", "x&<i>amp;y"])
def test_c_leaves_rare_html_to_python(text: str) -> None:
    assert core._speedups.sentence_keys(text, 64, 1, 0, True) is None
    nsh = NSHash(min_len=1, anchor=0, n=64, extra=0)
    assert nsh._features(text) == python_features(nsh, text)


def test_c_equals_python_on_pages() -> None:
    from tests.test_nshash import ARTICLE, ENGLISH

    nsh = NSHash()
    for text in [ARTICLE, ENGLISH, ARTICLE.upper() + ENGLISH, "<p>" + ENGLISH + "&amp;</p>", "a\udc80b" * 40]:
        assert nsh._features(text) == python_features(nsh, text)


def test_only_default_farmhash_options_are_accelerated() -> None:
    assert NSHash()._accelerated
    assert not NSHash(hashfunc="md5")._accelerated
    assert not NSHash(split="design")._accelerated
    assert not NSHash(normalize=False)._accelerated


@settings(max_examples=600, deadline=None)
@given(st.binary(max_size=300))
def test_fingerprint64_equals_pyfarmhash(data: bytes) -> None:
    import farmhash

    assert core._speedups.fingerprint64(data) == farmhash.fingerprint64(data)


def test_fingerprint64_every_length() -> None:
    import random

    import farmhash

    rng = random.Random(5)
    for length in range(200):  # each of FarmHash's length classes and loop tails
        data = bytes(rng.randrange(256) for _ in range(length))
        assert core._speedups.fingerprint64(data) == farmhash.fingerprint64(data)


# -- the assignment: C (on the memory store's dicts) against the Python specification ----------

# Sentences long enough to be keys; a few share heads or tails (templates,
# edits), some act as a site's header and footer.
_BODY = [f"第{i}段正文讲的是一件事情，内容各不相同，编号{i}号。" for i in range(10)]
_EDGES = ["本站声明：转载请注明出处，违者必究，谢谢合作。", "版权所有 本网站保留一切权利 联系我们获取授权。"]
_SHARED_HEAD = ["参见第十二点一节的说明内容甲乙丙丁戊己。", "参见第十二点一节的说明内容庚辛壬癸子丑。"]
_SHORT = ["短句。", "x", "", "   ", "<p>HTML &amp; 实体 &lt;b&gt;</p>"]
_PIECES = _BODY + _EDGES + _SHARED_HEAD + _SHORT

page = st.lists(st.sampled_from(range(len(_PIECES))), max_size=9).map(lambda ix: "\n".join(_PIECES[i] for i in ix))
options = st.fixed_dictionaries(
    {
        "n": st.integers(1, 6),
        "extra": st.integers(0, 3),
        "min_match": st.integers(1, 3),
        "boilerplate": st.booleans(),
        "boilerplate_after": st.integers(1, 3),
        "anchor": st.sampled_from([0, 6, 12]),
        "hashfunc": st.sampled_from(["farmhash", "md5"]),
    }
)


def run_both(pages: list[str], opts: dict[str, object], many: bool = False) -> None:
    """Same ids, same tables and same next id from the C and the Python assignment."""
    fast, spec = nshash.NSHash(**opts), nshash.NSHash(**opts)  # type: ignore[arg-type]
    assert fast._assigner is not None
    spec._assigner = None
    for nsh in (fast, spec):  # ids above CPython's cache of small ints, so sharing them shows
        for _ in range(300):
            nsh.store.allocate_id()
    if many:
        assert fast.get_similar_many(pages) == spec.get_similar_many(pages)
    else:
        assert [fast.get_similar(p) for p in pages] == [spec.get_similar(p) for p in pages]
    assert fast.store._tables == spec.store._tables  # type: ignore[attr-defined]
    assert fast.store.allocate_id() == spec.store.allocate_id()
    # A cluster id is one int object however many keys point to it, as in the
    # Python (memory per key at scale depends on it).
    objects = [len({id(v) for v in nsh.store._tables["fp"].values()}) for nsh in (fast, spec)]  # type: ignore[attr-defined]
    assert objects[0] == objects[1]


@settings(max_examples=300, deadline=None)
@given(st.lists(page, max_size=40), options)
def test_c_assignment_equals_python(pages: list[str], opts: dict[str, object]) -> None:
    run_both(pages, opts)


@settings(max_examples=50, deadline=None)
@given(st.lists(page, max_size=30), options)
def test_c_assignment_of_given_features_equals_python(pages: list[str], opts: dict[str, object]) -> None:
    run_both(pages, opts, many=True)


def test_c_assignment_equals_python_on_the_sample() -> None:
    from tests.test_determinism import SAMPLE

    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    pages = [row["title"] + "\n" + row["content"] for row in rows]
    for opts in ({}, {"min_match": 1}, {"boilerplate_after": 1, "n": 3}, {"anchor": 0, "boilerplate": False}):
        run_both(pages + pages[::-1], opts)


def test_merges_through_chains_compress_the_same_way() -> None:
    # Three articles seen apart, then pages that join them pairwise: clusters
    # merge into chains that later lookups compress.
    a, b, c, d = (("\n".join(_BODY[i : i + 2]) + "\n") for i in (0, 2, 4, 6))
    pages = [d, c, b, a, c + d, b + c, a + b, a + d, d]
    run_both(pages, {"min_match": 1, "boilerplate": False})
    run_both(pages, {})


def test_no_fast_path_for_a_store_that_is_not_local_or_is_customised(tmp_path: Path) -> None:
    class Logged(nshash.HashDBMemory):
        def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
            super()._put_many(table, items)

    assert NSHash(hashdb=Logged())._assigner is None
    assert NSHash(name=str(tmp_path / "x"), hashdb="leveldb")._assigner is None
    assert NSHash()._assigner is not None

"""benchmarks/run_robustness.py: the transforms do what they say, and the summary counts right."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from run_robustness import SITE_SHARE, TRANSFORMS, summary

PAGE = "A title\nHome | News\nThe article says things. It goes on.\n© Site"


def test_every_transform_but_the_first_changes_a_page_and_keeps_its_words() -> None:
    joined_site = next(s for s in ("a", "b", "c", "d", "e") if zlib.crc32(s.encode()) % 100 < 100 * SITE_SHARE)
    joined_page = next(p for p in (PAGE + "!" * i for i in range(64)) if zlib.crc32(p.encode()) % 2 == 0)
    for name, transform in list(TRANSFORMS.items())[1:]:
        if "Big5" in name:  # Big5 has no "©": the page stays; see test_big5_pages_are_those_big5_holds
            continue
        if name == "half of the pages wrapped at 72":  # its lines are short: wrapped, it stays (see below)
            continue
        out = transform(joined_page, joined_site)
        assert out != joined_page, name
        assert all(word in out for word in ("title", "Home", "things", "Site")), name
    assert "\n" not in TRANSFORMS["every page's lines joined"](PAGE, "")
    quote = TRANSFORMS["half of the pages quoted and wrapped at 72"]
    long_page = next(p for p in (PAGE + " word" * 30 + "!" * i for i in range(64)) if quote(p, "") != p)
    assert all(line.startswith("> ") and len(line) <= 74 for line in quote(long_page, "").split("\n"))
    wrapped = TRANSFORMS["half of the pages wrapped at 72"](long_page, "")
    assert wrapped.split("\n") == [line[2:] for line in quote(long_page, "").split("\n")]  # the same lines, unquoted


def test_only_some_sites_are_joined() -> None:
    transform = TRANSFORMS[f"{SITE_SHARE:.0%} of the sites' lines joined"]
    sites = [f"site {i}" for i in range(200)]
    joined = sum(transform(PAGE, site) != PAGE for site in sites)
    assert 0.15 * len(sites) < joined < 0.45 * len(sites)


def test_half_of_the_pages_of_one_site_are_joined() -> None:
    transform = TRANSFORMS["half of the pages joined, any site"]
    pages = [PAGE.replace("things", f"thing {i}") for i in range(200)]
    joined = sum(transform(page, "one site") != page for page in pages)
    assert 0.35 * len(pages) < joined < 0.65 * len(pages)


def test_summary_is_means_and_the_lowest_precision() -> None:
    scores = [{"precision": 1.0, "recall": 0.5, "f1": 0.6}, {"precision": 0.5, "recall": 1.0, "f1": 0.8}]
    assert summary(scores) == "0.750 (0.500) / 0.750 / 0.700"


def test_the_misread_pages_are_utf8_read_as_latin1_and_windows_1252() -> None:
    latin1 = TRANSFORMS["half of the pages UTF-8 read as Latin-1"]
    windows = TRANSFORMS["half of the pages UTF-8 read as Windows-1252"]
    pages = [f"文章 {i}: don’t — “quoted” ©" for i in range(40)]
    misread = [page for page in pages if latin1(page, "") != page]
    assert 10 < len(misread) < 30
    for page in misread:
        assert latin1(page, "").encode("latin-1").decode("utf-8") == page
        assert "don\u00e2\u20ac\u2122t" in windows(page, "")  # ’ = E2 80 99, as Windows-1252 reads it
    assert all(latin1(page, "") == page == windows(page, "") for page in pages if page not in misread)


@pytest.mark.parametrize(
    ("name", "codec", "page"),
    [
        ("half of the pages GB18030 read as Latin-1", "gb18030", "文章 {}: “引号”"),
        ("half of the pages Big5 can hold, Big5 read as Latin-1", "big5", "臺北 {}：「引號」"),
    ],
)
def test_chinese_pages_are_their_bytes_read_as_latin1(name: str, codec: str, page: str) -> None:
    transform = TRANSFORMS[name]
    pages = [page.format(i) for i in range(40)]
    misread = [page for page in pages if transform(page, "") != page]
    assert 10 < len(misread) < 30
    assert all(transform(page, "").encode("latin-1").decode(codec) == page for page in misread)


def test_gb18030_pages_read_as_windows_1252_are_their_bytes() -> None:
    transform = TRANSFORMS["half of the pages GB18030 read as Windows-1252"]
    pages = [f"文章 {i}: 他們會說“引号”" for i in range(40)]
    misread = [page for page in pages if transform(page, "") != page]
    assert 10 < len(misread) < 30
    assert all(
        transform(page, "").encode("cp1252", errors="nshash.misread").decode("gb18030") == page for page in misread
    )
    assert all("\u201a" in transform(page, "") for page in misread)  # 們's 0x82, read as Windows-1252's own ‚


def test_big5_pages_are_those_big5_holds() -> None:
    transform = TRANSFORMS["half of the pages Big5 can hold, Big5 read as Latin-1"]
    assert all(transform(f"臺北 {i}©", "") == f"臺北 {i}©" for i in range(40))  # Big5 has no ©


@pytest.mark.parametrize(
    "name", ["half of the pages as RSS items, HTML escaped", "half of the pages as RSS items, in CDATA"]
)
def test_feed_items_hold_the_page(name: str) -> None:
    transform = TRANSFORMS[name]
    pages = [f"Title {i}\nA & B <said> one.\nThe end." for i in range(40)]
    items = [transform(page, "") for page in pages if transform(page, "") != page]
    assert 10 < len(items) < 30
    assert all(item.startswith("<item><title>Title ") and item.endswith("</description></item>") for item in items)
    escaped = "CDATA" not in name
    assert all(("&lt;p&gt;A &amp;amp; B &amp;lt;said&amp;gt; one.&lt;/p&gt;" in item) is escaped for item in items)


def test_json_lines_hold_the_page() -> None:
    transform = TRANSFORMS["half of the pages as JSON lines"]
    pages = [f"文章 {i}\n“引号”" for i in range(40)]
    lines = [transform(page, "") for page in pages if transform(page, "") != page]
    assert 10 < len(lines) < 30
    assert all(line.isascii() and "\\u6587" in line for line in lines)


@pytest.mark.parametrize(
    ("name", "codec", "errors"),
    [
        ("half of the pages UTF-8 read as GBK, errors replaced", "gbk", "replace"),
        ("half of the pages UTF-8 read as GBK, ignoring errors", "gbk", "ignore"),
        ("half of the pages UTF-8 read as GB18030, errors replaced", "gb18030", "replace"),
    ],
)
def test_utf8_pages_read_as_gbk_lose_what_gbk_cannot_read(name: str, codec: str, errors: str) -> None:
    transform = TRANSFORMS[name]
    pages = [f"文章 {i}：“引号”。\n北京" for i in range(40)]
    misread = [page for page in pages if transform(page, "") != page]
    assert 10 < len(misread) < 30
    assert all(transform(page, "") == page.encode("utf-8").decode(codec, errors) for page in misread)

"""A page's site signature (``nshash.site``): the chrome lines it drops at its edges, and what decisions make of it."""

from __future__ import annotations

import random

import pytest

import nshash
import nshash.decide
import nshash.frame
import nshash.verify
from nshash.chrome import SITE_EDGE_LINES, drop_chrome
from nshash.edges import has_line, line_filter
from nshash.fingerprint import Fingerprinter, line_key, site_keys
from nshash.hashing import farmhash64
from nshash.options import Options
from nshash.site import SITE_KEYS, SITE_MIN_MATCHES, same_site, site_key
from nshash.text import normalize_line
from tests.pages import python_decision

MENU = ["Home", "World news", "Business", "Technology", "Science", "Culture", "Opinion", "Sign in", "Subscribe"]
LINKS = [f"Related story number {i}" for i in range(12)] + ["About us", "Contact", "Careers", "Privacy"]


def prose(rng: random.Random, sentences: int) -> str:
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 9))) for _ in range(400)]
    return " ".join(" ".join(rng.choices(words, k=rng.randint(9, 14))).capitalize() + "." for _ in range(sentences))


def site_page(menu: list[str], comments: list[str], links: list[str], title: str, article: list[str]) -> str:
    """A whole page: a menu of short lines, the article, a long comment thread and a list of links below it."""
    return "\n".join([*menu, title, *article, *comments, *links])


def test_drop_chrome_gives_the_lines_it_drops_at_the_edges_only() -> None:
    rng = random.Random(3)
    middle = [prose(rng, 3), "Short caption", prose(rng, 3)]  # a short line inside the article: not an edge
    text = "\n".join([*MENU, *middle, *[prose(rng, 2) for _ in range(20)], *LINKS])
    edges: list[str] = []
    kept = drop_chrome(text, edges)
    assert edges == [*MENU, *LINKS]
    assert "Short caption" not in kept and "Short caption" not in edges
    # The same page without an edges list drops the same lines.
    assert drop_chrome(text) == kept


def test_a_page_kept_whole_has_no_edges_and_each_edge_is_capped() -> None:
    edges: list[str] = []
    drop_chrome("A short page.\nIts second line is long enough to be kept.", edges)
    assert edges == []
    rng = random.Random(4)
    menu = [f"Menu entry {i}" for i in range(SITE_EDGE_LINES + 10)]
    links = [f"Link entry {i}" for i in range(SITE_EDGE_LINES + 10)]
    text = "\n".join([*menu, *[prose(rng, 6) for _ in range(60)], *links])
    drop_chrome(text, edges)
    assert edges == [*menu[:SITE_EDGE_LINES], *links[-SITE_EDGE_LINES:]]


def test_site_keys_are_the_first_and_last_distinct_long_enough_lines_keyed_apart_from_lines() -> None:
    lines = ["|", "Home", "Home", *[f"Entry {i}" for i in range(30)]]
    keys = list(site_keys(lines, farmhash64))
    expected = [
        site_key(line_key(normalize_line(line), farmhash64)) for line in ["Home", *[f"Entry {i}" for i in range(30)]]
    ]
    assert keys == expected[:SITE_KEYS] + expected[-SITE_KEYS:]
    # A site key never sets the bits its line's own key sets: kept text never looks like a menu.
    assert all(key != line_key(normalize_line(line), farmhash64) for key, line in zip(keys, ["Home"]))
    assert list(site_keys(["ab", "|", "xyz"], farmhash64)) == []


def test_same_site_needs_enough_of_the_page_s_site_keys() -> None:
    keys = [site_key(k * 7919) for k in range(1, 11)]
    assert same_site(keys, line_filter(keys))
    assert same_site(keys, line_filter(keys[:5]))  # half
    assert not same_site(keys, line_filter(keys[:4]))
    assert not same_site(keys[: SITE_MIN_MATCHES - 1], line_filter(keys))  # too few to tell
    assert not same_site([], line_filter(keys))


def _one_site_pages(rng: random.Random) -> tuple[str, str]:
    comments = [prose(rng, 3) for _ in range(16)]  # a forum's comment thread, most of each page
    first = site_page(MENU, comments, LINKS, "First story", [prose(rng, 4), prose(rng, 4)])
    second = site_page(MENU, comments, LINKS, "Second story", [prose(rng, 4), prose(rng, 4)])
    return first, second


def _assert_rule_decides(first: str, second: str, native: bool, monkeypatch: pytest.MonkeyPatch, joined: bool) -> None:
    """``second`` joins ``first`` or not (``joined``) through the C decision, or the Python one with the C
    verification and then the Python one; in Python, ``same_site`` answering the other way turns it around."""
    from nshash.stores.memory import HashDBMemory

    def joins() -> bool:
        nsh = nshash.NSHash()
        return nsh.get_similar(first) == nsh.get_similar(second)

    if not native:
        monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
    assert joins() is joined
    if not native:
        monkeypatch.setattr(nshash.verify, "speedups", None)
        assert joins() is joined
        monkeypatch.setattr(nshash.frame, "same_site", lambda *args: joined)
        assert joins() is not joined


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_two_pages_of_one_site_whose_shared_footer_is_most_of_them_stay_apart(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The comment thread both pages show is 75% or more of each, and no other cluster has seen it:
    # taken for the first page's article (frame.ARTICLE_SHARE), it joined the second page to it.
    # Their menus, dropped as chrome, say they are of one site, so the thread is their frame.
    first, second = _one_site_pages(random.Random(5))
    fingerprinter = Fingerprinter(Options())
    a, b = fingerprinter.features(first), fingerprinter.features(second)
    assert len(b.site_keys) >= SITE_MIN_MATCHES
    assert all(has_line(line_filter(a.site_keys), key) for key in b.site_keys)
    _assert_rule_decides(first, second, native, monkeypatch, joined=False)


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_on_another_site_that_ends_in_the_article_still_joins_it(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both pages end in the article's paragraphs, under a title and standfirst of their own (a list
    # of links below them is dropped): a run from the bottom that is most of each.  It is the article,
    # not a footer, since the pages are of two sites (their menus differ).
    rng = random.Random(6)
    article = [prose(rng, 3) for _ in range(4)]
    ours = [f"Our section {i}" for i in range(20)]
    theirs = [f"Their channel {i}" for i in range(20)]
    original = "\n".join(
        [
            *ours,
            "The story of the week as it first ran.",
            "Written by A. Writer on 3 May, who spent a week with the people this story is about.",
            *article,
            *LINKS,
        ]
    )
    own = [
        "The story of the week, as our partners ran it.",
        "Taken from our partner desk on 4 May, with thanks to the paper that first sent a writer out.",
    ]
    copy = "\n".join([*theirs, *own, *article, *LINKS[::-1]])
    _assert_rule_decides(original, copy, native, monkeypatch, joined=True)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_two_short_articles_in_their_sites_long_chrome_are_two_pages(
    seed: int, native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An aggregator's 12,000 characters of other stories' teasers around a short article: what the shared
    # frame leaves is under a tenth of each page (sketch.EDGE_REST), yet 300 grams or more of its own.
    from nshash.sketch import EDGE_REST, EDGE_REST_GRAMS

    rng = random.Random(seed)
    teasers = [prose(rng, 3) for _ in range(60)]
    first = site_page(MENU, teasers, LINKS, "First story", [prose(rng, 4), prose(rng, 4)])
    second = site_page(MENU, teasers, LINKS, "Second story", [prose(rng, 4), prose(rng, 4)])
    own = len(Fingerprinter(Options()).features(second).whole) - sum(len(normalize_line(t)) for t in teasers)
    assert EDGE_REST_GRAMS <= own < EDGE_REST * len(second)

    def joins() -> bool:
        nsh = nshash.NSHash()
        return nsh.get_similar(first) == nsh.get_similar(second)

    python_decision(native, monkeypatch)
    assert not joins()
    if not native:  # pages of two sites that share that much are one page, as before
        monkeypatch.setattr(nshash.verify, "same_site", lambda *args: False)
        assert joins()


def test_explain_decision_says_the_page_is_of_a_member_s_site() -> None:
    first, second = _one_site_pages(random.Random(5))
    nsh = nshash.NSHash()
    nsh.get_similar(first)
    (candidate,) = nsh.explain_decision(second)["candidates"]
    assert candidate["same_site"] and not candidate["passed"]
    assert len(candidate["shared_frame"]) == 16  # the comment thread
    # The second page on another site: the same thread, other menus and links.
    elsewhere = "\n".join(f"Elsewhere: {line}" if line in MENU + LINKS else line for line in second.splitlines())
    (candidate,) = nsh.explain_decision(elsewhere)["candidates"]
    assert not candidate["same_site"]

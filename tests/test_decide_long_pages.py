"""Pages of hundreds of lines: a member's line filter is then mostly full (frame.as_seen_by, bodies.FRAME_PARAGRAPH)."""

from __future__ import annotations

import random

import pytest

import nshash
from nshash.boilerplate import SHARED_LINE, UNSEEN
from nshash.edges import BLOOM_BITS, has_line, line_filter
from nshash.frame import as_seen_by
from tests.pages import WORDS, paragraph, python_decision, sentence, stored_member


def _news_site(rng: random.Random) -> tuple[list[str], list[str]]:
    """A paywalled news site's frame: a 320-line menu under its group's notice; the day's headlines and a footer."""
    menu = [" ".join(rng.choice(WORDS).capitalize() for _ in range(rng.randint(1, 3))) for _ in range(320)]
    # The group's line and the day's headlines glued, the longest "sentences" of a page: no full stop.
    notice, glued = sentence(rng, 18)[:-1], sentence(rng, 20)[:-1]
    headlines = [sentence(rng, 8)[:-1] for _ in range(10)]
    footer = ["To Read the Full Story", "Subscribe Sign In", glued, *headlines, *menu[:40], "Copyright 2019 Example."]
    return [notice, *menu], footer


def _article_page(rng: random.Random, site: tuple[list[str], list[str]]) -> str:
    header, footer = site
    title = sentence(rng, 6)[:-1]
    body = [title, sentence(rng, 12), paragraph(rng, 3), paragraph(rng, 3)]
    return "\n".join([title + " - Example", *header, *body, *footer])


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_two_articles_under_a_menu_of_hundreds_of_lines_stay_apart(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bodies.FRAME_PARAGRAPH: the frame the two share, seen on no other page yet, is around the second's paragraphs.

    The second passes on its votes (the site's notice and its headlines glued, the pages' longest
    "sentences") at 0.67, below ``verify``; before, a frame no other cluster had let those votes stand,
    as between two paywalled articles of a real news site.
    """
    python_decision(native, monkeypatch)
    rng = random.Random(2019)
    site = _news_site(rng)
    first, second = _article_page(rng, site), _article_page(rng, site)
    nsh = nshash.NSHash()
    assert bin(line_filter(nsh._features(first).line_keys)).count("1") > BLOOM_BITS // 2  # a long page
    assert nsh.get_similar(first) != nsh.get_similar(second)


def test_lines_the_index_never_saw_in_a_cluster_are_none_of_its_members() -> None:
    """frame.as_seen_by: a member's filter of 450 lines tests a third of other lines as its own; not those."""
    rng = random.Random(7)
    first = "\n".join(sentence(rng, 6) for _ in range(450))
    second = "\n".join([*first.split("\n")[:200], *(sentence(rng, 6) for _ in range(30))])
    nsh = nshash.NSHash()
    member = stored_member(first)
    features = nsh._features(second)
    theirs = set(nsh._features(first).line_keys)
    # The index noted the first page's lines in cluster 1; the second's own ones nowhere yet.
    lines = {i: 1 if key in theirs else UNSEEN for i, key in enumerate(features.line_keys)}
    own = [i for i, key in enumerate(features.line_keys) if key not in theirs]
    assert sum(has_line(member.lines, features.line_keys[i]) for i in own) >= 5  # false positives of a full filter
    seen = as_seen_by(features, lines, 1, [member])
    assert not any(has_line(member.lines, seen.line_keys[i]) for i in own)
    assert [seen.line_keys[i] for i in lines if i not in own] == [features.line_keys[i] for i in lines if i not in own]
    assert as_seen_by(features, lines, 2, [member]).line_keys != features.line_keys  # another cluster: all absent
    assert as_seen_by(features, {i: SHARED_LINE for i in lines}, 1, [member]) is features  # seen in two: kept


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_the_same_article_under_the_menu_again_joins(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The site's article again, its headlines of another day and a paragraph edited: one cluster."""
    python_decision(native, monkeypatch)
    rng = random.Random(2020)
    header, footer = _news_site(rng)
    article = _article_page(rng, (header, footer))
    lines = article.split("\n")
    later = [*lines[: len(header) + 3], paragraph(rng, 1) + " " + lines[len(header) + 3]]
    later += [sentence(rng, 8)[:-1] if line in footer[2:12] else line for line in lines[len(header) + 4 :]]
    nsh = nshash.NSHash()
    assert nsh.get_similar(article) == nsh.get_similar("\n".join(later))

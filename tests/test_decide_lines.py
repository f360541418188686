"""The decision rule of NSHash 2 and a page's paragraphs: a cluster proposed by the lines it was seen in."""

from __future__ import annotations

import random

import pytest

import nshash
import nshash.decide
from nshash.boilerplate import SHARED_LINE, UNSEEN
from nshash.decide import LINE_CANDIDATE, LINE_PARAGRAPH, line_body_agrees, line_candidate
from nshash.frame import shared_frame
from tests.corpora import excerpt_pages
from tests.pages import assert_rule_joins, heavy_site, page, page_features, paragraph, stored_member


def test_the_line_candidate_holds_most_of_the_pages_paragraphs() -> None:
    grams = [LINE_PARAGRAPH, LINE_PARAGRAPH - 1, 150, 150, 150, LINE_PARAGRAPH, 400]
    lines = {0: 7, 1: 7, 2: 7, 3: 9, 4: 9, 5: SHARED_LINE, 6: UNSEEN}
    # Cluster 9 holds 300 grams of paragraphs, 7 holds 210 (the line under LINE_PARAGRAPH does not count).
    assert line_candidate(lines, grams, []) == 9
    assert line_candidate(lines, grams, [9]) == 7  # a candidate that failed on its sentences is not proposed again
    assert line_candidate(lines, grams, [9, 7]) is None  # shared and unseen lines propose nothing
    # Too little held: nothing.
    assert line_candidate({2: 7}, grams, []) is None and grams[2] < LINE_CANDIDATE
    # A tie goes to the lower id.
    assert line_candidate({2: 8, 3: 5, 4: 8, 0: 5, 5: 5}, [60, 0, 150, 150, 150, 90], []) == 5


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
@pytest.mark.parametrize("story", [0, 1], ids=["the copy first", "the forum page first"])
def test_a_page_whose_keys_are_all_other_stories_joins_its_copy_through_its_paragraphs(
    story: int, native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A forum page's story below excerpts of other stories with longer sentences: its keys are all theirs,
    # and nothing its bare copy looks up leads to it (tests/corpora.py, excerpt_pages).
    pages = excerpt_pages()
    first, second = pages[2 * story], pages[2 * story + 1]
    nsh = nshash.NSHash()
    nsh.get_similar(first)
    assert all(row["cluster"] is None for row in nsh.explain(second))
    why = nsh.explain_decision(second)
    assert why["candidates"][-1]["rule"].startswith("its paragraphs were seen there: containment")
    assert_rule_joins(first, [], second, native, monkeypatch, "LINE_CANDIDATE", 10**9, module=nshash.decide)


def test_a_page_proposed_by_its_lines_must_agree_without_the_frame_it_shares() -> None:
    rng = random.Random(31)
    header, footer = heavy_site(rng, "Site")
    article = [paragraph(rng, 4), paragraph(rng, 4)]
    stored = page((header, footer), article, "A story")
    members = [stored_member(stored)]
    # Another story of the site: the frame it shares is most of both, and what is left is elsewhere.
    other = page_features(page((header, footer), [paragraph(rng, 4)], "Another story"))
    assert shared_frame(other, members, [])
    assert not line_body_agrees(other, members, [], nshash.NSHash().opts.verify)
    # The story on another site: nothing shared and no lines seen elsewhere, the whole-text score stands alone.
    there = page_features(page(heavy_site(rng, "There"), article, "A story"))
    assert not shared_frame(there, members, []) and line_body_agrees(there, members, [], 1.0)
    # Lines seen in other clusters (its site's frame) are left out: what is left must be in the member.
    known = list(range(1, 3)) + list(range(len(there.line_keys) - 5, len(there.line_keys)))
    assert line_body_agrees(there, members, known, nshash.NSHash().opts.verify)
    assert not line_body_agrees(there, [stored_member(page((header, footer), [paragraph(rng, 8)], "X"))], known, 0.5)

"""How far containment estimates are trusted (``nshash.estimate``): a page's body against a member far larger."""

from __future__ import annotations

import random

import pytest

import nshash.decide
import nshash.verify
from nshash.estimate import BODY_SIZE_RATIO, SIZE_RATIO, SIZE_RATIO_CONTAINMENT, SIZE_RATIO_GRAMS, body_score
from nshash.sketch import Sketch, sketch
from tests.pages import assert_rule_joins, heavy_site, ideographs, page, paragraph


def test_a_body_far_smaller_than_the_member_counts_only_when_almost_wholly_in_it() -> None:
    rng = random.Random(11)
    article = "\n".join(paragraph(rng, 4) for _ in range(2))
    frame = "\n".join(paragraph(rng, 4) for _ in range(10))
    body, member = sketch(article), sketch(f"{frame}\n{article}\n{frame[::-1]}")
    assert member.grams >= BODY_SIZE_RATIO * body.grams and body.grams >= SIZE_RATIO_GRAMS
    assert body_score(body, member) >= SIZE_RATIO_CONTAINMENT
    # Half of it elsewhere: no longer almost wholly in it, so nothing (not half).
    half = sketch(article[: len(article) // 2] + "\n" + paragraph(rng, 6))
    assert body_score(half, member) == 0.0
    # Too small to trust however contained; and a body far larger than the member is not this case.
    assert body_score(sketch(article[:150]), member) == 0.0
    assert body_score(member, body) == 0.0


def _before(body: Sketch, other: Sketch, cjk: bool = False) -> float:
    """``body_score`` as it was: nothing at all once the sizes are ``BODY_SIZE_RATIO`` apart."""
    small, large = sorted((body.grams, other.grams))
    return 0.0 if large >= BODY_SIZE_RATIO * small else body_score(body, other, cjk)


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_verbatim_copy_joins_an_original_inside_a_far_longer_page(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    # The original's site wraps it in a frame several times its length; the copying site's frame is
    # known (two of its pages came first), so the copy's body is the article alone.
    here = ([*heavy_site(rng, "Here")[0], paragraph(rng, 4)], [paragraph(rng, 4) for _ in range(8)])
    there = heavy_site(rng, "There")
    article = [paragraph(rng, 4), paragraph(rng, 3)]
    others = [page(there, [paragraph(rng, 4)], f"Other {n}") for n in range(2)]
    original = page(here, article, "The story")
    assert len(original) >= BODY_SIZE_RATIO * len("\n".join(article))
    copy = page(there, article, "The story")
    assert_rule_joins(original, others, copy, native, monkeypatch, "body_score", _before, module=nshash.verify)


def _without_cjk(body: Sketch, other: Sketch, cjk: bool = False) -> float:
    """``body_score`` as it was before CJK bodies counted at their estimate."""
    return body_score(body, other)


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_an_edited_copy_of_a_short_chinese_article_joins_on_its_body(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short Chinese article in a frame three to six times its size, copied to a site whose frame is
    # known (two of its pages came first), a character edited in every sentence: the copy's body is
    # the article alone, and counts at its estimate (CJK_BODY_GRAMS); as for a Latin page, one error
    # below it and nothing at all three times smaller than the original, it stayed apart.
    rng = random.Random(3)

    def lines(count: int, size: int) -> list[str]:
        return [ideographs(rng, size) + "\u3002" for _ in range(count)]

    def edited(line: str) -> str:
        at = rng.randrange(len(line) - 1)
        return line[:at] + ideographs(rng, 1) + line[at + 1 :]

    here = (lines(4, 18), lines(20, 20))
    there = (lines(4, 45), lines(6, 18))
    article = lines(6, 32)
    original = page(here, article, "\u6807\u9898")
    copy = page(there, [edited(line) for line in article], "\u6807\u9898")
    others = [page(there, lines(6, 32), f"\u5176\u4ed6{n}") for n in range(2)]
    body = sketch("\n".join(article))
    assert BODY_SIZE_RATIO * body.grams <= sketch(original).grams < SIZE_RATIO * body.grams
    assert_rule_joins(original, others, copy, native, monkeypatch, "body_score", _without_cjk, module=nshash.verify)

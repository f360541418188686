"""A page of a member's own site whose article the index has seen elsewhere (verify: own_article, not on one site)."""

from __future__ import annotations

import random

import pytest

import nshash
import nshash.verify
from tests.pages import assert_rule_joins, paragraph, python_decision, sentence


def _headline_site(rng: random.Random) -> tuple[list[str], list[str]]:
    """A gadget site: menus; a footer of the day's headlines, one line each, a notice and links."""
    header = ["Home", "Phones", "Tablets", "Reviews", "News", "Deals", "Sign in"]
    headlines = [sentence(rng, rng.randint(5, 12))[:-1] for _ in range(16)]
    links = ["About us", "Contact", "Privacy", "Terms of use"]
    return header, [*headlines, paragraph(rng, 2), "Copyright 2024 Example.", *links]


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_an_article_seen_in_two_clusters_does_not_join_its_sites_other_article(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The article's lines are known (two pages that each quote it beside a long story of their own
    hold it), so they are left out of the page; what is left is the site's frame, which a page of
    another article of the site has too.  Against a member of the page's own site that frame is not
    the article: before, the page joined that member at 1.0 (real chrome around real articles: an
    article missed once, then put on a gadget site, joined the site's other article there).
    """
    python_decision(native, monkeypatch)
    rng = random.Random(557)
    header, footer = _headline_site(rng)
    other = "\n".join(["Another story", *header, *(paragraph(rng, 4) for _ in range(4)), *footer])
    article = [paragraph(rng, 3), paragraph(rng, 2)]
    quoting = ["\n".join([f"Story {i}", *article, *(paragraph(rng, 5) for _ in range(8))]) for i in range(2)]
    page = "\n".join(["A short story", *header, *article, *footer])
    nsh = nshash.NSHash()
    first = nsh.get_similar(other)
    ids = [nsh.get_similar(text) for text in quoting]
    assert len({first, *ids}) == 3  # the article is in two clusters, the site's other article in a third
    assert nsh.get_similar(page) != first


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_revision_on_its_own_site_still_joins(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The revision's own lines are its note and lines other pages of the site have: the frame it shares
    with its first version holds the article, and the page without those lines is compared
    (frame.own_article).  Without it on one site (the frame left out of both) the two agree at 0.22 and
    stay apart, as an independent corpus's revision of a short article on its site did."""
    rng = random.Random(1390)
    header, footer = _headline_site(rng)
    note = "Update: this article was revised for the latest release"
    titles = [sentence(rng, 5) for _ in range(4)]  # short sentences: not a list, no paragraph
    article = [paragraph(rng, 2), paragraph(rng, 2)]

    def page(title: str, own: list[str]) -> str:
        return "\n".join([title, *header, *article, *own, *footer])

    others = ["\n".join([f"Story {i}", *header, paragraph(rng, 6), note, *titles, *footer]) for i in range(2)]
    first = page("My computer gets too hot", [sentence(rng, 5) for _ in range(4)])
    revision = page("My computer gets too hot", [note, *titles])
    assert_rule_joins(
        first, others, revision, native, monkeypatch, "article_is_shared", lambda *args: False, nshash.verify
    )

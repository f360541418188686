"""The decision rule of NSHash 2 and a page's frame: headers, footers, menus and notices left out of verification."""

from __future__ import annotations

import random
from collections.abc import Collection

import pytest

import nshash
import nshash.decide
import nshash.edges
import nshash.fingerprint
import nshash.frame
import nshash.linebreaks
import nshash.members
import nshash.verify
from nshash.edges import line_filter
from nshash.members import Member
from nshash.options import Options
from nshash.sketch import containment, sketch
from tests.fleet import edit_characters
from tests.pages import (
    WORDS,
    assert_rule_joins,
    make_site,
    page,
    page_features,
    paragraph,
    python_decision,
    sentence,
    stored_member,
)


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_reprint_on_another_site_joins_just_below_verify(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """decide.FRAMELESS_EASING: sharing no frame with the members, a little less than ``verify`` suffices."""
    from nshash.decide import FRAMELESS_EASING
    from nshash.stores.memory import HashDBMemory
    from nshash.verify import verify_score

    rng = random.Random(13)
    site, other = make_site(rng), make_site(rng)
    sentences = [sentence(rng) for _ in range(24)]
    original = page(site, [" ".join(sentences[i : i + 4]) for i in range(0, 24, 4)], "An article")
    # Its two longest sentences rewritten, on another site: the rest of its keys lead to the original.
    longest = sorted(range(24), key=lambda i: -len(sentences[i]))[:2]
    edited = [sentence(rng) if i in longest else text for i, text in enumerate(sentences)]
    copy = page(other, [" ".join(edited[i : i + 4]) for i in range(0, 24, 4)], "An article")
    verify = Options().verify
    assert verify - FRAMELESS_EASING <= verify_score(page_features(copy), [stored_member(original)]) < verify
    if not native:
        monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
    nsh = nshash.NSHash()
    first = nsh.get_similar(original)
    assert nsh.add(copy).similar_id == first
    if not native:  # and without the easing it stays apart: the easing is what joined it
        monkeypatch.setattr(nshash.decide, "FRAMELESS_EASING", 0.0)
        nsh = nshash.NSHash()
        nsh.get_similar(original)
        assert nsh.add(copy).is_new


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_truncated_copy_above_a_list_of_related_titles_joins_its_article(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The copy keeps the article's first paragraphs, then "read more" and other articles' titles.
    # Its paragraphs are the run of lines it shares with the original from the top and, over the
    # titles, from the bottom: once taken for a header and footer and left out (score ~0.1).
    from nshash.edges import chrome_lines

    rng = random.Random(14)
    body = [" ".join(sentence(rng) for _ in range(5)) for _ in range(3)] + [paragraph(rng, 2)]
    original = page((["Home | News | Tech"], ["(c) 2024 Example Daily", "Back to top"]), body, "The story")
    # (a run of lines without a sentence end is a link list, dropped; the question stays, below the block)
    titles = ["Read more >>", "You may also like", "Faster builds", "Why we moved", "What happens at the next release?"]
    copy = "\n".join(["The story", *body[:3], *titles])
    doc = page_features(copy)
    assert chrome_lines(doc.line_keys, doc.line_grams, stored_member(original).lines) == set()
    _assert_joins(original, copy, native, monkeypatch)


def _assert_joins(original: str, copy: str, native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``copy`` joins ``original``'s cluster by verification, through the C decision or the Python one."""
    from nshash.stores.memory import HashDBMemory

    if not native:
        monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
    nsh = nshash.NSHash()
    first = nsh.get_similar(original)
    joined = nsh.add(copy)
    assert joined.similar_id == first and joined.score >= Options().verify


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_without_a_footer_of_its_own_joins_its_article(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # The copy's last paragraphs are the original's last ones, verbatim; the original has its
    # site's footer below them.  Shared from the copy's bottom and with no header shared, they
    # were taken for a footer and left out: what remained, edited, scored below verify.
    from nshash.edges import chrome_lines, member_tail
    from nshash.verify import verify_score

    rng = random.Random(23)
    body = [paragraph(rng, 4) for _ in range(6)]
    site = (["Home | News | Tech | About | Contact", paragraph(rng, 1)], [paragraph(rng, 2), "Back to top"])
    original = page(site, body, "The story")
    edited = [edit_characters(p, rng, len(p) // 10) for p in body[:3]]
    copy = "\n".join(["The story, reprinted", "By a staff writer", *edited, *body[3:]])
    doc, stored = page_features(copy), page_features(original)
    untold = stored_member(original)  # as members stored before their tail was kept
    told = untold._replace(tail=member_tail(stored.line_keys, stored.line_grams))
    count = len(doc.line_keys)
    assert chrome_lines(doc.line_keys, doc.line_grams, untold.lines) == {count - 3, count - 2, count - 1}
    assert chrome_lines(doc.line_keys, doc.line_grams, told.lines, told.tail) == set()
    assert verify_score(doc, [untold]) < Options().verify <= verify_score(doc, [told])
    _assert_joins(original, copy, native, monkeypatch)
    if not native:  # and with the tail unknown it stays apart: the tail is what joined it
        monkeypatch.setattr(nshash.members, "speedups", None)
        monkeypatch.setattr(nshash.members, "member_tail", lambda keys, grams: 0)
        nsh = nshash.NSHash()
        nsh.get_similar(original)
        assert nsh.add(copy).is_new


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_that_is_most_of_a_run_from_the_bottom_joins_its_article(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The original's footer lines are all short, so its last long line is its article's last
    # paragraph.  A copy on another site, with no footer of its own, ends in the article's two
    # paragraphs: a run from its bottom that holds that line, and is most of the copy.
    from nshash.edges import chrome_lines, member_tail
    from nshash.verify import verify_score

    rng = random.Random(31)
    body = [paragraph(rng, 4), paragraph(rng, 4)]
    footer = [
        "Copyright 2012-2024 Example Media Ltd, all rights reserved.",
        "Join our readers' group to talk about what you read here.",
        "Scan the code to follow us and share this with your friends.",
    ]
    original = page((["Home > Tech > Article", "2024-01-27 07:38 read 9203"], footer), body, "The story")
    own = ["Saved from the story as it ran on another site", "Follow us for more stories like this, every day."]
    copy = "\n".join([*own, *body])
    doc, stored = page_features(copy), page_features(original)
    told = stored_member(original)._replace(tail=member_tail(stored.line_keys, stored.line_grams))
    count = len(doc.line_keys)
    assert chrome_lines(doc.line_keys, doc.line_grams, told.lines, told.tail) == set()
    assert verify_score(doc, [told]) >= Options().verify
    _assert_joins(original, copy, native, monkeypatch)
    # Were a footer allowed to be most of the page, the two paragraphs would be one, and left out,
    # unless taken for the article since they are most of the copy (frame.ARTICLE_SHARE).
    monkeypatch.setattr(nshash.edges, "_FOOT_SHARE", 1.0)
    assert chrome_lines(doc.line_keys, doc.line_grams, told.lines, told.tail) == {count - 2, count - 1}
    assert verify_score(doc, [told]) >= Options().verify
    monkeypatch.setattr(nshash.frame, "ARTICLE_SHARE", 2.0)
    assert verify_score(doc, [told]) < Options().verify


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_under_a_common_menu_above_its_own_footer_joins_its_article(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two sites use one menu line.  A copy on the second site edits the article's first
    # paragraphs and keeps its last ones verbatim, above its own site's footer, which the
    # site's other pages have.  The shared menu looked like one site's header, so the footer
    # was stepped over as a list of related titles, and the last paragraphs were taken for a
    # footer both pages share and left out: what remained, edited, scored below verify.
    rng = random.Random(53)
    original, others, copy = _copy_above_its_own_footer(rng, [paragraph(rng, 3) for _ in range(6)])
    assert_rule_joins(original, others, copy, native, monkeypatch, "_own_footer", lambda *args: False)


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_above_its_own_footer_joins_though_its_article_holds_a_line_others_have(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As above, and one of the paragraphs kept verbatim is a line the manual repeats on its other
    # pages ("To access this command..."): the run was taken for a footer both pages share,
    # since it held a line other clusters have.  A footer both pages have holds mostly such lines.
    rng = random.Random(71)
    repeated = "To access this command, choose Tools - Options - Security and then the Options button."
    article = [paragraph(rng, 3) for _ in range(4)] + [repeated] + [paragraph(rng, 3) for _ in range(3)]
    original, others, copy = _copy_above_its_own_footer(rng, article, repeated)
    assert_rule_joins(original, others, copy, native, monkeypatch, "_FOOT_KNOWN", 0.0)


def _copy_above_its_own_footer(
    rng: random.Random, article: list[str], repeated: str | None = None
) -> tuple[str, list[str], str]:
    """An original under a menu two sites use; two pages of another site (holding ``repeated`` between
    their paragraphs, when given); and that site's copy of the article, its first three paragraphs
    edited and the rest verbatim above the site's footer."""
    menu = "Home | News | Tech | About | Contact"
    original = "\n".join(["The story", menu, "2024-03-02 09:15", *article, paragraph(rng, 2), "Back to top"])
    footer = ["Copyright 2024 Other Media, all rights reserved.", "Follow us for more stories.", "Share this page"]
    if repeated is None:
        bodies = [[paragraph(rng, 3) for _ in range(3)] for _ in range(2)]
    else:
        bodies = [[paragraph(rng, 3), repeated, paragraph(rng, 3)] for _ in range(2)]
    others = ["\n".join([f"Another story {i}", menu, *body, *footer]) for i, body in enumerate(bodies)]
    edited = [edit_characters(p, rng, len(p) // 4) for p in article[:3]]
    copy = "\n".join(["The story, reprinted", menu, "By a staff writer", *edited, *article[3:], *footer])
    return original, others, copy


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_on_the_articles_own_site_keeps_its_article(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # The article again on its own site, under another title and date and above an editor's line:
    # the copy shares the site's menu, the article and the site's footer with its source, one block
    # from top to bottom over its date and editor lines, and all of it was left out as frame (and
    # the article's lines as frame against a reprint on another site too).  The menu and the footer
    # are lines the site's other pages have; the article is not.
    from nshash.edges import _past_a_gap

    rng = random.Random(73)

    def line(letters: int) -> str:
        return _line(rng, letters)

    menu = "Home | News | Tech | About | Contact"
    footer = [line(110), line(60), line(120), line(30)]
    article = [line(n) for n in (66, 25, 22, 33, 41, 44, 23, 23, 20, 39, 25, 24, 130)]
    others = [
        "\n".join([f"Another story {i}", menu, line(25), *[line(200) for _ in range(3)], *footer]) for i in range(2)
    ]
    source = "\n".join(["The story", menu, line(25), *article, line(8), *footer])
    reprint = "\n".join(["The story", "Other Site Daily - front page - world - tech", *article, line(300), line(40)])
    copy = "\n".join(["The story, told again here", menu, line(27), *article, line(8), *footer])
    assert _past_a_gap({1, 3, 4, 5, 7, 8}, {1, 7, 8}) == {3, 4, 5}  # a known footer ends the block
    assert _past_a_gap({1, 3, 4, 5, 7, 8}, {1, 4, 7, 8}) == set()  # a known line in between: a header
    assert _past_a_gap({1, 3, 4}, {1, 3, 4}) == set()  # nothing between: all frame

    def first_gap_only(head: set[int], known: Collection[int]) -> set[int]:  # the rule before the footer run
        lines = sorted(head)
        for index in range(1, len(lines)):
            if lines[index] != lines[index - 1] + 1:
                above, below = lines[:index], lines[index:]
                return set(below) if set(above) <= set(known) and set(below).isdisjoint(known) else set()
        return set()

    assert_rule_joins(source, others, copy, native, monkeypatch, "_past_a_gap", first_gap_only, joining=[reprint])


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_under_notices_other_sites_copy_keeps_its_article(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Sites copy notices verbatim from one another, each with lines of its own between them.  A copy
    # on another site keeps the article's paragraphs and shares those notices with its original: the
    # run from the bottom went over the copy's own lines and on through the paragraphs, and the whole
    # article was left out as footer.  The notices are lines other clusters have; the paragraphs are not.
    from nshash.edges import _above_the_footer

    rng = random.Random(29)

    def line(letters: int) -> str:
        return _line(rng, letters)

    notices = [line(70) for _ in range(3)]
    article = [line(180) for _ in range(3)]
    original = "\n".join(
        [
            "The story",
            "Home | News | Tech",
            "Updated at 09:15 by the desk",  # a line of its own (not a byline: no date)
            *article,
            "Call us: 400-100-2000",
            notices[0],
            line(150),
            notices[1],
            line(150),
            notices[2],
            "Share this page.",
        ]
    )
    others = [
        "\n".join(
            [
                f"Another story {i}",
                "Front | World | Sport",
                *[line(200) for _ in range(4)],
                "Contact us",
                *notices,
                "Our own words here.",
            ]
        )
        for i in range(2)
    ]
    copy = "\n".join(
        [
            "The story",
            "Index | Daily | Opinion",
            "Filed by the night desk",
            *article,
            "Licence 12345-6",
            notices[0],
            line(150),
            notices[1],
            line(150),
            notices[2],
            "Cookies help us.",
        ]
    )
    assert _above_the_footer({6, 7, 10, 12, 13}, {10, 12, 13}) == {6, 7}  # above a gap: the article
    assert _above_the_footer({9, 10, 12, 13}, {10, 12, 13}) == set()  # no gap: a footer of two sorts of lines
    assert _above_the_footer({6, 7, 10, 12}, {6, 10, 12}) == set()  # a known line above: all footer
    assert_rule_joins(original, others, copy, native, monkeypatch, "_above_the_footer", lambda foot, known: set())


def _line(rng: random.Random, letters: int) -> str:
    """A sentence of random words, about ``letters`` long."""
    words = [_word(rng) for _ in range(letters // 6 + 1)]
    return " ".join(words).capitalize() + "."


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_edited_only_between_its_first_and_last_lines_joins(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy of a function reference that keeps its first and last lines verbatim, edits two lines
    # between them and ends in its own site's footer shares a "header" and a "footer" with its
    # source, around lines of its own: the shape of a sibling page of the source's site, and the
    # whole reference was left out as frame.  Those own lines are the source's text; a sibling's are
    # another article's.
    from nshash.edges import chrome_lines, line_filter
    from nshash.frame import edited_middle

    rng = random.Random(79)
    names = "sine cosine tangent cotangent secant cosecant arcsine arccosine arctangent logarithm exponent root"
    article = [
        f"Inserts the {name} function with one placeholder. You can also type {name[:4]}(<?>) in the Commands window."
        for name in names.split()
    ]
    footer = ["Copyright 2024 Other Media, all rights reserved.", "Follow us for more stories.", "Share this page"]
    original = "\n".join(["Functions", *article])
    edited = [line.replace("You can also", "You are also able to") for line in article[6:8]]
    copy = "\n".join(["Functions", *article[:6], *edited, *article[8:], *footer])
    others = ["\n".join([f"Another story {i}", *[paragraph(rng, 2) for _ in range(4)], *footer]) for i in range(2)]
    monkeypatch.setattr(nshash.frame, "EDITED_SPAN", 2.0)  # the edited-copy rule would join it too (Python)
    assert_rule_joins(original, others, copy, native, monkeypatch, "MIDDLE_SHARE", 2.0, nshash.frame)

    sibling = "\n".join(["Functions", *article[:6], paragraph(rng, 2), paragraph(rng, 2), *article[8:], *footer])
    fingerprinter = nshash.fingerprint.Fingerprinter(Options())
    source = fingerprinter.features(original)
    member = Member(source.sketch, line_filter(source.line_keys), 0)
    for text, expected in ((copy, True), (sibling, False)):
        found = fingerprinter.features(text)
        lines = chrome_lines(found.line_keys, found.line_grams, member.lines)
        assert max(lines) - min(lines) + 1 > len(lines)  # a header and a footer around lines of its own
        assert edited_middle(found, member, lines, set()) is expected


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_below_a_common_menu_and_a_byline_keeps_its_article(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two sites use one menu line and carry one disclaimer.  A copy on the second site keeps the
    # article's first paragraphs verbatim below a byline of its own: the shared header ran from
    # the menu over the byline into the article, which was left out as frame.
    from nshash.edges import _past_a_gap

    rng = random.Random(67)
    menu = "Home | News | Tech | About | Contact"
    disclaimer = "Disclaimer: " + paragraph(rng, 2)
    article = [paragraph(rng, 3) for _ in range(6)]
    original = "\n".join(["The story", menu, "2024-03-02 09:15", *article, paragraph(rng, 1), disclaimer])
    footer = [paragraph(rng, 1) for _ in range(4)]
    others = [
        "\n".join([f"Another story {i}", menu, f"2024-01-0{i}", *[paragraph(rng, 3) for _ in range(3)], *footer])
        + "\n"
        + disclaimer
        for i in range(2)
    ]
    edited = [edit_characters(p, rng, len(p) // 4) for p in article[3:]]
    copy = "\n".join(["The story, reprinted", menu, "By a staff writer", *article[:3], *edited, *footer, disclaimer])
    assert _past_a_gap({1, 3, 4, 5}, {1}) == {3, 4, 5}
    assert _past_a_gap({1, 3, 4, 5}, {1, 4}) == set()  # a line below the gap that others have: a header
    assert _past_a_gap({1, 2, 4, 5}, {1}) == set()  # a line above it that no other has
    assert_rule_joins(original, others, copy, native, monkeypatch, "_past_a_gap", lambda *args: set())


def test_a_footer_both_pages_have_stays_frame_above_known_related_titles() -> None:
    # edges._own_footer takes a run for the article only when none of its lines are known: two
    # articles of one site share a footer that the site's other pages have, and related titles
    # below it may have been seen in other pages' lists too.
    from nshash.edges import chrome_lines, member_tail

    rng = random.Random(59)
    header = ["Home | News | Tech | About | Contact", paragraph(rng, 1)]
    footer = [paragraph(rng, 1), "Copyright 2024 Example Media Ltd, all rights reserved.", paragraph(rng, 1)]
    related = ["Why a distribution needs a social contract", "A simple example of a package in two files"]
    doc = page_features("\n".join(["One story", *header, *[paragraph(rng, 3) for _ in range(3)], *footer, *related]))
    last = "What the archive keeps for older releases"
    other = "\n".join(["Another story", *header, *[paragraph(rng, 3) for _ in range(3)], *footer, last])
    # A tail naming none of the document's lines (an unrelated page's): the run's lines are what tells.
    unrelated = page_features("\n".join(paragraph(rng, 2) for _ in range(4)))
    tail = member_tail(unrelated.line_keys, unrelated.line_grams)
    bits = stored_member(other).lines
    count = len(doc.line_keys)
    titles = {count - 2, count - 1}
    footer_lines = {count - 5, count - 4, count - 3}
    assert footer_lines <= chrome_lines(doc.line_keys, doc.line_grams, bits, tail, titles | {count - 4})
    assert chrome_lines(doc.line_keys, doc.line_grams, bits, tail, titles) == set()
    assert footer_lines <= chrome_lines(doc.line_keys, doc.line_grams, bits, tail)


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_whose_own_lines_are_its_sites_frame_joins_its_article(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The copy keeps the article line for line from its top, then its own site's footer (which
    # that site's other pages have), then a disclaimer both sites carry verbatim.  The member
    # has the article's lines and the disclaimer: the article was taken for a header, the
    # disclaimer for a footer, and nothing was left to compare but the copy's own footer.
    from nshash.stores.memory import HashDBMemory

    rng = random.Random(41)
    disclaimer = "Disclaimer: " + paragraph(rng, 2)
    article = [paragraph(rng, 1) for _ in range(6)]
    original = "\n".join(["The story", "Home | News | Tech | About | Contact", *article, paragraph(rng, 1), disclaimer])
    footer = [paragraph(rng, 1) for _ in range(3)]
    bodies = [[paragraph(rng, 2) for _ in range(4)] for _ in range(3)]
    others = ["\n".join([f"Another story {i}", *body, *footer, disclaimer]) for i, body in enumerate(bodies)]
    copy = "\n".join([*article, *footer, disclaimer])

    def copy_joins() -> bool:
        nsh = nshash.NSHash()
        first = nsh.get_similar(original)
        assert len({nsh.get_similar(other) for other in others} | {first}) == 4
        joined = nsh.add(copy)
        return joined.similar_id == first and joined.score >= Options().verify

    if not native:
        monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
    assert copy_joins()
    if not native:  # and without the rule (in the Python verification) it stays apart
        monkeypatch.setattr(nshash.verify, "speedups", None)
        assert copy_joins()
        monkeypatch.setattr(nshash.frame, "OWN_KNOWN", 2.0)
        assert not copy_joins()


def _menu_pages(rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """Two long paragraphs a manual's menu pages share, its menu names, and a short description of each."""
    shared = [" ".join(sentence(rng) for _ in range(3)) for _ in range(2)]
    names = ["File", "Edit", "View", "Insert", "Format", "Help"]

    def short() -> str:
        return " ".join(" ".join(rng.choice(WORDS) for _ in range(6)).capitalize() + "." for _ in range(2))

    return shared, names, [short() for _ in names]


def _menu_page(title: str, shared: list[str], names: list[str], descriptions: list[str]) -> str:
    return "\n".join([title, *shared, *(line for pair in zip(names, descriptions) for line in pair)])


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_menu_pages_sharing_their_longest_paragraphs_line_for_line_stay_apart(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two menu pages of one manual: the same two long paragraphs and menu names, line for line,
    # each menu described in words of its own.  The paragraphs hold the longest sentences, which
    # all vote for the other page; it holds half of this one.
    from nshash.frame import template_sibling
    from nshash.stores.memory import HashDBMemory

    rng = random.Random(43)
    shared, names, own = _menu_pages(rng)
    draw = _menu_page("Draw menus", shared, names, own)
    calc = _menu_page("Calc menus", shared, names, _menu_pages(rng)[2])
    assert 0.4 < containment(page_features(calc).sketch, page_features(draw).sketch) < Options().verify
    assert template_sibling(page_features(calc), stored_member(draw), set())
    # A copy with its descriptions edited: the lines between are the member's text.
    edited = _menu_page("Draw menus", shared, names, [edit_characters(d, rng, 3) for d in own])
    assert not template_sibling(page_features(edited), stored_member(draw), set())
    # A copy with a paragraph of another article inserted: one run of its own lines, not two.
    inserted = draw.replace("\nView\n", "\n" + paragraph(rng, 3) + "\nView\n")
    assert not template_sibling(page_features(inserted), stored_member(draw), set())
    if not native:
        monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)

    def joined() -> bool:
        nsh = nshash.NSHash()
        first = nsh.get_similar(draw)
        return nsh.get_similar(calc) == first

    assert not joined()
    if not native:  # without the rule (in the Python decision) the votes join them
        monkeypatch.setattr(nshash.verify, "speedups", None)
        monkeypatch.setattr(nshash.frame, "SIBLING_RUNS", 10**6)
        assert joined()


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_ending_in_the_article_its_original_ends_in_joins_it(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The original has no footer (its related titles went as a link list): it ends in the
    # article.  A copy under a shortened title and a byline ends in the same paragraphs: the run
    # of lines they share from the bottom is the member's whole article, not a shared footer.
    rng = random.Random(44)
    article = [" ".join(sentence(rng) for _ in range(4)) for _ in range(2)]
    title = "I am using another system now and would like to move to this one: how should I migrate?"
    original = "\n".join([title, *article])
    copy = "\n".join([title[:20], "Source: Example Daily, by A. Writer, 2020-02-22", *article])
    doc, member = page_features(copy), stored_member(original)
    assert nshash.verify.verify_score(doc, [member]) > 0.9
    assert nshash.frame.shared_frame(doc, [member]) == set()
    assert nshash.frame.shared_frame(doc, [member], [2, 3]) == {2, 3}  # lines seen elsewhere: a footer after all
    _assert_joins(original, copy, native, monkeypatch)
    if not native:  # without the rule (in the Python decision) the article is left out as a footer
        monkeypatch.setattr(nshash.verify, "speedups", None)
        monkeypatch.setattr(nshash.frame, "ARTICLE_SHARE", 2.0)
        assert nshash.frame.shared_frame(doc, [member]) == {2, 3}
        assert nshash.verify.verify_score(doc, [member]) < 0.4
        nsh = nshash.NSHash()
        nsh.get_similar(original)
        assert nsh.add(copy).is_new


def test_a_run_from_the_bottom_with_a_line_seen_elsewhere_is_still_the_article() -> None:
    # A function reference's article holds a line its manual repeats on other pages; other
    # clusters have that line.  The run the copy shares from its bottom is still the article
    # while such lines are at most frame.ARTICLE_KNOWN of it; a site's footer is mostly such lines.
    rng = random.Random(45)
    article = [" ".join(sentence(rng) for _ in range(3)) for _ in range(4)]
    repeated = "Functions whose names end in _ADD return the same results as those without it."
    original = "\n".join(["EFFECT", *article[:2], repeated, *article[2:]])
    byline = "Source: Example Daily, from the archive"  # a line of its own (a dated one is dropped: chrome.is_byline)
    copy = "\n".join(["EFFECT, from the manual", byline, *article[:2], repeated, *article[2:]])
    doc, member = page_features(copy), stored_member(original)
    lines = set(range(2, len(doc.line_keys)))
    assert nshash.frame.shared_frame(doc, [member]) == set()
    assert nshash.frame.shared_frame(doc, [member], [4]) == set()  # the repeated line, seen elsewhere
    assert nshash.frame.shared_frame(doc, [member], [2, 3, 4, 5]) == lines  # most of it seen elsewhere: a footer


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_truncated_copy_under_a_line_of_its_own_joins_its_article(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every line of the copy below its own first line is one of the original's, from its top on:
    # one block, the run from the top and the run from the bottom alike.  Taken for a header and a
    # footer, it left nothing to compare (containment 0.0).  A site's frame holds the member's
    # last lines; this block does not.
    from nshash.edges import chrome_lines, member_tail

    rng = random.Random(61)
    article = [paragraph(rng, 3) for _ in range(8)]
    footer = ["Copyright 2024 Example Media Ltd, all rights reserved.", paragraph(rng, 1)]
    original = "\n".join(["The story", *article, *footer])
    copy = "\n".join(["Reposted from Example Media: " + paragraph(rng, 2), *article[:5]])
    doc, stored = page_features(copy), page_features(original)
    member = stored_member(original)
    tail = member_tail(stored.line_keys, stored.line_grams)
    block = set(range(1, len(doc.line_keys)))
    assert chrome_lines(doc.line_keys, doc.line_grams, member.lines) == block  # no tail: frame
    assert chrome_lines(doc.line_keys, doc.line_grams, member.lines, tail) == set()
    _assert_joins(original, copy, native, monkeypatch)
    if not native:  # were the member's end taken as found, the block would be frame: apart
        monkeypatch.setattr(nshash.verify, "speedups", None)
        monkeypatch.setattr(nshash.edges, "at_the_end", lambda tail, keys, grams, lines: True)
        nsh = nshash.NSHash()
        nsh.get_similar(original)
        assert nsh.add(copy).is_new
        monkeypatch.undo()
    # A page of nothing but the member's header and footer holds its end: frame still.
    frame_only = "\n".join(["Another story", *footer])
    shell = page_features("\n".join(["Section index", *footer]))
    assert chrome_lines(shell.line_keys, shell.line_grams, stored_member(frame_only).lines, tail) == {1, 2}


def test_own_article_needs_the_pages_own_lines_known_elsewhere() -> None:
    from nshash.frame import own_article

    doc = page_features("\n".join(paragraph(random.Random(i), 1) for i in range(5)))
    frame = {0, 1, 2}  # lines 3 and 4 are the page's own
    assert own_article(doc, frame, [3, 4]) is not None
    assert own_article(doc, frame, [3]) is None  # line 4, its own, is seen nowhere else
    assert own_article(doc, set(), [3, 4]) is None  # no frame shared with the member: nothing to take back
    assert own_article(doc, frame, [3, 4]) == sketch(doc.whole[: doc.line_ends[2]])


def test_a_footer_above_another_articles_title_is_still_a_footer() -> None:
    # Two articles of one site, no header shared (their bylines differ), each page ending in a
    # link to another article: the member's last line is a title the page lacks, but its last
    # long line is the footer's, which the page has.
    from nshash.edges import chrome_lines, member_tail

    rng = random.Random(23)
    footer = [paragraph(rng, 3), paragraph(rng, 2)]

    def article(title: str) -> str:
        link = f"Why {' '.join(rng.choice(WORDS) for _ in range(3))}?"
        return "\n".join([title, f"By {rng.choice(WORDS)}", *(paragraph(rng, 3) for _ in range(3)), *footer, link])

    one, other = page_features(article("One story")), page_features(article("Another story"))
    tail = member_tail(other.line_keys, other.line_grams)
    assert tail >> 20 != tail & 0x3FF  # the last line and the last long line differ
    frame = chrome_lines(one.line_keys, one.line_grams, line_filter(other.line_keys), tail)
    count = len(one.line_keys)
    assert frame == {count - 3, count - 2}  # the footer's two paragraphs, above the link


def test_a_footer_above_an_edited_line_and_a_page_id_is_still_a_footer() -> None:
    # One site's two articles, no header shared (the menu line carries an edit); each page ends in
    # a page id of its own, and one's registration line carries an edit: two short lines of its
    # own below the footer, which were enough to hide it.
    from nshash.edges import chrome_lines, member_tail

    rng = random.Random(24)
    notices = [paragraph(rng, 3), paragraph(rng, 2)]

    def article(title: str, menu: str, registration: str, page_id: str) -> str:
        body = [paragraph(rng, 3) for _ in range(3)]
        return "\n".join([title, menu, *body, *notices, registration, f"share-id {page_id}"])

    one = page_features(article("One story", "Home - News - Tech", "ICP 13764822-1", "0017-fcd71d42"))
    other = page_features(article("Another story", "Home - Nwes - Tech", "ICP 137648221", "0005-69f85e31"))
    frame = chrome_lines(one.line_keys, one.line_grams, line_filter(other.line_keys))
    assert frame == {len(one.line_keys) - 4, len(one.line_keys) - 3}  # the two notices
    tail = member_tail(other.line_keys, other.line_grams)
    assert chrome_lines(one.line_keys, one.line_grams, line_filter(other.line_keys), tail) == frame


def test_a_small_page_is_not_contained_in_a_big_one_by_chance() -> None:
    """Every 5-gram of a short text of common words turns up somewhere in a page ten times its size."""
    from nshash.estimate import trusted_containment

    rng = random.Random(5)
    common = WORDS[:300]  # a small vocabulary: the big page holds most of its 5-grams

    def prose(sentences: int) -> str:
        return " ".join(" ".join(rng.choice(common) for _ in range(10)).capitalize() + "." for _ in range(sentences))

    small, big = sketch(prose(4)), sketch(prose(120))
    assert big.grams > 6 * small.grams
    assert containment(small, big) >= 0.7  # the estimate alone would join them
    assert trusted_containment(small, big, 0) == 0.0
    # An excerpt really contained in a big page still counts.
    article = prose(120)
    excerpt = article[: len(article) // 12]
    assert trusted_containment(sketch(excerpt), sketch(article), 0) >= 0.95


def _flat_site_page(rng: random.Random, notices: list[str], title: str, body: list[str]) -> str:
    """A page as a dataset that removed its line breaks gives it: the menu glued to the title, the site's
    share links glued to its related titles after its notices."""
    related = " ".join(sentence(rng, 4)[:-1] for _ in range(4))
    share = f"Share this: Twitter Facebook Reddit Email Print You may also like: {related}"
    return " ".join([f"{title} Menu Search Subscribe Log in", *body, *notices, share])


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_sites_pages_that_lost_their_line_breaks_stay_apart(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # The site's notices, the pages' longest sentences, vote for its first page; its last line, links glued to
    # other articles' titles, differs from page to page and is long: the footer above it was not found.
    python_decision(native, monkeypatch)
    rng = random.Random(1)
    notices = [sentence(rng, 22) for _ in range(6)]
    articles = [[sentence(rng, 14) for _ in range(5)] for _ in range(4)]
    nsh = nshash.NSHash()
    ids = [nsh.get_similar(_flat_site_page(rng, notices, sentence(rng, 4)[:-1], a)) for a in articles]
    assert len(set(ids)) == 4
    assert nsh.get_similar(_flat_site_page(rng, notices, "Re: " + sentence(rng, 3)[:-1], articles[1])) == ids[1]


def test_features_say_whether_a_page_came_without_line_breaks() -> None:
    rng = random.Random(2)
    fingerprinter = nshash.NSHash().fingerprinter
    body = [sentence(rng, 14) for _ in range(8)]
    joined = " ".join(body)
    assert len(joined) > 450
    cases = {joined: True, "\n".join(body): False, joined + "\n": False, " ".join(body[:2]): False}
    for text, flat in cases.items():
        assert fingerprinter.features_python(text).flat is flat
        assert fingerprinter.features(text).flat is flat  # the C features when built, the same


@pytest.mark.parametrize("seed", [0, 3, 5])
@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_copy_of_an_article_whose_lines_two_clusters_have_still_joins(
    seed: int, native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """decide.split_article: an article once split over two clusters does not become its later copies' frame.

    A digest page holds the article among far more prose of other stories: a cluster of its own, and
    the article's lines are now seen in two clusters.  A later copy on a third site shares no frame
    with the original, and its lines other clusters have are all its article: bounded as a frame
    (estimate.unframed_score), it scored 0 though most of its sentences led to the original.
    """
    rng = random.Random(seed)
    article = [paragraph(rng, 4) for _ in range(5)]
    original = page(make_site(rng), article, "The story")
    digest = page(make_site(rng), [*article, *(paragraph(rng, 4) for _ in range(60))], "Weekly digest")
    copy = page(make_site(rng), article, "The story, as we ran it")

    def copy_joins() -> bool:
        nsh = nshash.NSHash()
        first = nsh.get_similar(original)
        assert nsh.get_similar(digest) != first  # the split
        why = nsh.explain_decision(copy)
        (candidate,) = [c for c in why["candidates"] if c["cluster"] == first]
        assert candidate["share"] >= nshash.decide.MAJORITY_SHARE and not candidate["shared_frame"]
        if candidate["passed"]:
            assert candidate["rule"].endswith("its lines other clusters have are its article's, not a frame")
        return nsh.add(copy).similar_id == first

    python_decision(native, monkeypatch)
    assert copy_joins()
    if not native:
        monkeypatch.setattr(nshash.decide, "split_article", lambda *args: False)
        assert not copy_joins()


def _joined_html_page(rng: random.Random, notices: list[str], title: str, body: list[str]) -> str:
    """A page of a site whose every line break a dataset removed, its article still in ``<p>`` tags: the title,
    menu, a notice and the date glued into one first line, a notice and the popular titles into one last line,
    each of 300 to 450 characters."""
    popular = " ".join(sentence(rng, 4)[:-1] for _ in range(3))
    paragraphs = " ".join(f"<p>{paragraph}</p>" for paragraph in body)
    header = [title, "Home > Tech > Article", notices[0], "Published 21 Jul 2019 · 8 min read"]
    return " ".join([*header, paragraphs, "Contact us: desk@example.org", notices[1], "Popular now", popular])


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_sites_joined_pages_whose_glued_edges_are_under_450_stay_apart(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """linebreaks.FLAT_EDGE: on a page that came without any line break, its first and last lines break over 300.

    Block tags gave the article its lines back, but the site's header and footer, each its own title or
    titles glued to the same long notice, stayed lines of 300-450 that differ from page to page: no
    frame was found, and the notices joined the site's articles to one another.
    """
    python_decision(native, monkeypatch)
    rng = random.Random(4)
    notices = [" ".join(sentence(rng, 16) for _ in range(2)) for _ in range(2)]
    articles = [[sentence(rng, 12) + " " + sentence(rng, 10) for _ in range(3)] for _ in range(4)]

    def run() -> list[int]:
        rng = random.Random(5)
        pages = [_joined_html_page(rng, notices, sentence(rng, 5)[:-1], article) for article in articles]
        header = pages[0].split("<p>")[0]
        assert "\n" not in pages[0] and nshash.linebreaks.FLAT_EDGE < len(header) < nshash.linebreaks.FLAT_LINE
        nsh = nshash.NSHash()
        ids = [nsh.get_similar(text) for text in pages]
        copy = "\n".join(["Reprinted from elsewhere", *articles[1], "Shared with permission."])
        return [*ids, nsh.get_similar(copy)]

    *ids, copy = run()
    assert len(set(ids)) == 4 and copy == ids[1]
    if not native:  # with those lines broken only over 450, as every other line, the site's articles join
        monkeypatch.setattr(nshash.fingerprint, "restore_edges", lambda text: text)
        fingerprinter = nshash.fingerprint.Fingerprinter
        monkeypatch.setattr(fingerprinter, "features", fingerprinter.features_python)
        *ids, _ = run()
        assert len(set(ids)) < 4

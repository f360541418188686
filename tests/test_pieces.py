"""A page's pieces: its lines as they would be had it come without line breaks (nshash.pieces)."""

from __future__ import annotations

import random
import re

import pytest

import nshash
import nshash.frame
import nshash.verify
from nshash.edges import chrome_lines, has_line, line_filter
from nshash.members import from_entries, stored_form
from nshash.pieces import FLAT_MARK, flat_pieces, glued_tail, member_view, piece_key, piece_keys
from tests.pages import paragraph, python_decision, sentence

_BREAKS = re.compile(r"\s*\n\s*")

NOTICES = [
    "Some of the content on this site is republished from other websites with attribution. If you own any of it "
    "and do not wish it to appear here, please let us know and it will be taken down promptly.",
    "Unless stated otherwise, articles on this site may be shared under the terms of the Creative Commons "
    "Attribution licence, provided that you credit the author and link back to the original page.",
    "The opinions expressed in this article are the author's own and do not reflect the views of this website. "
    "Information is provided for general informational purposes only and may not be accurate or up to date.",
]


def site_page(rng: random.Random, body: list[str]) -> str:
    """A page of one site: its menu, notices, "Back to top" and share line around an article, line by line."""
    header = [sentence(rng, 5)[:-1], "Home | News | Tutorials | Reviews | About", NOTICES[0]]
    footer = ["Back to top", NOTICES[1], "© 2020 Example Digital Inc.", "Share this: Twitter Facebook", NOTICES[2]]
    return "\n".join([*header, *body, *footer])


def _key(text: str) -> int:
    return hash(text) & 0xFFFFFFFF


def joined(text: str) -> str:
    return _BREAKS.sub(" ", text)


def test_a_page_with_line_breaks_has_the_pieces_its_joined_form_has() -> None:
    """The pieces of a page with line breaks are those of the same page joined (a menu or "Back to top" glued
    to the next sentence does not change a piece's key), and the joined page's lines are pieces too."""
    rng = random.Random(1)
    text = site_page(rng, [paragraph(rng, 3) for _ in range(3)])
    lined, flat = nshash.NSHash().fingerprinter.features(text), nshash.NSHash().fingerprinter.features(joined(text))
    assert not lined.flat and flat.flat
    assert set(lined.pieces[0::4]) == set(flat.pieces[0::4]) and set(lined.pieces[1::4]) == set(flat.pieces[1::4])
    # A flat page's lines are its pieces: it keeps the suffix keys of its long ones only (what it glued before a
    # notice hides the notice's line whole).
    long = [flat.pieces[i] for i in range(0, len(flat.pieces), 4) if flat.pieces[i] != piece_key(flat.pieces[i + 1])]
    assert piece_keys(lined) and piece_keys(flat) == long and len(long) < len(flat.pieces) // 4
    assert set(flat.pieces[1::4]) <= set(flat.line_keys) | {flat.pieces[1]}  # but the first: title and menu glued
    assert len(flat.line_keys) > len(lined.line_keys)  # the joined page is broken after its sentences
    # Every piece lies in lines the page has, in order.  The last line, a notice of two sentences, is in two
    # pieces: the share line above it, which ends in no sentence end, glued to its first sentence, and the second.
    words = list(lined.pieces)
    triples = [words[i + 1 : i + 4] for i in range(0, len(words), 4)]
    last_line = len(lined.line_keys) - 1
    assert all(first <= last <= last_line for _, first, last in triples)
    assert [first for _, first, _ in triples] == sorted(first for _, first, _ in triples)
    ends = [(first, last) for _, first, last in triples if last == last_line]
    assert ends == [(last_line - 1, last_line), (last_line, last_line)]
    # The same pieces in C and in Python, for the page in both forms and as HTML paragraphs.
    fingerprinter = nshash.NSHash().fingerprinter
    html = "<html><body>" + "".join(f"<p>{line}</p>" for line in text.split("\n")) + "</body></html>"
    for form in (text, joined(text), html):
        assert fingerprinter.features(form) == fingerprinter.features_python(form)


def test_pieces_are_keyed_by_their_last_characters() -> None:
    """What a joined page glues before a long sentence (a menu, a "Back to top") leaves its key alone; a short
    sentence is keyed whole, so an edit in it changes its key."""
    notice = NOTICES[1]
    alone = flat_pieces("First line of the page.\n" + notice, _key)
    glued = flat_pieces("First line of the page.\nBack to top " + notice, _key)
    assert list(alone[0::4]) == list(glued[0::4]) and list(alone[1::4]) != list(glued[1::4])
    short = "A notice that is short."
    assert flat_pieces("Back to top " + short, _key)[0] != flat_pieces(short, _key)[0]
    assert list(flat_pieces("Menu | A | B\nA sentence that ends here. And the next one.", _key)[2::4]) == [0, 1]
    assert not flat_pieces("", _key)


def test_a_member_of_the_other_form_sees_the_lines_whose_pieces_it_has() -> None:
    """pieces.member_view: against a member that came joined, a line all of whose pieces it has is one it has;
    against a member of the page's own form, the page's own keys."""
    rng = random.Random(2)
    fingerprinter = nshash.NSHash().fingerprinter
    page = fingerprinter.features(site_page(rng, [paragraph(rng, 3) for _ in range(3)]))
    other = fingerprinter.features(joined(site_page(rng, [paragraph(rng, 3) for _ in range(3)])))
    joined_member = line_filter([*other.line_keys, FLAT_MARK])
    lined_member = line_filter([*page.line_keys, *piece_keys(page)])
    view = member_view(page, joined_member)
    seen = [i for i, key in enumerate(view) if has_line(joined_member, key)]
    own = [i for i, key in enumerate(page.line_keys) if has_line(joined_member, key)]
    # The footer: "Back to top" and the notice glued to it, the copyright, the share line and the last notice.
    count = len(page.line_keys)
    assert len(own) < 3 and set(range(count - 5, count)) <= set(seen)
    assert member_view(page, lined_member) is page.line_keys


def test_a_page_with_line_breaks_sees_a_notice_a_joined_member_glued_to_its_links() -> None:
    """A member that came as one line glued "Read more" (the end of its excerpt) to the notice below it: a page with
    line breaks, whose notice is a line, finds it by the suffix key of its piece, which the member keeps."""
    rng = random.Random(6)
    fingerprinter = nshash.NSHash().fingerprinter
    page = fingerprinter.features(site_page(rng, [paragraph(rng, 3) for _ in range(3)]))
    excerpt = joined(site_page(rng, [paragraph(rng, 2), "Read more"]))
    other = fingerprinter.features(excerpt)
    member = line_filter([*other.line_keys, *piece_keys(other), FLAT_MARK])
    notice = page.line_keys.index(fingerprinter.features(NOTICES[1]).line_keys[0])
    assert not has_line(member, page.line_keys[notice]) and has_line(member, member_view(page, member)[notice])
    bare = line_filter([*other.line_keys, FLAT_MARK])  # without the suffix keys of its long pieces
    assert not has_line(bare, member_view(page, bare)[notice])


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_sites_pages_with_and_without_line_breaks_stay_apart(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crawl merged from a dataset that kept a site's line breaks and one that removed them: the site's
    articles, every other page joined, stay apart, and a copy elsewhere still joins its article; seen as
    lines only (no pieces), the site's notices joined its articles to one another."""
    python_decision(native, monkeypatch)
    rng = random.Random(3)
    articles = [[paragraph(rng, 2) for _ in range(2)] for _ in range(6)]
    pages = [site_page(rng, article) for article in articles]
    pages = [joined(text) if index % 2 else text for index, text in enumerate(pages)]
    copy = "\n".join(["Reprinted from elsewhere", *articles[3], "Shared with permission."])

    def run() -> list[int]:
        nsh = nshash.NSHash()
        return [nsh.get_similar(text) for text in [*pages, copy]]

    *ids, copy_id = run()
    assert len(set(ids)) == len(articles) and copy_id == ids[3]
    if not native:
        monkeypatch.setattr(nshash.frame, "member_view", lambda features, bits: features.line_keys)
        monkeypatch.setattr(nshash.verify, "member_view", lambda features, bits: features.line_keys)
        *ids, _ = run()
        assert len(set(ids)) < len(articles)


def marked_page(rng: random.Random, body: list[str]) -> str:
    """:func:`site_page` with a longer header: title, menu and two notices, over 300 characters joined."""
    title, menu, notice, *rest = site_page(rng, body).split("\n")
    return "\n".join([title, menu, notice, NOTICES[2], *rest])


def joined_with_markup(text: str, body: list[str]) -> str:
    """The page joined, its article's paragraphs kept as HTML paragraphs: the markup gives it lines, not the chrome."""
    markup = "".join(f"<p>{line}</p>" for line in body)
    return joined(text.replace("\n".join(body), markup))


def test_a_joined_page_whose_markup_gave_it_lines_is_flat() -> None:
    """A page that came as one line with its article in <p> tags has lines, but its header and footer were
    restored after their sentence ends: it is of the other form from the site's pages with line breaks."""
    rng = random.Random(4)
    body = [paragraph(rng, 3) for _ in range(3)]
    text = marked_page(rng, body)
    fingerprinter = nshash.NSHash().fingerprinter
    marked = joined_with_markup(text, body)
    assert "\n" not in marked
    for features in (fingerprinter.features(marked), fingerprinter.features_python(marked)):
        assert features.flat and features == fingerprinter.features(marked)
    assert not fingerprinter.features(text).flat
    assert not fingerprinter.features("<p>" + "</p><p>".join(text.split("\n")) + "</p>").flat  # every line marked


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_sites_pages_joined_around_marked_paragraphs_stay_apart(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every other page of a site joined with its article in <p> tags (short articles: two paragraphs and a
    "Read more"): the pages stay apart, as they do when the joined ones have no markup.  Taken for pages with
    line breaks, the joined ones joined the site's other articles through its notices."""
    python_decision(native, monkeypatch)
    rng = random.Random(5)
    articles = [[paragraph(rng, 2), paragraph(rng, 2), "Read more"] for _ in range(6)]
    pages = [marked_page(rng, article) for article in articles]
    pages = [joined_with_markup(text, articles[i]) if i % 2 else text for i, text in enumerate(pages)]
    nsh = nshash.NSHash()
    ids = [nsh.get_similar(text) for text in pages]
    assert len(set(ids)) == len(articles)


FOOTER = [
    "Some of the content on this site is republished from other websites with attribution to its authors.",
    "Follow us on Mastodon and RSS",
    "Unless stated otherwise, articles on this site may be shared under the terms of the Creative Commons licence.",
    "The opinions expressed in this article are the author's own and do not reflect the views of this website.",
    "We use cookies to improve your experience on our website and to show you relevant advertising on it.",
    "All content on this site is protected by copyright and may be printed or downloaded for personal use only.",
    "Your privacy matters to us. We process personal data under the applicable law, and you can withdraw your "
    "consent or change your preferences at any time through the settings link at the bottom of this page.",
]


def footed_page(rng: random.Random, body: list[str]) -> str:
    """A page of one site whose long footer ends in a line of two sentences, a share line, links to the previous and
    the next article around a "Follow us" line, "You may also like:" and three titles of other articles (its own):
    joined, all that follows the last sentence end is one line."""
    header = [sentence(rng, 5)[:-1], "Home > Open Source > Article", f"Last updated: 0{rng.randint(1, 9)} Jan 2019"]
    related = [sentence(rng, 4)[:-1] + f" ({rng.randint(2, 9)})" for _ in range(3)]
    tail = [
        "Share this: Twitter Facebook LinkedIn",
        f"Previous: {sentence(rng, 4)[:-1]}",
        "Follow us on Mastodon and RSS",
        f"Next: {sentence(rng, 4)[:-1]}",
        "You may also like:",
        *related,
    ]
    return "\n".join([*header, *body, *FOOTER, *tail])


def test_a_line_of_two_pieces_takes_its_last_pieces_key() -> None:
    """Against a member that came as one line, a line of the page made of two of its pieces is seen by the key of
    its last: at the page's bottom that is the member's line before its last, which tells its footer (its tail)."""
    rng = random.Random(7)
    fingerprinter = nshash.NSHash().fingerprinter
    page = fingerprinter.features(footed_page(rng, [paragraph(rng, 2)]))
    other = fingerprinter.features(joined(footed_page(rng, [paragraph(rng, 2)])))
    member = line_filter([*other.line_keys, *piece_keys(other), FLAT_MARK])
    privacy = fingerprinter.features(FOOTER[-1]).line_keys[0]
    second = fingerprinter.features(FOOTER[-1].split(". ", 1)[1]).line_keys[0]
    line = page.line_keys.index(privacy)
    assert not has_line(member, privacy) and member_view(page, member)[line] == second
    assert second in other.line_keys


@pytest.mark.parametrize("native", [True, False], ids=["C decision", "Python decision"])
def test_a_sites_pages_whose_joined_tail_glues_its_links_and_titles_stay_apart(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site's first pages came joined, its later ones with line breaks: a short article above a long footer of
    notices, then a share line, "You may also like:" and titles of other articles.  A page with line breaks has
    these as lines of its own, which a joined member has as one line (its last piece): stepped over as one, and its
    line of two sentences seen by its last (the member's line before its last), the footer the two share is found
    and the site's articles stay apart.  A copy of an article elsewhere still joins it."""
    python_decision(native, monkeypatch)
    rng = random.Random(8)
    articles = [[paragraph(rng, 2)] for _ in range(8)]
    pages = [footed_page(rng, article) for article in articles]
    pages = [joined(text) if index < 4 else text for index, text in enumerate(pages)]
    copy = "\n".join(["Reprinted from elsewhere", *articles[4], "Shared with permission."])
    nsh = nshash.NSHash()
    *ids, copy_id = [nsh.get_similar(text) for text in [*pages, copy]]
    assert len(set(ids)) == len(articles) and copy_id == ids[4]


def test_a_joined_members_last_line_is_stepped_over_only_above_a_known_line() -> None:
    """edges.chrome_lines: a page with line breaks steps over the lines its last piece holds as one line of a
    joined member's only when the run found above them holds a line other clusters have (a site's notices); else
    that run may be the end of an article a copy on another site shares with its original, and nothing is frame."""
    rng = random.Random(9)
    fingerprinter = nshash.NSHash().fingerprinter
    page = fingerprinter.features(footed_page(rng, [paragraph(rng, 2)]))
    member = from_entries(stored_form(fingerprinter.features(joined(footed_page(rng, [paragraph(rng, 2)])))))
    assert member is not None
    keys, grams = member_view(page, member.lines), page.line_grams
    glued = glued_tail(page, member.lines)
    notice = page.line_keys.index(fingerprinter.features(FOOTER[0]).line_keys[0])
    assert glued == 5  # the share line, two links, "Follow us" and "You may also like:" (the titles are chrome)
    assert not chrome_lines(keys, grams, member.lines, member.tail, (), page.flat, 0)  # stepped over line by line
    assert not chrome_lines(keys, grams, member.lines, member.tail, (), page.flat, glued)
    footer = chrome_lines(keys, grams, member.lines, member.tail, {notice}, page.flat, glued)
    assert notice in footer and len(footer) == len(FOOTER)
    assert glued_tail(page, line_filter(page.line_keys)) == 0  # a member of the page's own form

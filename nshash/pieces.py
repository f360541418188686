"""A page's lines as they would be had the page come without line breaks: pieces ending at sentence ends.

One dataset keeps a site's line breaks, another removes them (an extractor,
a cleaning step), and a crawl merged from both holds pages of one site in
both forms.  A page that came as one line has its lines restored after its
sentence ends (:mod:`nshash.linebreaks`), so its header and footer are
sentences, with a menu or a "Back to top" glued to the sentence after it;
the same site's pages with line breaks have them as paragraphs, and the two
share no line: no frame was found between them, and the site's notices
joined its articles to one another (95 synthetic files with half of the
pages joined: precision 0.836 in the mean, 16 files under 0.5).

So every page also keys the pieces its lines make when joined and broken
after each sentence end as :func:`~nshash.linebreaks.restore_lines` breaks
(:func:`flat_pieces`): by the last :data:`PIECE_SUFFIX` characters of its
normalised text (what a joined page glued before a long sentence, a menu or
a "Back to top", does not change that key), and whole, as the line a page
that came as one line has.  A member with line breaks keeps the first keys
in its line filter; a member that came as one line has its pieces for lines
already, and keeps the first keys of those longer than :data:`PIECE_SUFFIX`
(what it glued before a notice hides the notice's line whole).  A page
compared with a member of the other form (:data:`FLAT_MARK`) takes a line
for one the member has when all the pieces it lies in are the member's
(:func:`member_view`); a page with line breaks steps over the lines of its last
piece as one line, the member's last, below a footer the two share
(:func:`glued_tail`).  Pages of one form compare their lines as before.

The C accelerator computes the same (``flat_pieces`` in ``nshash/_linebreaks.h``,
``member_view`` and ``glued_tail`` in ``nshash/_member.h``), tested against this.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from nshash.edges import has_line
from nshash.linebreaks import _FLAT_END_RE, FLAT_PIECE
from nshash.text import _weight, normalize_line

if TYPE_CHECKING:
    from nshash.fingerprint import Features

#: A piece is keyed by this many last characters of its normalised text (all of it when shorter).
#: Measured (2026-12-06, the 95 synthetic files, C): 20 / 40 / 80 characters gave F1 +0.074 / +0.077 /
#: +0.073 in the mean with half of the pages joined, and -0.0035 / -0.0023 / -0.0016 with 30% of the
#: sites joined (copies on a joined site of an article elsewhere: a piece keyed by fewer characters
#: matches an edited sentence, and the copy's article was taken for a frame).
PIECE_SUFFIX: Final = 80
#: A member keeps the keys of its first and last this many pieces: a site's header and footer are at a
#: page's edges, and a filter of a page of hundreds of lines, with a key for each piece too, answered yes to
#: most lines (a real page's two versions, 19,000 and 27,000 characters, shared a "frame" of 130 lines).
PIECE_EDGE: Final = 10
#: Pieces are made of a page's first and last this many lines (:func:`page_pieces`).
PIECE_LINES: Final = 60
#: Put in the line filter of a member whose page came without line breaks and had them restored
#: (``Features.flat``): what tells the two forms apart.  Not whether the text held a line break: a
#: page of HTML paragraphs has its lines from its block tags, as a page with line breaks has.
FLAT_MARK: Final = 0x5A17F1A7
# A piece key is a line key moved by this odd multiplier and offset (a bijection of 32-bit keys):
# a page's own lines meet a member's pieces by chance only, so pages of one form compare as they did.
_PIECE_MUL: Final = 0x9E3779B1
_PIECE_ADD: Final = 0x7F4A7C15


def piece_key(line_key: int) -> int:
    """The key of a piece whose suffix has ``line_key`` (``fingerprint.line_key`` of it)."""
    return (line_key * _PIECE_MUL + _PIECE_ADD) & 0xFFFFFFFF


def page_pieces(lines: Sequence[str], count: int, line_key: Callable[[str], int]) -> array[int]:
    """:func:`flat_pieces` of the page's first and last :data:`PIECE_LINES` keyed lines, or of all of them.

    ``lines``: those lines, stripped (all of them when there are no more than
    twice :data:`PIECE_LINES`, else the first and then the last that many);
    ``count``: how many the page has.  A site's frame is at the page's edges,
    and a page of millions of lines is not joined whole again.
    """
    if count <= 2 * PIECE_LINES:
        return flat_pieces("\n".join(lines), line_key)
    out = flat_pieces("\n".join(lines[:PIECE_LINES]), line_key)
    tail = flat_pieces("\n".join(lines[PIECE_LINES:]), line_key)
    for at in range(2, len(tail), 4):
        tail[at] += count - PIECE_LINES
        tail[at + 1] += count - PIECE_LINES
    out.extend(tail)
    return out


def flat_pieces(lines: str, line_key: Callable[[str], int]) -> array[int]:
    """The pieces of the page's keyed lines joined: ``suffix key, key, first line, last line`` for each.

    ``lines``: lines that ``Features.line_keys`` holds, stripped, one a line (a
    line break between two), the first of them line 0.  Joined, each line break
    is a space: broken after each sentence end that closes a piece of
    :data:`~nshash.linebreaks.FLAT_PIECE` or more, as
    :func:`~nshash.linebreaks.restore_lines` breaks a line.  ``line_key``: the
    key of a normalised line (``fingerprint.line_key``); the suffix key is
    :func:`piece_key` of that of the last :data:`PIECE_SUFFIX` characters.

    >>> key = lambda text: hash(text) & 0xFFFFFFFF
    >>> pieces = flat_pieces("Home | News\\nA first sentence that is long. And a second one.", key)
    >>> list(pieces[2::4]), list(pieces[3::4])
    ([0, 1], [1, 1])
    """
    out = array("I")
    line = at = 0  # the line that holds character ``at``; pieces come in order

    def add(first: int, end: int) -> None:  # one piece at a time: a page of many short sentences has many
        nonlocal line, at
        normalised = normalize_line(lines[first:end]).replace("\n", "")
        if normalised:
            whole = line_key(normalised)
            suffix = whole if len(normalised) <= PIECE_SUFFIX else line_key(normalised[-PIECE_SUFFIX:])
            line += lines.count("\n", at, first)
            at = first
            out.extend((piece_key(suffix), whole, line, line + lines.count("\n", first, end - 1)))

    start = 0
    for match in _FLAT_END_RE.finditer(lines):
        if match.end() < len(lines) and _weight(lines[start : match.end(1)]) >= FLAT_PIECE:
            add(start, match.end(1))
            start = match.end()
    add(start, len(lines))
    return out


def piece_keys(features: Features) -> list[int]:
    """What a member keeps of the page's pieces (:func:`flat_pieces`): the suffix keys of the first and last
    :data:`PIECE_EDGE` but those that are a line by themselves; when the page came as one line (its lines are its
    pieces), those of pieces longer than :data:`PIECE_SUFFIX` only, whose suffix key is not their key whole.  Every
    key a filter holds makes it answer yes to more lines it lacks.

    Measured (2026-12-06, C, the 95 synthetic files) against none for a page that came as one line: half of the
    pages joined F1 +0.0071 (precision +0.0106: seed 31337's en held-out 0.30 -> 0.80, 3579's 0.89 -> 0.99), 30% of
    the sites joined -0.0002 (recall), every page joined -0.00004, as generated the same; real full pages precision
    0.826 -> 0.846; the rest unchanged or within 0.0002.  The suffix keys of every edge piece, looked up instead of
    the whole key, cost the zh files with half of the pages joined (-0.0015 in the mean against none)."""
    pieces = features.pieces
    count = len(pieces) // 4
    # A piece that is a whole line by itself is that line to a flat page already (its own key finds it).
    covering = [0] * len(features.line_keys)
    for at in range(2, len(pieces), 4):
        for line in range(pieces[at], pieces[at + 1] + 1):
            covering[line] += 1
    return [
        pieces[4 * i]
        for i in range(count)
        if (i < PIECE_EDGE or i >= count - PIECE_EDGE)
        and (
            pieces[4 * i] != piece_key(pieces[4 * i + 1])
            if features.flat
            else not (pieces[4 * i + 2] == pieces[4 * i + 3] and covering[pieces[4 * i + 2]] == 1)
        )
    ]


def other_form(features: Features, bits: int) -> bool:
    """Whether one of the page and a member whose line filter is ``bits`` came flat and the other did not."""
    return features.flat != has_line(bits, FLAT_MARK)


def glued_tail(features: Features, bits: int) -> int:
    """How many of the page's last lines its last piece holds, against a member that came as one line.

    0 for a page that came as one line itself, or a member of its form.  That member's last line is its
    last piece: the links, share buttons and related titles after its last sentence glued together,
    which a page with line breaks has as several short lines of its own.
    """
    pieces = features.pieces
    if features.flat or not pieces or not other_form(features, bits):
        return 0
    return pieces[-1] - pieces[-2] + 1 if pieces[-1] == len(features.line_keys) - 1 else 0


def member_view(features: Features, bits: int) -> Sequence[int]:
    """The page's line keys as a member whose line filter is ``bits`` sees them.

    For a member of the other form (:func:`other_form`), a line the member
    lacks and whose every piece it has gets the key of its last piece, which
    the member has; otherwise the page's own keys.  The last: at the bottom
    of a page, a line of two sentences is two lines of the member's, the
    second of which may be the one before its last, which tells its footer
    (:func:`~nshash.edges.member_tail`).  A page that came as one
    line looks for its pieces' suffix keys (a member with line breaks keeps
    them), a page with line breaks for its pieces whole (a member that came
    as one line has them for lines) or, for a piece longer than
    :data:`PIECE_SUFFIX`, by its suffix key (kept for the member's pieces
    that its page glued after a link or a title).
    """
    keys = features.line_keys
    pieces = features.pieces
    if not pieces or not other_form(features, bits):
        return keys
    kept = [True] * len(keys)
    last_piece = [0] * len(keys)
    which = 0 if features.flat else 1
    for at in range(0, len(pieces), 4):
        key, first, last = pieces[at + which], pieces[at + 2], pieces[at + 3]
        has = has_line(bits, key)
        if not has and which == 1 and pieces[at] != piece_key(pieces[at + 1]) and has_line(bits, pieces[at]):
            has, key = True, pieces[at]
        for line in range(first, last + 1):
            kept[line] = kept[line] and has
            last_piece[line] = key
    view = None
    for line, key in enumerate(keys):
        if kept[line] and last_piece[line] and not has_line(bits, key):
            if view is None:
                view = array("I", keys)
            view[line] = last_piece[line]
    return keys if view is None else view

"""Line breaks: every kind made ``\\n``, and those a page lost restored after its sentence ends."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from nshash.text import _LINE_RE, _weight

#: What str.splitlines breaks at besides "\n": a page whose lines end in "\r" alone or in U+2028
#: (JSON written from JavaScript) was one line to the chrome and frame rules (95 synthetic files
#: with "\r" for "\n": en precision 0.746 in the mean).  "\r\n" is one break.
_BREAKS_RE: Final = re.compile("\r\n?|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")

#: A line heavier than this (CJK characters count twice) is broken after each sentence end
#: (:func:`restore_lines`): a paragraph is rarely that long, a page whose line breaks were lost is.
FLAT_LINE: Final = 450
#: On a page that came with no line break at all (before its markup was read), its first and last
#: lines are broken over this too: they are where a site's header and footer sit, glued there to the
#: page's title and related titles into a line of 300-450 that differs from page to page, so no
#: frame was found and the site's notices joined its articles to one another (95 synthetic files
#: with every page joined: one en file's precision 0.478).  Only those two lines: breaking every
#: line over 300 on such pages cost minified HTML, whose block tags give every line back.
FLAT_EDGE: Final = 300
#: A break leaves lines at least this heavy: shorter sentences stay with the next one (a line of
#: a million "a。" is not a million lines, each with its keys).
FLAT_PIECE: Final = 20
# A sentence end and the closing quotes or brackets after it: CJK ends anywhere, Latin ones
# before whitespace (not "3.14" or "e.g.x"); the whitespace after either becomes the break.
# The CJK colon too: a joined page's "相关文章：" starts the list of other articles' titles its
# footer ends in (every zh page joined: lowest file's precision 0.26 -> 0.82).  The Latin colon
# was measured and left out: in every long line it cost real pages 0.3 points of recall; in lines
# over 1,000 only, a zh file with some sites joined collapsed through a notices-only page.  The
# full stops of other scripts (text._SCRIPT_ENDS but the Arabic semicolon) end anywhere too.
_FLAT_CJK_ENDS: Final = "。！？：।॥؟۔։።။។"
_FLAT_CJK_CLOSERS: Final = "”’」』）)"
_FLAT_LATIN_ENDS: Final = ".!?"
_FLAT_LATIN_CLOSERS: Final = "\"'”’)"
_FLAT_END_RE: Final = re.compile(
    f"([{_FLAT_CJK_ENDS}]+[{_FLAT_CJK_CLOSERS}]*|[{re.escape(_FLAT_LATIN_ENDS)}]+[{_FLAT_LATIN_CLOSERS}]*(?=\\s))\\s*"
)


def unify_breaks(text: str) -> str:
    """``text`` with every line break ``str.splitlines`` knows made ``"\\n"``.

    >>> unify_breaks("one\\r\\ntwo\\rthree\\u2028four")
    'one\\ntwo\\nthree\\nfour'
    """
    return _BREAKS_RE.sub("\n", text)  # the same string when there is none


def edge_lengths(text: str) -> tuple[int, int]:
    """The lengths of the text's first and last lines that are not blank (whitespace around them left out).

    A break :func:`restore_lines` or :func:`restore_edges` puts in either shortens it: that is how
    ``Features.flat`` knows a joined page's edges were broken, whatever its markup gave it.

    >>> edge_lengths("  Title and more\\nbody\\nfooter  ")
    (14, 6)
    """
    body = text.strip()
    first, last = body.find("\n"), body.rfind("\n")
    return (len(body) if first < 0 else first, len(body) - last - 1)


def restore_lines(text: str, limit: int = FLAT_LINE, edges: bool = False) -> str:
    """``text`` with its lines over ``limit`` broken after each sentence end (:data:`FLAT_PIECE`).

    ``edges``: only its first and last lines that are not blank (:func:`restore_edges`).

    Headers, footers and notices are found line by line (:func:`~nshash.chrome.drop_chrome`,
    :mod:`nshash.frame`).  On pages whose line breaks an extractor or a
    dataset's cleaning had removed, a site's notices were most of every
    article's text, and a site's articles joined one another.  Whether a line
    is broken depends on that line alone, so a line two pages share is
    broken the same way on both: a rule by page (breaking the long lines of
    pages whose longest line held a quarter of the page) split a site's
    shared lines on some of its pages only, and one synthetic file's
    precision fell to 0.02.  The one fact of the page used is whether it
    came with any line break at all (:func:`restore_edges`), which a
    dataset's cleaning decides for every page of a site alike.

    >>> restore_lines("Title " + "A sentence that goes on. " * 20)[:56]
    'Title A sentence that goes on.\\nA sentence that goes on.\\n'
    """
    if 2 * len(text) <= limit:
        return text  # no line can weigh more
    lines: Iterable[re.Match[str] | None] = _LINE_RE.finditer(text)
    if edges:
        if not text.strip():
            return text
        # The lines holding the first and the last characters that are not spaces, found without
        # reading the lines between (a page broken after its sentence ends has many).
        top = text.rfind("\n", 0, len(text) - len(text.lstrip())) + 1
        bottom = text.rfind("\n", 0, len(text.rstrip())) + 1
        lines = [_LINE_RE.match(text, start) for start in sorted({top, bottom})]
    spans = [
        match.span()
        for match in lines  # a line is copied only when it may weigh enough
        if match and 2 * (match.end() - match.start()) > limit and _weight(match.group().strip()) > limit
    ]
    if not spans:
        return text
    # Slices of the text joined once: a line of a million short sentences is a few thousand pieces.
    out: list[str] = []
    at = 0
    for start, end in spans:
        out.append(text[at:start])
        for match in _FLAT_END_RE.finditer(text, start, end):
            # A break at the line's end would add nothing but an empty line.
            if match.end() < end and _weight(text[start : match.end(1)]) >= FLAT_PIECE:
                out += (text[start : match.end(1)], "\n")
                start = match.end()
        out.append(text[start:end])
        at = end
    if len(out) == 2 * len(spans):
        return text  # no break: the page as it came, not a copy
    out.append(text[at:])
    return "".join(out)


def restore_edges(text: str) -> str:
    """``text`` with its first and last lines that are not blank broken over :data:`FLAT_EDGE`.

    For a page that came without any line break (``Features.flat``'s pages, and those whose only
    lines are its block tags'): a site's header and footer glued into one line each.

    >>> restore_edges("Title Home | About " + "A notice that goes on. " * 14 + "\\nArticle.")[:42]
    'Title Home | About A notice that goes on.\\n'
    """
    return restore_lines(text, FLAT_EDGE, edges=True)

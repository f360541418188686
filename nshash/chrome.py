"""A whole page's chrome (menus, link lists, short lines) dropped and its hard-wrapped lines joined.

Pure functions of one page's text, called by :meth:`nshash.fingerprint.Fingerprinter.features`
after markup is stripped; ``nshash/_chrome.h`` is the C twin (tested against it).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from typing import Final

from nshash.text import _CJK_RE, _LINE_RE, _weight

#: Pages with fewer non-empty lines than this are left as they are: an article
#: text has few lines, a whole page (menus, footers, link lists) has many.
CHROME_MIN_LINES: Final = 40
#: A line shorter than this (CJK characters count twice) is a menu item, a
#: button or a caption on a whole page.
CHROME_SHORT: Final = 20
#: A line cut into this many segments by separators is a menu or a breadcrumb.
CHROME_SEGMENTS: Final = 4
#: A run of this many lines without a sentence end is a link list.
CHROME_RUN: Final = 3
#: A line at least this long (weighted) that ends without a sentence end
#: continues on the next line (hard wrapping).
WRAP_MIN: Final = 40
#: ... or this long, without CJK, before a lower-case line: English wrapped
#: at 40-50 columns, whose lines a "link list" run dropped (a real article
#: kept 852 of 3,156 characters).  Independent en F1 up on 4 of 4 seeds, zh
#: and real pages unchanged (CHANGELOG 2.0.0).  Lines with CJK stay at
#: ``WRAP_MIN``: a Chinese title ending in a Latin word joined a paragraph.
WRAP_LOWER: Final = 30
#: What is kept must be at least this share of the page (weighted), or the page is kept whole.
CHROME_KEEP: Final = 0.2
#: A line holding this many sentence ends inside (paragraphs joined into one line) is prose,
#: never a link title: it closes a run as a sentence end does.
CHROME_PROSE: Final = 3
#: A page's site signature (:attr:`nshash.fingerprint.Features.site_keys`) is
#: made of the chrome lines dropped above its first kept line and below its
#: last: its menus, its header and footer links.  At most this many lines are
#: read at each edge: a page of a million menu lines keeps a few.
SITE_EDGE_LINES: Final = 64
_INNER_END_RE: Final = re.compile(r"[.!?](?=\s)|[。！？]")

_SEPARATOR_RE: Final = re.compile(r"\s[|·•»›>/\\-]\s|[|｜·•»›]")
# Closing brackets are not sentence ends: link titles end with "(2)".
_SENTENCE_ENDS: Final = frozenset(".!?。！？…\"”’'」』;；:：")
#: ... unless right after one: "(Contributed by A. Writer in bpo-42308.)" ends its
#: sentence, and a page of such paragraphs is not a link list.
_CLOSERS: Final = frozenset(")]）】")


def _ends_sentence(line: str) -> bool:
    """Whether a (non-empty) line ends a sentence: its last character ends one, or closes a bracket right after one."""
    last = line[-1]
    return last in _SENTENCE_ENDS or (last in _CLOSERS and len(line) > 1 and line[-2] in _SENTENCE_ENDS)


def _continues(line: str, weight: int, separators: int, following: str, following_separators: int) -> bool:
    """Whether ``line`` (of that weight and separator count) was wrapped and its sentence goes on in ``following``."""
    if _ends_sentence(line) or weight < WRAP_LOWER or separators >= 2:
        return False  # a sentence's end, a short line, or a menu
    if following_separators >= 2:
        return False  # a menu follows a title
    first = following[0]
    if weight < WRAP_MIN:  # a short line joins only as text without CJK (see WRAP_LOWER)
        return first.islower() and weight == len(line)
    return first.islower() or first.isdigit() or bool(_CJK_RE.match(first) and _CJK_RE.match(line[-1]))


def _separators(line: str, pos: int, count: int) -> tuple[int, int, int]:
    """``len(_SEPARATOR_RE.findall(line))``, scanning on from ``pos`` where ``count`` were found.

    Returns the count and where the scan stood two characters before the end
    (and the count there): text joined to the line can change matches only
    from there on, so a line joined again is scanned on from there, not again
    from its start (linear, however many wrapped lines make one).
    """
    settle = max(len(line) - 2, pos)
    settled = None
    for match in _SEPARATOR_RE.finditer(line, pos):
        if settled is None and match.start() >= settle:
            settled = (max(settle, pos), count)
        count += 1
        pos = match.end()
    if settled is None:
        settled = (max(settle, pos), count)
    return count, *settled


def _joined_lines(text: str, joins: bytearray) -> Iterator[tuple[str, int, int]]:
    """The non-empty lines, stripped, hard-wrapped ones joined, with their weight and separator count; one at a time.

    Appends to ``joins``, for each non-empty line of ``text``, whether it was
    joined to the line before (:func:`_rejoined_lines` reads the page again from it).
    """
    current = ""
    weight = separators = scan_at = scan_count = 0
    for match in _LINE_RE.finditer(text):
        line = match.group().strip()
        if not line:
            continue
        line_weight = _weight(line)
        line_separators, line_scan_at, line_scan_count = _separators(line, 0, 0)
        joined = bool(current) and _continues(current, weight, separators, line, line_separators)
        joins.append(joined)
        if joined:
            current += " " + line
            weight += 1 + line_weight
            separators, scan_at, scan_count = _separators(current, scan_at, scan_count)
            continue
        if current:
            yield current, weight, separators
        current, weight = line, line_weight
        separators, scan_at, scan_count = line_separators, line_scan_at, line_scan_count
    if current:
        yield current, weight, separators


def _rejoined_lines(text: str, joins: bytearray) -> Iterator[str]:
    """:func:`_joined_lines` again, the joins as that found them."""
    current = ""
    for line, joined in zip(filter(None, (match.group().strip() for match in _LINE_RE.finditer(text))), joins):
        if joined:
            current += " " + line
            continue
        if current:
            yield current
        current = line
    if current:
        yield current


def drop_chrome(text: str, edges: list[str] | None = None) -> str:
    """Remove a whole page's chrome lines and join hard-wrapped lines.

    On pages with at least :data:`CHROME_MIN_LINES` non-empty lines, drops short
    lines, lines cut into :data:`CHROME_SEGMENTS` or more segments by
    separators (menus, breadcrumbs) and runs of :data:`CHROME_RUN` or more lines
    without a sentence end that are not a wrapped paragraph (link and headline
    lists); on shorter pages, only such a run at the very bottom.  Keeps the
    page whole when too little would remain.  On every page,
    a long line that ends mid-sentence is joined with the next one, so hard
    wrapping does not cut sentences.

    Two passes over the lines, keeping two bytes a line in between, never a
    list of the lines: a page of millions of tiny lines costs a few bytes a
    character.

    ``edges``, when given, receives the dropped lines above the first kept
    line and below the last (at most :data:`SITE_EDGE_LINES` at each edge,
    the first ones above and the last ones below, in page order): what the
    page's site signature is made of.

    >>> drop_chrome("A line that was wrapped by the editor at forty\\ncharacters goes on here.")
    'A line that was wrapped by the editor at forty characters goes on here.'
    """
    if "\n" not in text:
        return text
    # Which lines a whole page keeps: long ones that are not menus, outside
    # link lists.  A link list is a run of CHROME_RUN or more lines without a
    # sentence end, unless every line is long and the run closes a paragraph
    # (hard wrapping); it is known when the line that ends it is read.
    keep = bytearray()
    total = kept = 0  # the weight of every line, and of those keep says
    run = run_kept = run_weight = 0  # the lines without a sentence end just read
    run_wrapped = True
    joins = bytearray()
    for line, weight, separators in _joined_lines(text, joins):
        long = weight >= CHROME_SHORT and separators + 1 < CHROME_SEGMENTS
        keep.append(long)
        total += weight
        kept += weight if long else 0
        if _ends_sentence(line) or len(_INNER_END_RE.findall(line)) >= CHROME_PROSE:
            if run >= CHROME_RUN and not run_wrapped:
                keep[-1 - run : -1] = bytes(run)
                kept -= run_kept
            run = run_kept = run_weight = 0
            run_wrapped = True
        else:
            run += 1
            run_kept += weight if long else 0
            run_weight += weight
            run_wrapped = run_wrapped and weight >= WRAP_MIN
    # A run at the very bottom is a link list ("Related articles", "Popular
    # now": other pages' titles, which would hide the site's footer above them);
    # on a page of fewer lines, nothing else goes.
    if len(keep) < CHROME_MIN_LINES:
        keep = bytearray(b"\x01") * len(keep)
        kept = total
        run_kept = run_weight
    if run >= CHROME_RUN:
        keep[len(keep) - run :] = bytes(run)
        kept -= run_kept
    if kept < CHROME_KEEP * total:
        keep = bytearray(b"\x01") * len(keep)  # too little would remain: the page stays whole
    out: list[str] = []
    chunk: list[str] = []
    top: list[str] = []
    bottom: deque[str] = deque(maxlen=SITE_EDGE_LINES)  # the lines since the last kept one
    for line, kept_line in zip(_rejoined_lines(text, joins), keep):
        if kept_line:
            bottom.clear()
            chunk.append(line)
            if len(chunk) == 4096:  # joined in chunks: no list of every line
                out.append("\n".join(chunk))
                chunk.clear()
        elif edges is None:
            continue
        elif out or chunk:
            bottom.append(line)
        elif len(top) < SITE_EDGE_LINES:
            top.append(line)
    if chunk:
        out.append("\n".join(chunk))
    if edges is not None and out:
        edges += top
        edges += bottom
    return "\n".join(out)

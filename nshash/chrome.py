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
#: Hard wrapping at a width: a mail or a newsletter (72 columns), html2text's Markdown (78),
#: ``lynx -dump`` (79) break every paragraph into lines as full as the next word allows.  Such a
#: page is read as wrapped at the length of its longest line holding a space and no CJK character
#: (:func:`wrap_width`) when that length is ``WRAP_NARROWEST`` to ``WRAP_WIDEST`` and
#: ``WRAP_FULL`` or more of those lines, and ``WRAP_SHARE`` of those of ``WRAP_BODY`` characters or
#: more, are within ``WRAP_SLACK`` of it; a line break there is a wrap, joined whatever the next
#: line starts with, when the next line's first word would not have fitted (:func:`_wraps`).  At
#: most ``WRAP_ENDED`` of those full lines end a sentence: a wrap falls after a sentence's last word
#: about once in its words (textwrap at 72 columns, the synthetic English pages: under 30% on 98.5%
#: of them, none over 50%), while a page whose lines are each a sentence or a paragraph of about one
#: length (a changelog's entries) has them all end one.  And at most ``WRAP_FITS`` as many lines as
#: there are full ones have a line below them whose first word would have fitted on them, making a
#: full line: on a wrapped page, only a paragraph's last line (textwrap at 72 columns without blank
#: lines between paragraphs: 0.9% of the synthetic English pages over half), while lines of about one
#: length that are not wrapped (a list, a page whose lines were edited) leave room for the next word.
#: Before, a wrapped line that ended mid-sentence joined only a line starting in lower case: a
#: notice wrapped before "Creative Commons" kept two lines, so the site's pages sent wrapped and
#: those sent whole shared no footer, and a site's articles joined through it (half of the
#: synthetic pages wrapped at 72: en precision 0.977 in the mean, 0.886 on one file; see the CHANGELOG).
WRAP_WIDEST: Final = 160
WRAP_NARROWEST: Final = 30
WRAP_SLACK: Final = 15
WRAP_FULL: Final = 5
WRAP_SHARE: Final = 0.3
WRAP_BODY: Final = 20
WRAP_ENDED: Final = 0.5
WRAP_FITS: Final = 0.5
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
#: A page's byline or dateline ("Posted on 2021-05-14 by Chris P. | 24151 views", "时间：2021/06/02
#: 编辑：老王  阅读：29770 次", "May 14, 2021 10:37 AM") is dropped from every page, and never joined to
#: the lines around it: the first line of at most ``BYLINE_MAX`` (weighted) holding a date
#: (:data:`_DATE_RE`) and no sentence (:data:`_BYLINE_PROSE_RE`) nor URL.  Each copy of an article
#: has its own date, author and view count, so the line is noise in every comparison (a short
#: article's byline was 20% of its body), and a Chinese byline ending in a CJK character (次) was
#: joined to the paragraph below it as a wrapped line, spoiling that paragraph's line and its first
#: sentence's key (22% of the independent corpus's Chinese pages).  Measured (2026-12-06, eight
#: seeds of the independent corpus): zh recall +1.6 to +4.6 points on every seed; zh precision
#: within 0.003 outside two manuals whose pages differ only in a number or a clause (evince's
#: booklet pages, aisleriot's game rules), 2.6 points lower in all: the bylines' noise had kept
#: some of those apart.  40 synthetic files: F1 up on 31, down on 9 (-0.0021 at most); real pages
#: all forms F1 0.979 -> 0.980; the sample's recall 0.988 -> 0.996 (the CHANGELOG has the rest).
BYLINE_MAX: Final = 100


def _cases(word: str) -> str:
    """A pattern matching ``word`` in any mix of ASCII cases (not ``re.IGNORECASE``: it folds 'ſ' to 's')."""
    return "".join(f"[{c.upper()}{c}]" if c.isalpha() else re.escape(c) for c in word)


#: The month names and abbreviations a date may hold (setup.py writes them into the C's tables too).
MONTH_WORDS: Final = (
    "january", "jan", "february", "feb", "march", "mar", "april", "apr", "may", "june", "jun", "july",
    "jul", "august", "aug", "september", "sept", "sep", "october", "oct", "november", "nov", "december", "dec",
)  # fmt: skip
_MONTHS: Final = "|".join(_cases(word) for word in MONTH_WORDS)
_MONTH: Final = rf"(?<![A-Za-z])(?:{_MONTHS})(?![A-Za-z])\.?"
#: A date: 2021-05-14, 2021/06/02, 2021.05.21, 2021年5月21日, 09/26/2021, 24-5-13, 26.09.2021,
#: May 14, 2021, 14 May 2021 (ASCII digits: the page's full-width ones are folded before).
_DATE_RE: Final = re.compile(
    r"(?<![0-9])(?:[0-9]{4}([-/.])[0-9]{1,2}\1[0-9]{1,2}(?![0-9])"
    r"|[0-9]{4}\s?年\s?[0-9]{1,2}\s?月\s?[0-9]{1,2}"
    r"|[0-9]{1,2}([-/])[0-9]{1,2}\2[0-9]{2,4}(?![0-9])"
    r"|[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{4}(?![0-9]))"
    rf"|{_MONTH}\s+[0-9]{{1,2}}(?:st|nd|rd|th)?,?\s+[0-9]{{4}}(?![0-9])"
    rf"|(?<![0-9])[0-9]{{1,2}}\s+{_MONTH},?\s+[0-9]{{4}}(?![0-9])"
)
_DIGIT_RE: Final = re.compile(r"[0-9]")
#: What a byline never holds: a Chinese sentence end, comma or semicolon, a sentence end before the
#: next sentence, or one at its end.
_BYLINE_PROSE_RE: Final = re.compile(r"[。！？，；]|[.!?](?:\s+[A-Z][a-z]|$)")
_INNER_END_RE: Final = re.compile(r"[.!?](?=\s)|[。！？।॥؟۔։።။។]")

_SEPARATOR_RE: Final = re.compile(r"\s[|·•»›>/\\-]\s|[|｜·•»›]")
# Closing brackets are not sentence ends: link titles end with "(2)".
_SENTENCE_ENDS: Final = frozenset(".!?。！？…\"”’'」』;；:：।॥؟؛۔։።။។")
#: ... unless right after one: "(Contributed by A. Writer in bpo-42308.)" ends its
#: sentence, and a page of such paragraphs is not a link list.
_CLOSERS: Final = frozenset(")]）】")


def is_byline(line: str, weight: int) -> bool:
    """Whether a (stripped) line of that weight is a byline or dateline (:data:`BYLINE_MAX`).

    >>> is_byline("Posted on 2021-05-14 by Chris P. | 24151 views", 47)
    True
    >>> is_byline("The release of 2021-05-14 fixed this.", 37)
    False
    """
    return (
        weight <= BYLINE_MAX
        and _DIGIT_RE.search(line) is not None  # every date holds one: most lines go here
        and "://" not in line
        and _DATE_RE.search(line) is not None
        and _BYLINE_PROSE_RE.search(line) is None
    )


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


def wrap_width(text: str) -> int:
    """The width ``text`` was hard-wrapped at (:data:`WRAP_WIDEST`), 0 when it was not.

    >>> import textwrap
    >>> wrap_width(textwrap.fill("The quick brown fox jumps over the lazy dog. " * 12, 60))
    60
    >>> wrap_width("The quick brown fox jumps over the lazy dog. " * 12)
    0
    """
    lengths = [0] * (WRAP_WIDEST + 1)  # how many lines of each length
    ended = [0] * (WRAP_WIDEST + 1)  # ... and of those, how many end a sentence
    fits = [0] * (WRAP_WIDEST + 1)  # lines that the next line's first word would have made this long
    above, end = 0, -1  # the length of the line of prose just above (0: none, or a blank line between)
    for match in _LINE_RE.finditer(text):
        line = match.group().strip()
        if match.start() > end + 1 or not line:
            above = 0
        end = match.end()
        if " " in line and not _CJK_RE.search(line):
            if len(line) > WRAP_WIDEST:
                return 0  # a paragraph on one line
            lengths[len(line)] += 1
            ended[len(line)] += _ends_sentence(line)
            made = above + 1 + line.index(" ")  # the line above with this one's first word
            if above and made <= WRAP_WIDEST:
                fits[made] += 1
            above = len(line)
        else:
            above = 0
    width = max((size for size, lines in enumerate(lengths) if lines), default=0)
    if width < WRAP_NARROWEST:
        return 0
    full = sum(lengths[width - WRAP_SLACK + 1 :])
    if full < WRAP_FULL or full < WRAP_SHARE * sum(lengths[WRAP_BODY:]):
        return 0
    if sum(ended[width - WRAP_SLACK + 1 :]) > WRAP_ENDED * full:
        return 0
    return width if sum(fits[width - WRAP_SLACK + 1 : width + 1]) <= WRAP_FITS * full else 0


def _wraps(width: int, above: str, above_separators: int, line: str, separators: int) -> bool:
    """Whether a page wrapped at ``width`` (:func:`wrap_width`) broke a line of prose between ``above`` and ``line``.

    ``line``'s first word would not have fitted on ``above``, a line close to
    the width, holding a space (a URL broken over lines is not prose) and no
    CJK character (:data:`WRAP_MIN` joins Chinese lines), nor a menu.
    """
    if not width or separators >= 2 or above_separators >= 2 or len(above) <= width - WRAP_SLACK or " " not in above:
        return False
    if _CJK_RE.search(above) or _CJK_RE.search(line):
        return False
    space = line.find(" ")
    return len(above) + 1 + (len(line) if space < 0 else space) > width


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


def _joined_lines(text: str, joins: bytearray, width: int) -> Iterator[tuple[str, int, int, bool]]:
    """The non-empty lines, stripped, hard-wrapped ones joined, with their weight, separator count and
    whether it is the page's byline (:func:`is_byline`, the first one, never joined); one at a time.

    Appends to ``joins``, for each non-empty line of ``text``, whether it was
    joined to the line before (:func:`_rejoined_lines` reads the page again from it).
    ``width``: the page's :func:`wrap_width`.
    """
    current = ""
    current_byline = had_byline = False
    weight = separators = scan_at = scan_count = 0
    above, above_separators, blank, end = "", 0, False, -1  # the last line read (not joined), a blank line since
    for match in _LINE_RE.finditer(text):
        blank = blank or match.start() > end + 1
        end = match.end()
        line = match.group().strip()
        if not line:
            blank = True
            continue
        line_weight = _weight(line)
        line_separators, line_scan_at, line_scan_count = _separators(line, 0, 0)
        byline = not had_byline and is_byline(line, line_weight)
        had_byline = had_byline or byline
        joined = (
            bool(current)
            and not byline
            and not current_byline
            and (
                _continues(current, weight, separators, line, line_separators)
                or (not blank and _wraps(width, above, above_separators, line, line_separators))
            )
        )
        above, above_separators, blank = line, line_separators, False
        joins.append(joined)
        if joined:
            current += " " + line
            weight += 1 + line_weight
            separators, scan_at, scan_count = _separators(current, scan_at, scan_count)
            continue
        if current:
            yield current, weight, separators, current_byline
        current, weight, current_byline = line, line_weight, byline
        separators, scan_at, scan_count = line_separators, line_scan_at, line_scan_count
    if current:
        yield current, weight, separators, current_byline


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


def _all_but(count: int, byline: int) -> bytearray:
    """``keep`` for a page kept whole, but its byline (``-1``: none)."""
    keep = bytearray(b"\x01") * count
    if byline >= 0:
        keep[byline] = 0
    return keep


def drop_chrome(text: str, edges: list[str] | None = None, width: int | None = None) -> str:
    """Remove a whole page's chrome lines and join hard-wrapped lines.

    On pages with at least :data:`CHROME_MIN_LINES` non-empty lines, drops short
    lines, lines cut into :data:`CHROME_SEGMENTS` or more segments by
    separators (menus, breadcrumbs) and runs of :data:`CHROME_RUN` or more lines
    without a sentence end that are not a wrapped paragraph (link and headline
    lists); on shorter pages, only such a run at the very bottom.  Keeps the
    page whole when too little would remain.  On every page, its byline
    goes (:func:`is_byline`), a long line that ends mid-sentence is joined with the next one, so hard
    wrapping does not cut sentences, and on a page hard-wrapped at a
    ``width`` (:func:`wrap_width` of the text, when not given: a caller that
    broke long lines first gives the width of the page as it came) a line the
    next word would not have fitted on.

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
    byline = byline_weight = -1  # the byline's index among the lines (is_byline), and its weight
    for line, weight, separators, is_byline_ in _joined_lines(
        text, joins, wrap_width(text) if width is None else width
    ):
        if is_byline_:
            byline, byline_weight = len(keep), weight
        long = weight >= CHROME_SHORT and separators + 1 < CHROME_SEGMENTS and not is_byline_
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
        keep = _all_but(len(keep), byline)
        kept = total - max(byline_weight, 0)
        run_kept = run_weight - (byline_weight if byline >= len(keep) - run else 0)
    if run >= CHROME_RUN:
        keep[len(keep) - run :] = bytes(run)
        kept -= run_kept
    if kept < CHROME_KEEP * total:
        keep = _all_but(len(keep), byline)  # too little would remain: the page stays whole, but its byline
    out: list[str] = []
    chunk: list[str] = []
    top: list[str] = []
    bottom: deque[str] = deque(maxlen=SITE_EDGE_LINES)  # the lines since the last kept one
    for index, (line, kept_line) in enumerate(zip(_rejoined_lines(text, joins), keep)):
        if index == byline:
            continue  # another copy has another one: not the site's signature either
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

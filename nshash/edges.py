"""Which of a page's lines a cluster's member has: its line filter, and the header and footer the two share.

A member keeps a Bloom filter of its page's line keys (:func:`line_filter`)
and where its page ends (:func:`member_tail`).  Verification leaves out of the
comparison the lines a page shares with a member at its edges, a site's frame
(:func:`chrome_lines`; :mod:`nshash.frame` decides what of it is frame).

This module is the specification; ``nshash/_frame.h`` and ``nshash/_member.h``
compute the same in C (tested against it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

#: Bits of a member's line filter, and bit positions set per line (3 x 10 bits of a 32-bit line key).
BLOOM_BITS: Final = 1024
_BLOOM_PROBES: Final = 3
#: Each probe takes the next 10 bits of the line key (1024 = 2**10).
_PROBE_BITS: Final = 10


def _probes(key: int) -> int:
    """The bits a line key sets in a :func:`line_filter`."""
    mask = 0
    for probe in range(_BLOOM_PROBES):
        mask |= 1 << ((key >> (_PROBE_BITS * probe)) & (BLOOM_BITS - 1))
    return mask


def line_filter(line_keys: Sequence[int]) -> int:
    """A Bloom filter (an int of :data:`BLOOM_BITS` bits) of 32-bit line keys."""
    bits = 0
    for key in line_keys:
        bits |= _probes(key)
    return bits


def has_line(bits: int, key: int) -> bool:
    """Whether a line key is (probably) in a :func:`line_filter`."""
    mask = _probes(key)
    return bits & mask == mask


def shared_chrome(line_keys: Sequence[int], line_grams: Sequence[int], bits: int, flat: bool = False) -> int:
    """Grams of the header and footer a document shares with a member whose lines are ``bits``.

    The grams of :func:`chrome_lines`.
    """
    return sum(line_grams[index] for index in chrome_lines(line_keys, line_grams, bits, flat=flat))


def chrome_lines(
    line_keys: Sequence[int],
    line_grams: Sequence[int],
    bits: int,
    tail: int = 0,
    known: Collection[int] = (),
    flat: bool = False,
    glued: int = 0,
) -> set[int]:
    """The document's lines (indices) that form the header and footer it shares with a member whose lines are ``bits``.

    The header is the run of the document's lines, from the top (after a
    title the member does not have), that the member has too, over gaps of one
    line; the footer likewise from the bottom (a "previous article" link is
    such a gap).  Without a shared footer nothing is left out: a truncated
    copy shares the top of an article, a copy on another site its middle.
    ``tail``: the member's :func:`member_tail` (0: not known), which tells a
    footer from the end of an article when no header is shared, or when the
    lines stepped over at the bottom are lines other clusters have (``known``:
    :func:`~nshash.frame.known_lines`) and the run above them holds none.
    ``flat``: the page came without line breaks (``Features.flat``): its last
    line is stepped over whatever its size.  ``glued``: against a member that
    came so, this many last lines of a page with line breaks are one line of
    the member's (:func:`~nshash.pieces.glued_tail`), stepped over as one.
    """
    masks = map(_probes, line_keys)
    shared = [bits & mask == mask for mask in masks]
    count = len(shared)
    head = _edge_run(shared, line_grams, skip=1)
    # Below a site's footer there may be a list of other pages' titles that
    # differ from page to page; when the header shows one site, step over it.
    # Short last lines of its own (a share link, a page id, a footer line
    # with an edit) are stepped over on any page, up to _OWN_LINES; a list of
    # them only when the header shows one site.
    site_header = bool(head - {0})  # a shared title alone says nothing about the site
    limit = _LIST_LINES if site_header else _OWN_LINES
    skip = _stepped_over(shared, line_grams, limit, flat)
    foot = {count - 1 - index for index in _edge_run(shared[::-1], line_grams[::-1], skip=skip)}
    glued = min(glued, count)
    if not foot and glued and not any(shared[-glued:]):
        # The page's last ``glued`` lines are one line of a member that came without line breaks (its
        # last piece, :func:`~nshash.pieces.glued_tail`): stepped over as one, as a flat page's last line
        # is, when the run above them holds a line other clusters have (a site's notices; not the end
        # of an article that a copy on another site shares with its original).
        over = _stepped_over(shared, line_grams, limit, flat, glued)
        run = {count - 1 - index for index in _edge_run(shared[::-1], line_grams[::-1], skip=over)}
        if any(line in known for line in run):
            skip, foot = over, run
    if not foot:
        return set()  # a copy that keeps the top of an article (truncated), not a site's frame
    one_block = foot <= head
    if skip and one_block:
        # The run from the bottom, found above lines of the page's own, is the run from the top:
        # one shared block, not a header and a footer (a truncated copy above a list of related
        # titles; its paragraphs were taken for frame and left out).  Measured on the 15 synthetic
        # files: recall +0.8 points (zh files up to +2.6), no file's precision lower by more than
        # 0.001; without the "above lines of its own" (a block reaching the page's bottom is also
        # what a page of nothing but its site's frame looks like), one file lost 0.009.
        return set()
    if one_block and tail and not at_the_end(tail, line_keys, line_grams, head):
        # One block reaching the page's bottom that does not hold the member's end: the top of
        # its article, not a site's frame, which holds the member's last lines.  A truncated zh
        # copy under a notice line of its own shared every other line with its original: the
        # whole text was taken for a header and footer (containment 0.0, all 5 sentences voting
        # for the original).  Measured on 50 synthetic files of ten seeds: recall up on 37 (to
        # +0.5 points, mean +0.11), down on 2 (-0.07 at most); precision up on 4, down on 5
        # (-0.0017 at most: clusters that had joined a pasted paragraph's or a templated
        # sibling's page are larger now); real pages all forms recall 0.919 -> 0.925, article
        # text -> full page 0.93 -> 0.94, precision unchanged; the sample unchanged.
        return set()
    if (
        tail
        and (not site_header or _own_footer(known, count, skip, foot))
        and not at_the_end(tail, line_keys, line_grams, foot)
    ):
        # No header (or one that only looks like one site's: a menu many sites use), and the
        # member's last lines are not in the "footer": these are lines above the member's own
        # footer, the end of its article (a copy without a footer of its own, or one whose own
        # footer was stepped over, whose last paragraphs were taken for a shared footer).
        return set()
    # Below a header that shows one site, lines only the two pages have may be that site's too.
    article = set() if site_header else _above_the_footer(foot - head, known)
    return (head | foot) - _past_a_gap(head, known) - article


def _stepped_over(shared: list[bool], line_grams: Sequence[int], limit: int, flat: bool, glued: int = 0) -> int:
    """How many last lines of its own :func:`chrome_lines` steps over: up to ``limit`` short ones, the first of them
    whatever its size on a ``flat`` page; ``glued`` last lines count as one (their check is the caller's)."""
    # A page that came without line breaks ends in one line of the site's links and related titles
    # glued together, a long line of its own: no footer was found above it, and the site's notices
    # made another article of the site look like the page (the 95 synthetic files with every line of
    # a page joined: en precision 0.851 in the mean, one file 0.06; with the last line stepped over
    # 0.950, the lowest 0.478; pages with a line break are not concerned).
    skip, units = glued, 1 if glued else 0
    while (
        units < limit
        and skip < len(shared)
        and not shared[-1 - skip]
        and (line_grams[-1 - skip] < _LIST_GRAMS or (flat and skip == 0))
    ):
        skip += 1
        units += 1
    return skip


def _above_the_footer(foot: set[int], known: Collection[int]) -> set[int]:
    """The footer's lines above its lines other clusters have and a gap, when none of them is such a line.

    Sites carry notices copied verbatim from one another (copyright, disclaimer,
    consent), each between lines of its own.  A copy on another site that keeps
    its original's paragraphs shares those notices and the paragraphs with it,
    and the run from the bottom, over the gaps its own lines make, went on
    through the paragraphs: the article was left out as footer (containment
    0.16-0.27 with all 5 sentences voting for the original).  A shared footer
    holds such lines where other pages have it; lines above it that no other
    cluster has, past a line of the page's own, are the article.  Not below a
    header that shows one site (:func:`chrome_lines`): there, lines that only
    the two pages have may be the site's too.  Measured on 95 synthetic files
    of nineteen seeds: recall up on 13 (to +0.48 points), down on none,
    precision unchanged on all; unseen seeds 2025, 6174 and 7919: recall up on
    3 of 15 files, nothing lower; the real pages and the sample unchanged.
    Below a site's header too, recall rose on 32 files, but precision fell on
    3 (-0.001 at most) and on the real full pages from 0.846 to 0.806 (two
    articles of one site sharing lines no third page had); without the gap
    (known lines right below lines no other cluster has), a zh held-out file
    lost 0.027 of precision (a young site's own footer under notices other
    sites have).
    """
    lines = sorted(foot, reverse=True)
    below = 0
    while below < len(lines) and lines[below] in known:
        below += 1
    if below in (0, len(lines)) or lines[below] == lines[below - 1] - 1:
        return set()
    above = lines[below:]
    return set() if any(line in known for line in above) else set(above)


def _past_a_gap(head: set[int], known: Collection[int]) -> set[int]:
    """The header's lines past its first gap, up to a run of lines other clusters have that ends it, when the
    lines above the gap are all such lines and those between none.

    Many sites use one menu line; a copy on another site that keeps its
    original's lines below a line of its own (a date, a byline) had its
    article taken for the header the two share.  A site's own header is lines
    its other pages have, on both sides of a line that differs.  Measured on
    50 synthetic files of ten seeds: recall up on 28 (to +0.5 points, mean
    +0.08), down on 2 (-0.13 at most); precision up on 5, down on one
    (-0.0004); seed 4711: recall up on 2 of 5 (its zh tune +0.6 points),
    precision -0.0004 on one; the real pages and the sample unchanged.

    A copy on the article's own site shares the site's header, the article
    and the site's footer with its original: one block over the copy's date
    line, all left out as frame (containment 0.94, scored 0.36).  The block's
    last lines other clusters have are the site's footer; between the gap and
    them lies the article.  Measured on 55 synthetic files: recall up on 14,
    down on none; precision down on one (-0.0009); seeds 3579, 2468 and 8642:
    recall up on 4 of 15, nothing down; the real pages and the sample unchanged.
    """
    lines = sorted(head)
    for index in range(1, len(lines)):
        if lines[index] != lines[index - 1] + 1:
            above, below = lines[:index], lines[index:]
            end = len(below)
            while end and below[end - 1] in known:
                end -= 1
            middle = below[:end]
            if all(line in known for line in above) and middle and not any(line in known for line in middle):
                return set(middle)
            break
    return set()


def _own_footer(known: Collection[int], count: int, skip: int, foot: set[int]) -> bool:
    """Whether the ``skip`` last lines stepped over are partly lines other clusters have, and fewer than
    :data:`_FOOT_KNOWN` of the ``foot``'s lines are.

    The page's own site footer, which the member lacks, below the end of the
    article they share: seen in zh copies on another site under a menu line
    both sites use (their article's last paragraphs were left out as a shared
    footer).  A run of a footer both pages have holds lines other clusters
    have too, once the site has other pages, whatever their own lists of
    related titles below it.  Measured on the 50 synthetic files of ten
    seeds: recall up on 36 files (to +0.7 points), down on none; precision
    -0.0005 at most (copies joined to their story that later bridged to a
    pasted paragraph's source), up on 5; the real pages and the sample
    unchanged.  Without a limit on the foot's known lines a seed's en tune lost
    0.0012 (known related titles below a shared footer).
    """
    if not known or not any(count - 1 - index in known for index in range(skip)):
        return False
    return sum(1 for line in foot if line in known) < _FOOT_KNOWN * len(foot)


def shares_header(line_keys: Sequence[int], line_grams: Sequence[int], bits: int) -> bool:
    """Whether the document shares a header with a member whose lines are ``bits``: a run from the top beyond a title.

    What :func:`chrome_lines` takes for the sign that two pages are of one site.
    """
    shared = [has_line(bits, key) for key in line_keys]
    return bool(_edge_run(shared, line_grams, skip=1) - {0})


def member_tail(line_keys: Sequence[int], line_grams: Sequence[int]) -> int:
    """Where a page ends, in 30 bits: tags of its last line, the line before it, and its last line that is not short.

    A footer that another page shares with this one holds one of them: its
    last line; the one before, when a line of its own follows the footer (a
    share link, a page id); or its last line of :data:`_LIST_GRAMS` grams or
    more, when other articles' titles follow it.  Measured on the 15
    synthetic files of three seeds, as the rule of :func:`chrome_lines`:
    recall +0.5 points, F1 up on all 15 files, precision -0.006 on one file
    (sibling pages whose sentence votes went to one cluster of the story's
    copies, no longer to three).  With the last line alone, one file lost
    0.012 of precision (pages ending in lists of other articles' titles);
    with the last long line alone, another lost 0.023 (zh footers of short
    lines); without the line before the last, a seed of the sample's
    popular-story check lost 0.04 (each copy ends in a page id of its own).
    """
    if not line_keys:
        return 0
    tail = (_tag(line_keys[-1]) << _TAG_BITS | (_tag(line_keys[-2]) if len(line_keys) > 1 else 0)) << _TAG_BITS
    for key, grams in zip(reversed(line_keys), reversed(line_grams)):
        if grams >= _LIST_GRAMS:
            return tail | _tag(key)
    return tail


def _tag(key: int) -> int:
    """A line key's top bits, never 0 (0 is "not known")."""
    return (key >> (32 - _TAG_BITS)) | 1


def at_the_end(tail: int, line_keys: Sequence[int], line_grams: Sequence[int], lines: set[int]) -> bool:
    """Whether ``lines`` end the page the :func:`member_tail` ``tail`` names, as a footer would.

    They hold its last line or the one before; or its last long line, and are
    less than :data:`_FOOT_SHARE` of the document's grams.
    """
    tags = {_tag(line_keys[index]) for index in lines}
    # The tail's tags, high to low: the last line, the one before, the last long line.
    if any((tail >> (_TAG_BITS * part)) & _TAG_MASK in tags for part in (1, 2)):
        return True
    if tail & _TAG_MASK not in tags:
        return False
    return sum(line_grams[index] for index in lines) < _FOOT_SHARE * sum(line_grams)


def lines_in(line_keys: Sequence[int], line_grams: Sequence[int], lines: set[int], bits: int) -> int:
    """Grams of the document's ``lines`` (indices) that a member whose lines are ``bits`` has too."""
    return sum(line_grams[index] for index in lines if has_line(bits, line_keys[index]))


#: At most this many lines of fewer than this many grams are stepped over below a shared footer.
_LIST_LINES: Final = 10
_LIST_GRAMS: Final = 100
#: ... and this many when no header is shared.  Copies of a site's pages that end in a page id
#: of their own and carry an edit in the footer's last line (a registration number) hid the
#: footer behind two lines, and a site's articles merged through their notices (popular-story
#: check, seed 4: precision 0.938 -> 1.000, recall 0.940 -> 0.988; seeds 1-3 and 5-8 unchanged).
#: On the 15 synthetic files: precision unchanged on every file, mean recall -0.09 points (-0.2
#: at most).  An article's end above a copy's own last lines is not taken for a shared footer
#: either: the member's tail (:func:`member_tail`) says where its page ends.
_OWN_LINES: Final = 2
#: A run of lines that holds a member's last long line, and not its last line or the one before,
#: is its footer only while it is less than this share of the document: a footer is not most of a
#: page.  A member whose footer lines are all short ends its article in its last long line, and a
#: copy on another site that ends in that article's last paragraphs (and has no footer of its
#: own) shares a run with it from the bottom that is most of the copy.  Measured (three seeds,
#: 15 synthetic files): mean recall +0.10 points, no file lower in precision by more than 0.001;
#: real pages (all forms) recall +0.1 points at the same precision; the popular-story check
#: unchanged on all 8 seeds.  The same share applied to every tag cost 0.7 points of precision.
_FOOT_SHARE: Final = 0.5
#: The share of a run's lines that may be lines other clusters have when :func:`_own_footer` takes
#: it for the end of an article (none, before 2026-12-04).  A zh copy on another site kept the
#: article's last paragraphs above its own footer, and one of them was a line a manual repeats on
#: every page ("to access this command"): the article was left out as a shared footer
#: (containment 0.23 with all 5 sentences voting for its story).  A footer both pages have holds
#: mostly lines their site's other pages have.  Measured on 55 synthetic files of eleven seeds:
#: recall up on 22 (to +0.5 points, mean +0.05), down on none; precision up on 2, down on none;
#: seeds 3579, 2468 and 8642 (not used for the choice): recall up on 4 of 15, down on none; the
#: real pages and the sample unchanged.  Half, or any share, let known related titles below a
#: shared footer through (seed 4711's en tune -0.0012 of precision with no limit) and cost seed
#: 8080's zh tune 0.12 points of recall; at most 1, 2 or 3 lines measured alike.
_FOOT_KNOWN: Final = 0.33
#: Bits of a line key's tag in a :func:`member_tail` (three tags; a tag is never 0).
_TAG_BITS: Final = 10
_TAG_MASK: Final = (1 << _TAG_BITS) - 1
#: A line inside a shared header or footer that the other page lacks ("previous
#: article: ..."): shorter than a paragraph.
_GAP_GRAMS: Final = 200


def _edge_run(shared: Sequence[bool], grams: Sequence[int], skip: int) -> set[int]:
    """The run of shared lines from the edge, after up to ``skip`` unshared ones, over one-line gaps.

    A gap is one unshared short line (a "previous article" link), never a paragraph.
    """
    start = 0
    while start < skip and start < len(shared) and not shared[start]:
        start += 1
    run: set[int] = set()
    gap = False
    for index in range(start, len(shared)):
        if shared[index]:
            run.add(index)
            gap = False
        elif gap or not run or grams[index] >= _GAP_GRAMS:
            break
        else:
            gap = True
    return run

"""The boilerplate rule: which sentence keys stop counting.

A key is *boilerplate* (a site's header, footer, licence line or cookie
notice) when it keeps proposing clusters that the whole texts then refuse:
each time a key points a document to a candidate that fails verification,
the key gets one piece of evidence, and at ``boilerplate_after`` pieces it is
marked and no longer proposes anything.  A key that ever led to a verified
match is content of an article and is never marked, however often heavily
edited copies of that article fail later: a popular story cannot lose its
own sentences.  The evidence does not depend on how many pages a site has,
only on failed verifications, so two pages of a site suffice.

A page *line* is frame (a site's menu, footer, notice) once it has been seen
in two clusters: the ``line`` table keeps the cluster each line was first
seen in, then :data:`SHARED_LINE`.  Verification sketches a page without the
lines that other clusters have (:func:`nshash.verify.verify_score`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress
from typing import Final

from nshash.clusters import find_roots
from nshash.stores.view import StoreView

#: The ``fp`` value of a key marked as boilerplate.
BOILERPLATE: Final = 0
#: The ``stat`` value of a key known to be content (it led to a verified match).
CONTENT: Final = -1
STAT: Final = "stat"
FP: Final = "fp"
LINE: Final = "line"
#: The ``line`` value of a line seen in two clusters or more.
SHARED_LINE: Final = 0
#: :func:`line_roots`' value for a line never seen.
UNSEEN: Final = -1
#: Lines looked up and noted per page, half from the top and half from the
#: bottom (a site's frame is at the edges): a page of a million short lines
#: costs no more store reads, writes or memory than a long article.  Lines
#: of no grams (under 5 characters) change no sketch and are left out.
LINE_LIMIT: Final = 1024


def without_boilerplate(
    keys: list[int], values: list[int | None], positions: list[int]
) -> tuple[list[int], list[int | None], list[int]]:
    """Drop the sentences with a key marked as boilerplate."""
    keep = [
        index
        for index in range(len(positions))
        if values[2 * index] != BOILERPLATE and values[2 * index + 1] != BOILERPLATE
    ]
    return (
        [keys[2 * index + side] for index in keep for side in (0, 1)],
        [values[2 * index + side] for index in keep for side in (0, 1)],
        [positions[index] for index in keep],
    )


def record_evidence(view: StoreView, suspects: Sequence[int], content: Sequence[int], after: int) -> None:
    """Count evidence against ``suspects``, protect ``content``; mark keys with ``after`` pieces."""
    keys = list(dict.fromkeys([*suspects, *content]))
    if not keys:
        return
    counts = dict(zip(keys, view.get_many(STAT, keys)))
    updates: dict[int, int] = {key: CONTENT for key in content if counts[key] != CONTENT}
    for key in dict.fromkeys(suspects):
        count = counts[key]
        if count != CONTENT and key not in updates:
            updates[key] = (count or 0) + 1
    if updates:
        view.put_many(STAT, list(updates.items()))
        marked = [(key, BOILERPLATE) for key, count in updates.items() if count >= after]
        if marked:
            view.put_many(FP, marked)


def considered_lines(line_grams: Sequence[int]) -> list[int]:
    """The lines (indices) looked up and noted: those with grams, the first and last ``LINE_LIMIT // 2`` of them."""
    count = len(line_grams)
    if count <= LINE_LIMIT:  # the common case, at C speed
        return list(compress(range(count), line_grams))
    half = LINE_LIMIT // 2
    top: list[int] = []
    for index, grams in enumerate(line_grams):
        if grams > 0:
            top.append(index)
            if len(top) == half:
                break
    # Read from the bottom up to the top's last line: no list of every line of a huge page.
    bottom: list[int] = []
    stop = top[-1] if top else -1
    for index in range(len(line_grams) - 1, stop, -1):
        if line_grams[index] > 0:
            bottom.append(index)
            if len(bottom) == half:
                break
    return top + bottom[::-1]


def line_roots(
    view: StoreView, line_keys: Sequence[int], line_grams: Sequence[int], also: Sequence[int] = ()
) -> tuple[dict[int, int], dict[int, int]]:
    """Where each line :func:`considered_lines` gives was seen, and the current ids of ``also``.

    A line's value is the current id of the cluster it was seen in,
    :data:`SHARED_LINE` or :data:`UNSEEN`.  The clusters ``also`` names are
    resolved in the same read of the ``parent`` table.
    """
    lines = considered_lines(line_grams)
    values = view.get_many(LINE, [line_keys[index] for index in lines]) if lines else []
    seen = {value for value in values if value}  # not None, not SHARED_LINE
    roots = find_roots(view, [*also, *seen]) if seen or also else {}
    found = {index: UNSEEN if value is None else roots.get(value, value) for index, value in zip(lines, values)}
    return found, roots


def record_lines(view: StoreView, line_keys: Sequence[int], lines: dict[int, int], own: Iterable[int]) -> None:
    """Note the document's lines (:func:`line_roots`) as seen in cluster ``own``.

    ``own``: the document's cluster first, then the clusters merged into it.
    """
    own = list(own)
    target = own[0]
    writes: dict[int, int] = {}
    for index, root in lines.items():
        if root == UNSEEN:
            writes[line_keys[index]] = target
        elif root != SHARED_LINE and root not in own:  # in another cluster before: frame
            writes[line_keys[index]] = SHARED_LINE
    if writes:
        view.put_many(LINE, list(writes.items()))


def unstored_keys(keys: list[int], values: list[int | None], failed: set[int], n: int) -> list[int]:
    """The keys a decided document writes: the unstored ones of its ``n`` longest sentences not leading to ``failed``.

    ``keys`` and ``values``: two per sentence (head and tail), longest first.
    A sentence that led to a cluster the document failed to verify with is
    its site's frame or another article's: it does not take one of the ``n``
    places.  A young site's notices are often longer than its articles'
    sentences; in those places they left an article's own sentences unstored,
    and a copy of it on that site found nothing to propose (measured on the 15
    synthetic files, with the join rule of :func:`~nshash.decide.assign`: recall +0.1 to +1.5
    points on 14, -0.4 on one).  Its half that led nowhere is written all the
    same: a sentence that only begins (or ends) like another article's is the
    page's own, and a short article of one such sentence stored no key its copies
    could find.  Measured (2026-12-06) against leaving it out: 21 files (synthetic,
    independent, held-out books) F1 up on 15, down on 4 (-0.0015 at most).
    """
    out: list[int] = []
    chosen = 0
    for index in range(0, len(keys), 2):
        head, tail = values[index], values[index + 1]
        if chosen == n:
            break
        out += [key for key, value in ((keys[index], head), (keys[index + 1], tail)) if value is None]
        chosen += head not in failed and tail not in failed
    return out

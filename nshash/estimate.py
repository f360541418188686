"""How far a containment estimate between two sketches can be trusted: sizes, a shared frame, a page's body.

:func:`nshash.verify.verify_score` scores a document against a cluster's
members with these; the C (``nshash/_estimate.h``) implements them too, tested
against these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from nshash.sketch import Sketch, body_containment, containment, containment_error, has_rest, shared_grams

#: From this ratio of the larger text's grams to the smaller's, a containment
#: estimate is mostly chance: a small page "is contained" in a page ten times
#: its size in the same language, because the large page holds the language's
#: common 5-grams (measured on the real pages: different articles at a ratio
#: of 8 or more, 99th percentile 0.88).  It then counts only if almost total,
#: and only for a smaller text of ``SIZE_RATIO_GRAMS`` grams or more (a page of
#: a few lines is "contained" in any long page of its site that lists it).
#: Where the larger text finds a shared header and footer, the sizes compared
#: are those without them (a page of little more than its site's frame
#: attracted 14 articles of its site on an unseen synthetic corpus: precision
#: 0.957 -> 0.969 there).  From the smaller text they stay whole: compared
#: without the "frame" there, an article's text lost its full page (real
#: pages, article text -> full page recall 0.924 -> 0.915).
SIZE_RATIO: Final = 6
SIZE_RATIO_CONTAINMENT: Final = 0.95
SIZE_RATIO_GRAMS: Final = 200
#: Standard errors the frame's subtraction adds that a body estimate is lowered by.
FRAME_ERRORS: Final = 1.0
#: The page without its frame (its shared header and footer, and the lines
#: other clusters have) is sketched again and compared with each member when
#: it keeps this many grams, is less than ``BODY_SIZE_RATIO`` times smaller
#: or larger than the member, and then counts ``BODY_ERRORS`` standard errors
#: below its estimate.  A reprint on another site carries that site's frame,
#: which the stored members cannot leave out: its whole-text containment is
#: low where its body's is high.  Measured on the 15 synthetic files of three
#: seeds: recall +0.6 to +5.7 points, precision -0.005 to +0.017 (F1 up on
#: all); with a ratio of 6 mean precision fell 0.002 more (small bodies "in"
#: long pages of the same language), with 2 half the recall was gained.
#: Measured again with today's rules (2026-12-05), ratios 4 / 6 / 10: on the
#: 95 synthetic files F1 +0.0011 / +0.0015 / +0.0015 in the mean, precision
#: down on 18 / 26 / 31 files (to -0.004); the independent corpus (seeds 1-2)
#: unchanged in the mean; real chrome around real articles F1 0.901 -> 0.899 /
#: 0.900 / 0.901; real pages all-forms F1 0.955 -> 0.955 / 0.954 / 0.954 (text
#: forms 0.973 -> 0.972).  The gain is the synthetic corpus's alone: kept at 3.
BODY_MIN_GRAMS: Final = 100
BODY_SIZE_RATIO: Final = 3
BODY_ERRORS: Final = 1.0
#: On a mostly CJK page (:func:`~nshash.verify.cjk_page`) a body of
#: ``CJK_BODY_GRAMS`` grams or more, within :data:`SIZE_RATIO` of the member's
#: size, counts ``CJK_BODY_ERRORS`` standard errors below its estimate, not
#: ``BODY_ERRORS``, and without :data:`BODY_SIZE_RATIO`.  Five CJK characters
#: are two or three words, so a body rarely finds its 5-grams in another
#: article by chance as a Latin one does ("ofthe"), and the estimate is close
#: to unbiased (over 942 pairs of one article's pages, mean error -0.041 to
#: +0.010 by size).  A short Chinese article's body, a third to a sixth of a
#: member that carries its own site's frame, lost its copies to the error and
#: the ratio.  Measured (2026-12-05, C and Python the same), against the rule
#: before: the 95 synthetic files F1 up on 54, down on one (-0.0025; zh recall
#: up to +2 points); the independent corpus's zh F1, seeds 1-4, 0.850 / 0.900
#: / 0.888 / 0.878 -> 0.844 / 0.906 / 0.894 / 0.892 (seed 1: more of its
#: templated booklet pages merge).  At the estimate itself (no error) F1 rose
#: more (0.846 / 0.916 / 0.896 / 0.894; the 95 files up on 56, down on none),
#: but the default seed's zh tune and held-out fed as one crawl
#: (``run_scale.py``) fell to precision 0.974 (0.982 before; 0.981 with half an
#: error): sibling help pages that share half their lines verbatim, at 0.60
#: against a need of 0.6; a quarter of an error gave 0.978.  Without the bound of
#: :data:`SIZE_RATIO` a short manual page joined a long list of its menu paths;
#: 30 or 80 grams instead of 50 changed F1 by 0.001 at most.
CJK_BODY_GRAMS: Final = 50
CJK_BODY_ERRORS: Final = 0.5


def trusted_containment(a: Sketch, b: Sketch, chrome: int, surrounded: bool = False, site: bool = False) -> float:
    """:func:`~nshash.sketch.body_containment`, discounted where it means little.

    ``a`` is the text whose lines found the ``chrome`` grams of shared frame
    (the document being decided); ``surrounded``: its frame lies around lines
    of its own (see :func:`~nshash.frame.surrounds`); ``site``: the two are
    pages of one site (:func:`~nshash.sketch.has_rest`).

    Leaving a shared frame out multiplies the estimate's error by the share of
    the smaller text that is not frame: for a short article in a long frame
    the body estimate is mostly noise, so it is lowered by the error that the
    subtraction adds.  Where the sizes differ too much, only an almost total
    containment counts (:data:`SIZE_RATIO`); with a shared frame found from
    the larger text, the sizes of what is left of each.
    """
    score = body_containment(a, b, chrome, site)
    smaller, larger = sorted((a.grams, b.grams))
    rest = smaller - chrome
    framed = chrome > 0 and has_rest(rest, smaller, site)
    # A page that is little more than its site's frame (a section index, a
    # copy cut down to its frame) is contained in every article page of the
    # site: seen from the larger page, sizes are compared without the shared
    # frame.  Seen from the smaller text, runs from both edges may be one
    # shared block (an article's text inside its full page): sizes stay whole.
    small, large = (rest, larger - chrome) if framed and a.grams >= b.grams else (smaller, larger)
    if chrome > 0 and not framed and surrounded and a.grams >= b.grams and larger - chrome > chrome:
        # The smaller text is all frame, and the frame is a header and footer
        # around the larger page's own body: one page only if the body is not most of it.
        return 0.0
    if large >= SIZE_RATIO * max(1, small) and (score < SIZE_RATIO_CONTAINMENT or small < SIZE_RATIO_GRAMS):
        return 0.0
    if framed:
        score -= FRAME_ERRORS * containment_error(a, b) * chrome / rest
    return max(0.0, score)


def frame_free_score(body: Sketch, page: Sketch, other: Sketch, chrome: int, whole: float, site: bool = False) -> float:
    """How much of a page's ``body`` a member has without the ``chrome`` grams of frame they share, less one error.

    ``page``: the whole page's sketch; ``whole``: what :func:`trusted_containment`
    estimates from the whole texts, subtracting the frame.  Both estimate the
    same share (the subtraction's error grows with the frame's share of the
    smaller text, this one's with the size of the member against the body's).
    The body's counts when its error is the smaller; else the two are weighted
    by their precisions (inverse variances), never above the subtraction's.
    When the subtraction's alone counted, a short article on a reprint's site,
    the site's chrome 58% of it, was "contained" in the reprint at 0.71 and
    its body at 0.29 (seed 1357); weighted, precision rose on 4 of 55
    synthetic files (to +0.0036), fell on none, and recall fell on 5 (to -0.2
    points); real pages unchanged.

    When the known frame leaves too little of the smaller text
    (:func:`~nshash.sketch.has_rest`; ``site``: pages of one site), that text has nothing of its own to
    compare: 0 (a page of a site's notices and a date, its links cleaned
    away, joined an article of the site and chained 5 others).  The
    whole-text estimate counts when the body is empty; where the sizes differ
    too much for the body's estimate to stand alone (:data:`BODY_SIZE_RATIO`:
    a small text is partly "in" a large one by chance), the lower of the two.
    A body under :data:`BODY_MIN_GRAMS` is compared too: its estimate is
    noisy, the subtraction's noisier (a page of its site's known chrome and
    96 grams of its own was "in" an article of the site at 1.0 - 0.31 through
    the whole texts, at 0.26 +- 0.21 through its body, and 8 pages of the
    site chained).  Measured on 95 synthetic files of nineteen seeds:
    precision up on 10 (seed 5757's en tune 0.966 -> 0.985), down on one
    (-0.0001); recall down on 6 (-0.14 points at most), up on 2; F1 up on 10,
    down on 3 (-0.0007 at most); unseen seeds 2025, 6174 and 7919: F1 up on
    one file, down on one (-0.0006); the real pages: all forms recall 0.926 ->
    0.925 (one page of one feeding order), the rest unchanged; the sample unchanged.
    See :data:`~nshash.bodies.KNOWN_FRAME`.
    """
    smaller = min(page.grams, other.grams)
    rest = smaller - chrome
    if chrome > 0 and not has_rest(rest, smaller, site):
        return 0.0  # the smaller text is its site's frame and nothing of its own: nothing to compare
    if chrome <= 0 or body.grams == 0:
        return whole
    small, large = sorted((body.grams, other.grams - chrome))
    error = containment_error(body, other) * min(body.grams, other.grams) / small
    found = min(1.0, shared_grams(body, other) / small)
    whole_error = containment_error(page, other) * chrome / rest
    if whole_error <= error:
        if whole_error <= 0:
            return whole
        weight = (error / whole_error) ** 2
        return min(whole, (whole * weight + found) / (weight + 1))
    score = max(0.0, found - BODY_ERRORS * error)
    return min(score, whole) if large >= BODY_SIZE_RATIO * small else score


#: Where a page and a member share no header or footer (:func:`~nshash.frame.shared_frame`
#: found none), the lines of the page that other clusters have and the member
#: has too are its site's frame all the same when they are this share or more
#: of the smaller text (in grams): the page is compared without them
#: (:func:`unframed_score`).  Edge runs miss a frame when a page's first and
#: last lines are its own (a title, a list of related titles its chrome
#: removal kept), and a site's footer of long notices, most of a short page,
#: then made different articles of the site "contain" each other at 0.7-0.8,
#: each joining on one footer sentence's vote: with chrome removal off, 49
#: articles of one site formed one cluster (a synthetic en file's precision
#: 0.72).  Measured on 95 synthetic files of nineteen seeds: with chrome
#: removal off, the lowest precision 0.72 -> 0.978 (mean +0.0054, F1 mean
#: +0.0027); as shipped (removal on), precision up on 23 files, down on one
#: (-0.0007), recall down on 43 (-0.27 points at most), F1 mean +0.0001; seeds
#: 2025, 6174 and 7919: F1 unchanged in the mean, precision up on 5 of 15;
#: real pages: recall (all forms) 0.925 -> 0.924, precision unchanged; the
#: sample unchanged.  0.3 of the smaller text (before :data:`UNFRAMED_OWN`): recall down on
#: 64 files, 48 at a half.
UNFRAMED_KNOWN: Final = 0.5
#: ... and when each text has this share of its grams besides them.  A text
#: that is little more than such lines may be an article whose other copies
#: went to two clusters (its lines are then "seen elsewhere" too): compared
#: without them, an article's text lost its full page and the reverse (real
#: pages, article text -> full page recall 0.94 -> 0.92 without this condition).
UNFRAMED_OWN: Final = 0.2


def unframed(page: Sketch, other: Sketch, known: int) -> bool:
    """Whether ``known`` grams of a page's lines that other clusters have and ``other`` has too are a frame.

    For a page that shares no frame with ``other``: they are :data:`UNFRAMED_KNOWN`
    of the smaller text or more, and each text has :data:`UNFRAMED_OWN` of its own besides.
    """
    if known <= 0 or known < UNFRAMED_KNOWN * min(page.grams, other.grams):
        return False
    return page.grams - known >= UNFRAMED_OWN * page.grams and other.grams - known >= UNFRAMED_OWN * other.grams


def unframed_score(body: Sketch, page: Sketch, other: Sketch, known: int, site: bool = False) -> float:
    """The most a page that shares no frame with ``other`` may score: the ``known`` grams as its frame.

    ``known``: the grams of the page's lines that other clusters have and
    ``other`` has too; ``body``: the page's sketch without the lines other
    clusters have; ``site``: the two are pages of one site.  1.0 (no bound)
    unless they are a frame (:func:`unframed`).
    """
    if not unframed(page, other, known):
        return 1.0
    whole = trusted_containment(page, other, known, site=site)
    return frame_free_score(body, page, other, known, whole, site)


def body_score(body: Sketch, other: Sketch, cjk: bool = False) -> float:
    """The containment of a page's body and a member, one error below the estimate; 0 when it means little.

    ``cjk``: the page is mostly CJK; within :data:`SIZE_RATIO` of the member's size its body then
    counts half an error below the estimate (:data:`CJK_BODY_GRAMS`).

    See :data:`BODY_MIN_GRAMS`.  A body :data:`BODY_SIZE_RATIO` times smaller
    than the member or more counts as whole texts of sizes too far apart do
    (:func:`trusted_containment`): only when almost wholly in it
    (:data:`SIZE_RATIO_CONTAINMENT`) and of :data:`SIZE_RATIO_GRAMS` or more.
    That is an article copied verbatim into a page far longer than the copy's
    own (its frame left out of the body, the member's other site's frame not).
    Measured (2026-12-05), against 0 at any such size: the 95 synthetic files
    of nineteen seeds F1 up on 48, down on none (recall +0.07 points in the
    mean, precision -0.0013 at most); real chrome around real articles F1
    0.901 -> 0.903; the independent corpus (seeds 1-4) en F1 up on seeds 2 and
    3 (+0.0012, +0.0007), the rest unchanged; the sample unchanged; the real pages all-forms
    F1 0.9555 -> 0.9549 (one feeding order: a page's three text forms joined its
    raw HTML, which another page's cluster already held).
    """
    small, large = sorted((body.grams, other.grams))
    if cjk and large < SIZE_RATIO * small:
        if body.grams < CJK_BODY_GRAMS:
            return 0.0
        return max(0.0, containment(body, other) - CJK_BODY_ERRORS * containment_error(body, other))
    if body.grams < BODY_MIN_GRAMS:
        return 0.0
    if large >= BODY_SIZE_RATIO * small:
        if body.grams > other.grams or body.grams < SIZE_RATIO_GRAMS:
            return 0.0
        score = containment(body, other)
        return score if score >= SIZE_RATIO_CONTAINMENT else 0.0
    return max(0.0, containment(body, other) - BODY_ERRORS * containment_error(body, other))


#: A page that agrees best with a cluster's later member (not its first) joins
#: on it only when a second member overlaps the page too: scores or contains
#: (the whole texts, :func:`~nshash.sketch.containment`) this much or more
#: (:func:`corroborated`).  A later member that holds a second article besides
#: the cluster's (a forum thread quoting the story around another, a page of
#: two stories) otherwise draws that article's copies in, and they the next
#: ones.  The first member is the cluster's article as first seen: a page
#: closest to it needs no second (the second half of a story whose full text
#: came first, after a copy of its first half).
#: Measured (2026-12-05; one run each, against no such check): real chrome
#: around real articles P / R / F1 0.919 / 0.889 / 0.904 -> 0.946 / 0.885 / 0.914
#: (asked of every page, the first too: 0.969 / 0.878 / 0.921, but every copy
#: of a story's second half after a copy of its first half was split off); the
#: 95 synthetic files of nineteen seeds F1 up on 56, down on 2 (-0.00002 at
#: most; precision +0.0014 in the mean); the independent corpus F1 -0.0009 to
#: +0.0003 on 3 of its 8 files; the real pages all forms F1 0.9798 -> 0.9788
#: (a page's forms whose two members hardly overlap: an annotated text and a
#: raw HTML shell).  At 0.3 (asked of every page) the independent zh recall fell
#: 0.6 to 1.4 points: copies inside heavy chrome overlap little as whole texts.
CORROBORATE: Final = 0.2


def corroborated(page: Sketch, members: Sequence[Sketch], scores: Sequence[float]) -> float:
    """The highest of ``scores`` (the page's against each of a cluster's ``members``, first member first), if it stands.

    It stands when it is the first member's, or a second member overlaps the
    page too: scores, or the two whole texts contain each other,
    :data:`CORROBORATE` or more.  Otherwise the next highest counts.

    >>> from nshash.sketch import sketch
    >>> story, other = "the story's own text, long enough " * 4, "another article entirely, about a trip " * 4
    >>> corroborated(sketch(story), [sketch(other), sketch(story)], [0.05, 1.0])
    0.05
    >>> corroborated(sketch(story), [sketch(story), sketch(other)], [1.0, 0.05])
    1.0
    """
    if not scores:
        return 0.0
    best = max(range(len(scores)), key=scores.__getitem__)  # the first of equal scores
    if best == 0 or overlapping(page, members, scores) >= 2:
        return scores[best]
    return sorted(scores)[-2]


def overlapping(page: Sketch, members: Sequence[Sketch], scores: Sequence[float]) -> int:
    """How many of ``members`` overlap the page (see :func:`corroborated`)."""
    return sum(score >= CORROBORATE or containment(page, other) >= CORROBORATE for other, score in zip(members, scores))

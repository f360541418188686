"""Whether a page's body agrees with a cluster's members once the frame it shares is left out.

What a page that passed on its sentence votes (:func:`body_agrees`) or that its
paragraphs proposed (:func:`line_body_agrees`) must also pass: pages of one
site share their frame, and their whole texts agree through it.  The decision
(:mod:`nshash.decide`) calls these; the C accelerator implements the same
functions (``nshash/_bodies.h``) and is tested against them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from nshash.edges import lines_in
from nshash.estimate import BODY_ERRORS, BODY_MIN_GRAMS, BODY_SIZE_RATIO
from nshash.fingerprint import Features
from nshash.frame import body_sketch, shared_frame, surrounds, template_sibling
from nshash.members import Member
from nshash.sketch import Sketch, containment, containment_error

#: When this share of the frame a document shares with a member is lines
#: other clusters have too (:func:`~nshash.frame.known_lines`), it is its site's frame for
#: certain, and the page's body, sketched without it, is also compared with
#: the member, the member's frame grams out of its size
#: (:func:`~nshash.estimate.frame_free_score`).  Subtracting the frame's grams from the
#: whole-text estimate leaves that estimate's whole error on a small rest: a
#: page that is little more than its site's frame "contained" the site's
#: other articles at 0.7-0.85.  Measured on the 15 synthetic files of three
#: seeds: precision 0.952 -> 0.998 and 0.969 -> 0.988 on the two files where
#: such pages chained 8 and 11 articles, no file lower in precision or recall;
#: real pages and the sample unchanged.  A frame only the member has may be
#: an article's own unchanged lines (a revision shares them from its edges
#: inward): there the subtraction stays (compared without such a frame too,
#: zh recall fell 1-2 points, on revisions).
KNOWN_FRAME: Final = 0.9
#: Errors above its estimate that another site's page passing on votes may be (:func:`body_agrees`).
#: Measured on the 15 synthetic files: precision 0.9889 -> 0.9901 (seed 4242's en held-out 0.975 ->
#: 0.981), recall -0.05 points; real pages 0.987 -> 0.988 at the same recall.  At 0 errors +0.19 /
#: -0.12 points; one error below (as within one site) recall -0.35, -0.5 to -0.7 on zh files.
CROSS_SITE_ERRORS: Final = 1.0
#: A page's body :data:`~nshash.estimate.BODY_SIZE_RATIO` times smaller or larger than every
#: member fails :func:`body_agrees` only when clearly elsewhere: below the need even this many
#: standard errors above its estimate (a loose estimate, but 0.02 +- 0.03 is not 0.5).  Before,
#: such a body let its votes stand, and a site's short pages joined a long article of the site
#: on two footer lines a variant spelling kept out of its known frame (seed 7919's zh-t2s: 8
#: stories in one cluster, precision 0.945).  FAR_BODY_ERRORS = 1, 2 and 3 did the same there.
FAR_BODY_ERRORS: Final = 3.0
#: ... unless this many grams of the page's lines outside the frame are lines of the member too.
FAR_OWN_GRAMS: Final = 100
#: A frame no other cluster has is compared so too when it lies around lines of the page's own
#: (:func:`~nshash.frame.surrounds`, a header and a footer) whose lines of this many grams or more
#: (paragraphs; menus, titles and headlines are shorter) outweigh its own: the site's frame around
#: another article.  Before, any frame not known elsewhere let the votes stand, and the first two
#: articles of a paywalled news site (two paragraphs each under a 240-line menu) joined on the site's
#: sentences.  A revision's frame, its unchanged paragraphs around an edited one, outweighs that one.
#: Measured with :func:`~nshash.frame.as_seen_by` (2026-12-07): the real full pages' precision 0.846 ->
#: 0.917, every other corpus file and real chrome as with that alone; alone, no file changed (the
#: frame found through a full line filter held the article's paragraphs).
FRAME_PARAGRAPH: Final = 60
#: A page and a member :data:`~nshash.estimate.BODY_SIZE_RATIO` apart in size that share no frame,
#: where the page has lines other clusters have and fewer than :data:`FAR_OWN_GRAMS` of its other
#: lines are the member's, agree at most as much as the page's body (without those lines) does: its
#: containment this many standard errors above the estimate, or its own score (:func:`far_page_score`).
#: Seen with every page joined (seed 4242's en tune, precision 0.008): a page that is only a title, a
#: menu, links and a cookie notice copied verbatim across sites (620 grams) "contained" another site's
#: page of 3,400 at 0.78 on the sketches' loose estimate and joined its cluster on the notice's vote;
#: every page of its site that had the notice then contained it.  Its body agreed at 0.36 (one error
#: 0.16); an edited copy's (typos in every line, so no line of it is the member's) at 0.78 (0.12).
#: Measured (2026-12-06, C, the 95 synthetic files): see the CHANGELOG.
FAR_PAGE_ERRORS: Final = 1.0


def body_agrees(features: Features, members: list[Member], known: Sequence[int], need: float) -> bool:
    """Whether a page that passed on its sentence votes also agrees without its frame.

    The easing of :func:`agrees` trusts sentence votes.  Between two pages of
    one site (they share a header and footer with a member), the votes may be
    the site's notices, longer than its articles' sentences, and a notice with
    an edited character hides from the frame found by whole lines: the page's
    body (without that frame and the ``known`` lines, :func:`~nshash.frame.body_sketch`)
    must then agree with a member by ``need`` too (a member within :data:`~nshash.estimate.BODY_SIZE_RATIO`
    of the body's size: against a far larger page the estimate says little).  In the
    bundled sample's popular-story check, three rounds of copies with three character edits
    each merged 16 to 33 of a site's stories on 7 of 8 seeds (precision 0.43-0.85); with
    this check, 0.93-1.0 on all eight.  It cost recall: up to -0.8 points on the 15
    synthetic files (mean -0.4, precision +0.0007), -1.1 points on real pages (all forms).

    A page of another site (no frame shared) that has lines other clusters
    have (``known``: its own site's frame, or prose a manual repeats on every
    page) fails only when its body, without them, is clearly elsewhere: below
    ``need`` even one standard error above its estimate.  A templated sibling page's votes are
    sentences its manual repeats, and its body is another article (see :data:`CROSS_SITE_ERRORS`).
    Any page fails against a member it is a templated sibling of (:func:`~nshash.frame.template_sibling`).
    """
    frame = shared_frame(features, members, known)
    drop = frame.union(known)
    if any(template_sibling(features, member, drop) for member in members):
        return False
    if not drop:
        return True  # nothing to leave out: the votes stand
    body = body_sketch(features, drop)
    if body.grams < BODY_MIN_GRAMS:
        return True  # too little to sketch: the votes stand
    sized = [m for m in members if max(body.grams, m.sketch.grams) < BODY_SIZE_RATIO * min(body.grams, m.sketch.grams)]
    if not sized:
        return far_body_agrees(features, members, frame, known, body, need)
    errors = -BODY_ERRORS if frame else CROSS_SITE_ERRORS
    return any(containment(body, m.sketch) + errors * containment_error(body, m.sketch) >= need for m in sized)


def far_body_agrees(
    features: Features, members: list[Member], frame: set[int], known: Sequence[int], body: Sketch, need: float
) -> bool:
    """:func:`body_agrees` where the body and every member are :data:`~nshash.estimate.BODY_SIZE_RATIO` apart in size.

    The estimate is loose at such sizes, and the votes stand unless the
    ``frame`` shared with the members is its site's for certain (:data:`KNOWN_FRAME`
    of it ``known``, or a header and footer around more paragraphs of the page's
    own than it holds: :data:`FRAME_PARAGRAPH`) and the body is clearly elsewhere: below ``need`` even
    :data:`FAR_BODY_ERRORS` standard errors above its estimate, and not
    :data:`FAR_OWN_GRAMS` of the page's other lines in the member.  A frame
    not known elsewhere, or lines of the page's own in the member, may be the
    article itself (a copy without a frame of its own; an article some of
    whose lines an earlier split left in two clusters).
    """
    grams = features.line_grams
    known_set = set(known)
    if not frame:
        return True
    own = set(range(len(grams))) - frame
    if sum(grams[i] for i in frame if i in known_set) < KNOWN_FRAME * sum(grams[i] for i in frame) and not (
        surrounds(frame, grams) and paragraph_grams(grams, frame) < paragraph_grams(grams, own)
    ):
        return True
    return any(
        containment(body, m.sketch) + FAR_BODY_ERRORS * containment_error(body, m.sketch) >= need
        or lines_in(features.line_keys, grams, own, m.lines) >= FAR_OWN_GRAMS
        for m in members
    )


#: Against a member of the page's own site (:func:`~nshash.site.same_site`) the frame the two share may
#: be the site's, not an article: :func:`~nshash.frame.own_article` (the page without its lines other
#: clusters have, as the article the frame would be) counts there only when the frame's lines no other
#: cluster has hold this many times the paragraph grams of the page's own lines (:func:`article_is_shared`).
#: Seen in real chrome around real articles: an article whose copies on two sites had not joined (its
#: lines in two clusters) came to a third site; without those lines the page was the site's footer of
#: headlines, "in" the page of another article of the site at 1.0, and it joined that article's cluster.
#: Measured (2026-12-07, C and Python alike): real chrome P 0.957 -> 0.959 (false pairs 117.7 -> 112.6 a
#: seed), recall and the edited copies' run unchanged; the 58 corpus and real-page rows unchanged.  1
#: instead of 2: 114.7 false pairs; 4: as 2.  Refusing it on its own site outright: 105.0 false pairs, but
#: recall fell on 9 corpus files (a revision on the same site of a short article, whose own lines were
#: its note and related titles); refusing it when the page's own lines hold any paragraph: 107.7, recall
#: -0.0004 on one file (a related title of 66 grams).
OWN_SITE_PARAGRAPHS: Final = 2


def article_is_shared(features: Features, frame: set[int], known: Sequence[int]) -> bool:
    """Whether the ``frame`` lines no other cluster has (not ``known``) are the article: :data:`OWN_SITE_PARAGRAPHS`."""
    grams = features.line_grams
    own = set(range(len(grams))) - frame
    return OWN_SITE_PARAGRAPHS * paragraph_grams(grams, own) <= paragraph_grams(grams, frame.difference(known))


def paragraph_grams(grams: Sequence[int], lines: Iterable[int]) -> int:
    """Grams of the ``lines`` of :data:`FRAME_PARAGRAPH` grams or more (``grams``: the page's line grams)."""
    return sum(grams[i] for i in lines if grams[i] >= FRAME_PARAGRAPH)


def line_body_agrees(features: Features, members: list[Member], known: Sequence[int], need: float) -> bool:
    """Whether a page its lines proposed (:func:`~nshash.decide.join_by_lines`) agrees with a member without its frame.

    The page without the frame it shares with the ``members`` and its ``known``
    lines must be :data:`~nshash.estimate.BODY_MIN_GRAMS` or more and contained
    in a member by ``need``: pages of one site whose frame is most of them share
    that frame's paragraphs, and their whole texts agree.
    """
    drop = shared_frame(features, members, known).union(known)
    if not drop:
        return True
    body = body_sketch(features, drop)
    return body.grams >= BODY_MIN_GRAMS and any(containment(body, m.sketch) >= need for m in members)


def far_page_score(
    features: Features, member: Member, keys: Sequence[int], known: Sequence[int], body: Sketch
) -> float:
    """The most a page may score against a member far from it in size when no frame is shared (:data:`FAR_PAGE_ERRORS`).

    ``keys``: the page's line keys as the member sees them (:func:`~nshash.pieces.member_view`); ``known``:
    the page's lines other clusters have; ``body``: the page's sketch without them.  1.0 (no bound) when the
    two are within :data:`~nshash.estimate.BODY_SIZE_RATIO` or :data:`FAR_OWN_GRAMS` of the page's other
    lines are the member's.
    """
    small, large = sorted((features.sketch.grams, member.sketch.grams))
    if large < BODY_SIZE_RATIO * small:
        return 1.0
    grams = features.line_grams
    own = set(range(len(grams))).difference(known)
    if lines_in(keys, grams, own, member.lines) >= FAR_OWN_GRAMS:
        return 1.0
    return containment(body, member.sketch) + FAR_PAGE_ERRORS * containment_error(body, member.sketch)

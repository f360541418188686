"""How much a page and a cluster's stored members agree: the scores :mod:`nshash.decide` verifies with.

A page is compared with each of a candidate cluster's first members, their shared header and footer
(:func:`~nshash.frame.shared_frame`) and the lines other clusters have left out as the case asks; how
far each estimate is trusted is :mod:`nshash.estimate`'s.  The C accelerator implements the same
functions (``nshash/_verify.h``) and the tests compare the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from nshash._accel import speedups
from nshash.bodies import KNOWN_FRAME, article_is_shared, far_page_score
from nshash.edges import at_the_end, has_line, lines_in, shared_chrome
from nshash.estimate import (
    body_score,
    corroborated,
    frame_free_score,
    overlapping,
    trusted_containment,
    unframed_score,
)
from nshash.fingerprint import Features
from nshash.frame import body_sketch, own_article, prose_body, shared_frame, surrounds
from nshash.members import Member, members_at
from nshash.pieces import member_view
from nshash.site import same_site
from nshash.text import cjk_share

#: A page whose normalised text is at least this share CJK characters is "mostly CJK": its estimates
#: and the containment sentence votes ask are eased (:data:`~nshash.decide.CJK_EASING`, where it is measured).
CJK_PAGE: Final = 0.5


def cjk_page(features: Features) -> bool:
    """Whether at least :data:`CJK_PAGE` of the page's normalised text is CJK characters."""
    return cjk_share(features.whole) >= CJK_PAGE


def verify_score(features: Features, members: list[Member], known: Sequence[int] = (), bound: bool = True) -> float:
    """How much the document and the closest of a cluster's members agree (:func:`member_scores`).

    A later member's score counts only if another overlaps the page too (:func:`~nshash.estimate.corroborated`).
    """
    scores = member_scores(features, members, known, bound)
    return corroborated(features.sketch, [member.sketch for member in members], scores)


def members_overlapping(features: Features, members: list[Member], known: Sequence[int] = ()) -> int:
    """How many of a cluster's members overlap the document (:func:`~nshash.estimate.overlapping`; for the trace)."""
    return overlapping(features.sketch, [member.sketch for member in members], member_scores(features, members, known))


def member_scores(
    features: Features, members: list[Member], known: Sequence[int] = (), bound: bool = True
) -> list[float]:
    """How much the document and each of a cluster's members agree, their shared header and footer left out.

    A line that is frame against one member is frame against all (a notice copied verbatim across
    sites sits in the middle of another site's page, where no edge run finds it).  ``known``: the
    document's lines that other clusters have (:func:`~nshash.frame.known_lines`); the page without
    them and its frame, and without them alone when they are all it has of its own
    (:func:`~nshash.frame.own_article`; against a member of its own site only when
    :func:`~nshash.bodies.article_is_shared`), is compared too (:func:`~nshash.estimate.body_score`), and on a
    mostly CJK page the page without them, its frame and its short lines (:func:`~nshash.frame.prose_body`): the
    highest of these counts.  Where no frame is shared, such lines a member has too may be one all the
    same: the whole-text score is then bounded by :func:`~nshash.estimate.unframed_score`.  Not ``bound``
    (:func:`~nshash.decide.split_article`), only against a member whose last lines are among them.  Nor
    does a page score more than its body against a member far from it in size (:func:`~nshash.bodies.far_page_score`).
    """
    grams = features.line_grams
    frame = shared_frame(features, members, known)
    around = surrounds(frame, grams)
    drop = frame.union(known)
    body = body_sketch(features, drop) if drop and members else None
    article = own_article(features, frame, known) if members else None
    shared_article = article is not None and article_is_shared(features, frame, known)
    cjk = bool(members) and cjk_page(features)
    prose = prose_body(features, drop) if cjk else None
    scores = []
    for member in members:
        keys = member_view(features, member.lines)
        chrome = lines_in(keys, grams, frame, member.lines)
        site = same_site(features.site_keys, member.lines)
        score = trusted_containment(features.sketch, member.sketch, chrome, around, site)
        if body is not None:
            if lines_in(keys, grams, frame.intersection(known), member.lines) >= KNOWN_FRAME * chrome:
                score = frame_free_score(body, features.sketch, member.sketch, chrome, score, site)
            if not frame:
                had = {index for index in drop if has_line(member.lines, keys[index])}
                if bound or at_the_end(member.tail, keys, grams, had):  # a footer of its own: bounded all the same
                    known_grams = sum(grams[index] for index in had)
                    score = min(score, unframed_score(body, features.sketch, member.sketch, known_grams, site))
        bodied = 0.0 if body is None else body_score(body, member.sketch, cjk)
        if article is not None and (shared_article or not site):  # bodies.OWN_SITE_PARAGRAPHS
            bodied = max(bodied, body_score(article, member.sketch, cjk))
        if prose is not None:
            bodied = max(bodied, body_score(prose, member.sketch, cjk))
        score = max(score, bodied)
        if body is not None and not frame:  # far apart in size: no more than the page's body agrees
            score = min(score, max(bodied, far_page_score(features, member, keys, known, body)))
        scores.append(score)
    return scores


def members_score(features: Features, these: list[Member], those: list[Member]) -> float:
    """How much two clusters agree: the highest containment between their members.

    The header and footer left out are the document's edge lines that both
    members have (seen through the document that verified against both).
    """
    best = 0.0
    for a in these:
        for b in those:
            chrome = shared_chrome(features.line_keys, features.line_grams, a.lines & b.lines, features.flat)
            best = max(best, trusted_containment(a.sketch, b.sketch, chrome))
    return best


def verify_clusters(
    features: Features,
    entries: list[int | None],
    clusters: int,
    members: int,
    known: Sequence[int] = (),
) -> list[tuple[float, int]]:
    """:func:`verify_score` against each of ``clusters`` clusters stored in ``entries``, and their members found.

    ``entries`` as :func:`~nshash.members.load_entries` reads them; ``known``: the document's lines other clusters
    have (:func:`~nshash.frame.known_lines`).  Computed by the C
    accelerator when it is there (:mod:`nshash._accel`), else here.
    """
    if speedups is not None:
        return list(
            speedups.verify(
                features.line_keys,
                features.line_grams,
                *features.sketch,
                entries,
                clusters,
                members,
                features.whole,
                features.line_ends,
                known,
                features.site_keys,
                features.flat,
                features.pieces,
            )
        )
    found = [members_at(entries, index, members) for index in range(clusters)]
    return [(verify_score(features, these, known), len(these)) for these in found]

"""A page's frame: the header and footer it shares with a cluster's members, and the lines other clusters have.

Verification (:func:`nshash.verify.verify_score`) leaves the frame out of the
comparison; these helpers find it.  The C (``nshash/_frame.h``) implements
them too, tested against these.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final

from nshash.boilerplate import SHARED_LINE, UNSEEN
from nshash.edges import chrome_lines, has_line, shares_header
from nshash.estimate import unframed
from nshash.fingerprint import Features
from nshash.members import Member
from nshash.pieces import glued_tail, member_view
from nshash.site import same_site
from nshash.sketch import Sketch, containment, containment_error, sketch

#: A footer shared with a member (no header shared) is the article, not a
#: frame, when its lines are this share or more of the smaller of the two
#: texts (in grams) and other clusters have few of them (:data:`ARTICLE_KNOWN`;
#: :func:`shared_frame`).
#: Seen on unseen synthetic corpora: a copy whose own title and byline differ
#: ends in the article's paragraphs, as its original does (its related titles
#: were removed as a link list), and with 4 of 5 sentences voting for it, the
#: article was left out as a footer (containment 0.12).  Measured against the
#: member's size (40 synthetic files of eight seeds): recall up on 10 files
#: (to +0.2 points), down on one (-0.07), precision unchanged but +0.0007 on
#: one; real pages: recall (all forms) 0.915 -> 0.919 at the same precision.
#: Against the smaller size (a source whose copy carries a long frame of its
#: own, 45 files of nine seeds): recall up on 13 more (to +0.5 points), down
#: on none, precision nowhere lower; real pages and the sample unchanged.
#: With 0.5, forum pages of one real site, their footers most of a short page
#: and seen on no other page yet, merged (full-page precision 0.833 -> 0.735
#: against the member's size, 0.667 against the smaller); without the "no
#: other cluster" condition, two synthetic files lost 0.0005 and 0.0025 of
#: precision.
#: Not when the page is of the member's site (:func:`~nshash.site.same_site`:
#: the menus both dropped as chrome are one): there the shared footer is a
#: comment thread or a list of links most of a short page holds, its frame.
#: Seen in real chrome around real articles (``benchmarks/run_realchrome.py``):
#: half of the joins of a page to another article of its site, footers up to
#: 19,000 characters long.  Measured there (3 seeds): P / R / F1 0.924 / 0.868
#: / 0.895 -> 0.933 / 0.871 / 0.901, false pairs within one site 60.0 -> 48.3
#: a seed; on the 95 synthetic files recall down on 3 (-0.05 points at most:
#: copies that kept their source's navigation lines, dropped at the edges of
#: both), nothing else changed; the real pages, the sample and the
#: independent corpus unchanged.
ARTICLE_SHARE: Final = 0.75
#: ... when at most this share of its grams are lines other clusters have.  A
#: site's footer is lines its other pages have; an article may hold a line or
#: two that a manual repeats on other pages (seen in zh copies of function
#: references: one such line made a whole article a footer, containment 0.0
#: with all 5 sentences voting for it).  Was 0 (no such line).  Measured on 50
#: synthetic files of ten seeds: recall up on 20 (to +0.3 points), down on one
#: (-0.05); precision up on 4, lower on none; a new seed (4711) recall up on
#: 2 of 5 files, precision unchanged; the real pages and the sample unchanged.
#: A quarter gave recall up on 5 files fewer, the same precision.
ARTICLE_KNOWN: Final = 0.5
#: A header and footer shared with a member are an edited copy's unchanged
#: paragraphs, not a frame, when they are this share or more of the smaller
#: text (in grams), other clusters have few of them (:data:`ARTICLE_KNOWN`),
#: and the page's own lines between them are the member's text: their
#: containment in it, one standard error below the estimate, at least
#: ``MIDDLE_CONTAINMENT`` (:func:`edited_middle`).  Seen on an unseen synthetic
#: corpus (seed 1357): copies that kept an article's first and last
#: paragraphs verbatim and edited a character or two in the lines between
#: were taken for a sibling page of the source's site (containment 0.0 with 5
#: of 5 sentences voting for the source).  A templated sibling's own lines are
#: another article's, not the member's.  Measured on 55 synthetic files of
#: eleven seeds: recall up on 29 (to +0.3 points), down on none; precision up
#: on 2, down on one (-0.0014: a story that gained its copy drew a templated
#: sibling on more votes); real pages: recall 0.925 -> 0.926 (all forms) and
#: 0.951 -> 0.953 (text forms), precision unchanged.  With 0.75 of the smaller
#: text or a containment of 0.7, recall rose on 15 and 14 files; with 0.3,
#: above 0.5's on 24, but seed 8080's en held-out lost 0.0049 of precision
#: (0.982 -> 0.977).  Without the
#: known-line condition, a site's page holding another article's paragraphs
#: joined it (three files lost 0.0004-0.0009 of precision); without a shared
#: header, a news page whose related-headline footer held teasers a member had
#: too joined it (real full pages, precision 0.833 -> 0.769).
MIDDLE_SHARE: Final = 0.5
MIDDLE_CONTAINMENT: Final = 0.5


def shared_frame(features: Features, members: list[Member], known: Sequence[int] = ()) -> set[int]:
    """The document's lines (indices) in a header or footer it shares with one of ``members``.

    The union of :func:`~nshash.edges.chrome_lines`: a line that is frame against one member is frame against all.
    ``known``: :func:`known_lines`; a footer that is a member's article is left out (:data:`ARTICLE_SHARE`).
    """
    grams = features.line_grams
    seen = set(known)
    frame: set[int] = set()
    for member in members:
        keys = member_view(features, member.lines)
        lines = chrome_lines(
            keys, grams, member.lines, member.tail, seen, features.flat, glued_tail(features, member.lines)
        )
        if not lines:
            continue
        run = sum(grams[i] for i in lines)
        smaller = min(member.sketch.grams, features.sketch.grams)
        if sum(grams[i] for i in lines if i in seen) <= ARTICLE_KNOWN * run:
            if shares_header(keys, grams, member.lines):
                if run >= MIDDLE_SHARE * smaller and edited_middle(features, member, lines, seen):
                    continue  # an edited copy's unchanged paragraphs
            elif run >= ARTICLE_SHARE * smaller and not same_site(features.site_keys, member.lines):
                continue  # the member's article, not its frame
        frame |= lines
    return frame


def edited_middle(features: Features, member: Member, lines: set[int], known: set[int]) -> bool:
    """Whether the page's own lines between the first and last of ``lines`` are ``member``'s text.

    Own lines: neither in ``lines`` (the header and footer shared with the
    member) nor ``known`` (lines other clusters have), with grams.  See
    :data:`MIDDLE_SHARE`.
    """
    grams = features.line_grams
    own = {i for i in range(min(lines), max(lines) + 1) if grams[i] > 0 and i not in lines and i not in known}
    if not own:
        return False
    between = body_sketch(features, set(range(len(grams))) - own)
    return containment(between, member.sketch) - containment_error(between, member.sketch) >= MIDDLE_CONTAINMENT


#: A candidate that failed on containment and votes is joined when the page
#: is an edited copy of one of its members (:func:`edited_copy`): the lines it
#: has verbatim from the member span this share or more of its grams outside
#: the lines other clusters have, and its own lines between them are the
#: member's text (:func:`edited_middle`).  Seen in the zh misses of the
#: synthetic files: copies whose edits, an inserted paragraph or another
#: site's frame left a whole-text containment of 0.3-0.65 and one or two
#: sentence votes, where templated siblings also are.  A sibling's lines
#: between the shared ones are another article's (containment near 0), an
#: edited copy's are its source's.  The span keeps a young site's footer
#: (lines shared around a notice worded a little differently) from counting.
#: Measured on 95 synthetic files of nineteen seeds: recall up on 92 (mean
#: +0.32 points, to +1.1), F1 down on none; precision down on 10 (at most
#: -0.0029), up on 9; a new seed (6174): F1 up on all 5 files; real pages:
#: text forms recall 0.9527 -> 0.9533, the rest unchanged.  Without the span
#: (any two verbatim lines, containment 0.3 or more), precision fell on 51
#: files (a zh-t2s file by 0.018: a footer as above); with 0.4 (and that
#: floor), on 20, and F1 fell on 4 files (one by 0.004).
EDITED_SPAN: Final = 0.5


def edited_copy(features: Features, members: list[Member], known: Sequence[int]) -> bool:
    """Whether the page is an edited copy of one of ``members`` (see :data:`EDITED_SPAN`).

    ``known``: the page's lines other clusters have (:func:`known_lines`), neither verbatim lines nor its own.
    """
    keys, grams = features.line_keys, features.line_grams
    seen = set(known)
    total = sum(count for index, count in enumerate(grams) if index not in seen)
    for member in members:
        lines = {i for i, key in enumerate(keys) if grams[i] > 0 and i not in seen and has_line(member.lines, key)}
        if len(lines) < 2:
            continue
        span = sum(grams[i] for i in range(min(lines), max(lines) + 1) if i not in seen)
        if span >= EDITED_SPAN * total and edited_middle(features, member, lines, seen):
            return True
    return False


def body_sketch(features: Features, drop: set[int]) -> Sketch:
    """The sketch of the document's whole text without the lines ``drop`` (indices)."""
    whole, ends = features.whole, features.line_ends
    parts = []
    start = 0
    for index, end in enumerate(ends):
        if index not in drop:
            parts.append(whole[start:end])
        start = end
    parts.append(whole[start:])
    return sketch("".join(parts))


#: On a mostly CJK page, a line of fewer 5-grams than this (under 19 characters
#: once normalised: a menu, a title, a tag line, "相关文章" and the related
#: titles under it) is left out of one more comparison of the page with a
#: member (:func:`prose_body`).  A short Chinese article's page is mostly such
#: lines of its own site, so its copy on another site, with the other site's,
#: agreed too little as whole texts (the independent corpus: zh copies of
#: articles under 150 characters missed 21% of the time).  Measured with every
#: value from 8 to 25 on the independent corpus (zh seeds 1-4) and the held-out
#: books (zh seeds 1-2): F1 up on all eight files from 10 to 15, 15 the largest
#: sum; the independent zh recall +0.013 to +0.018, precision -0.014 to +0.003
#: (more pairs of the sibling pages it already joined); see the CHANGELOG for
#: the other corpora.  Not asked of other scripts: on the real pages an English
#: site's boilerplate blurb, its short lines left out, was wholly contained in
#: every page of the site.
PROSE_SHORT: Final = 15


def prose_body(features: Features, drop: set[int]) -> Sketch | None:
    """The sketch of the page without the lines ``drop`` and its lines under :data:`PROSE_SHORT` grams.

    ``None`` when it has no such short line besides ``drop``.
    """
    short = {index for index, grams in enumerate(features.line_grams) if grams < PROSE_SHORT and index not in drop}
    if not short:
        return None
    return body_sketch(features, short.union(drop))


#: When this share of a page's own lines (outside the frame it shares with a
#: member, counted in grams) are lines other clusters have, they are its own
#: site's frame, and what it "shares as frame" with the member is the article
#: (:func:`own_article`).  Seen in zh copies on another site whose paragraphs,
#: kept line for line, formed a run from the top that the member has, closed
#: by a disclaimer both sites carry verbatim: the whole article was taken for a
#: header and footer.  Measured on the 15 synthetic files of three seeds:
#: recall up on 7 files (+0.1 to +0.26 points), down on one (-0.04), precision
#: unchanged on all; seed 9001 unchanged but for +0.05 on its en tune, the real
#: pages unchanged.
OWN_KNOWN: Final = 0.9


def own_article(features: Features, frame: set[int], known: Sequence[int]) -> Sketch | None:
    """The page's sketch without the lines other clusters have, when its own lines are almost all such lines.

    ``frame``: the lines it shares with a member as header and footer
    (:func:`shared_frame`); ``known``: :func:`known_lines`.  ``None`` otherwise.
    """
    if not frame or not known:  # most verifications: nothing to take back, nothing to count
        return None
    grams = features.line_grams
    seen = set(known)
    own = sum(grams[i] for i in range(len(grams)) if grams[i] > 0 and i not in frame)
    theirs = sum(grams[i] for i in seen if grams[i] > 0 and i not in frame)
    if not own or theirs < OWN_KNOWN * own:
        return None
    return body_sketch(features, seen)


def known_lines(lines: dict[int, int], candidates: Sequence[int]) -> list[int]:
    """The lines (indices) seen in a cluster that is not one of the ``candidates`` (current ids), or in two.

    Those are frame: a line that a candidate has may be its content (an
    article's other form or copy, which its own cluster holds), and leaving
    it out would leave the page's frame to be compared (measured on the real
    pages: two articles of one site then merged).  Lines from
    :func:`~nshash.boilerplate.line_roots`.
    """
    return sorted(index for index, seen in lines.items() if seen != UNSEEN and seen not in candidates)


#: Keys tried, from 1, for one that no member's line filter has (:func:`as_seen_by`); none: no line keyed absent.
ABSENT_KEYS: Final = 4096


def as_seen_by(features: Features, lines: dict[int, int], root: int, members: list[Member]) -> Features:
    """``features`` with the lines cluster ``root``'s ``members`` cannot have keyed so that none of them has them.

    A member keeps its page's lines in a Bloom filter (:func:`~nshash.edges.line_filter`, no list of
    them): on a page of 300 lines and more (a news site's menus) it is more than half full, a fifth or
    more of the lines a page does not share test as shared, and the frame found between two pages of
    one site ran on through their articles.  Every line of a member was noted in its cluster, or as seen
    in two (:func:`~nshash.boilerplate.record_lines`): a line of ``lines``
    (:func:`~nshash.boilerplate.line_roots`) noted nowhere or in another cluster alone is none of theirs.
    Such lines get the smallest key from 1 that no member's filter has (up to :data:`ABSENT_KEYS`).
    A member page of more than :data:`~nshash.boilerplate.LINE_LIMIT` lines noted only its first and last
    ones: a line of its middle counts as none of its own here (its sketch still holds it).
    Measured (2026-12-07, against the filter alone): real chrome around real articles F1 0.926 -> 0.929,
    the real pages' text forms recall +0.0004 to +0.0006, 47 of 49 corpus files unchanged (two man-page
    files +-0.0004); with :func:`~nshash.bodies.far_body_agrees`'s frame around more paragraphs of the
    page's own, the real full pages' precision 0.846 -> 0.917 (two articles of one paywalled site).
    A 2,048-bit filter did as well at 128 bytes more a member.
    """
    absent = [index for index, seen in lines.items() if seen != SHARED_LINE and seen != root]
    if not absent or not members:
        return features
    key = next((k for k in range(1, ABSENT_KEYS + 1) if not any(has_line(m.lines, k) for m in members)), 0)
    if not key:
        return features
    keys = array(features.line_keys.typecode, features.line_keys)
    for index in absent:
        keys[index] = key
    return features._replace(line_keys=keys)


def unframed_lines(features: Features, members: list[Member], known: Sequence[int]) -> list[int]:
    """The page's ``known`` lines that bound its score against ``members``, with which it shares no frame.

    Those of the first of ``members`` that has enough of them (:func:`~nshash.estimate.unframed`;
    :func:`~nshash.estimate.unframed_score` bounds the score with them).  For a page that shares a
    frame (:func:`shared_frame`) nothing bounds it: the caller, which has that frame, asks only without one.
    """
    keys, grams = features.line_keys, features.line_grams
    for member in members:
        lines = [i for i in known if has_line(member.lines, keys[i])]
        if unframed(features.sketch, member.sketch, sum(grams[i] for i in lines)):
            return sorted(lines)
    return []


def surrounds(frame: set[int], grams: Sequence[int]) -> bool:
    """Whether the frame lines lie around a line of the document's own (one with grams): a header and a footer.

    An article's text inside its full page is one shared block instead.
    """
    return bool(frame) and any(grams[i] > 0 and i not in frame for i in range(min(frame), max(frame) + 1))


#: A page that passed on its sentence votes is a templated sibling of a member
#: (:func:`template_sibling`) when, between the first and the last line it has
#: verbatim from the member, lines the member lacks form ``SIBLING_RUNS`` or
#: more runs of ``SIBLING_RUN_GRAMS`` grams or more, of ``SIBLING_GRAMS`` in
#: all, and those lines are not the member's text (their containment in it,
#: one standard error above the estimate, below ``SIBLING_CONTAINMENT``).  Seen
#: in the menu pages of one manual on an unseen synthetic corpus (seed 6061):
#: each shares its two longest paragraphs and its menu names with the others,
#: line for line, and describes every menu in words of its own, so its
#: longest sentences all vote for a sibling that holds half of it (0.48-0.57),
#: and 14 pages of two articles formed one cluster.  A reprint's edited lines
#: are the member's text, an inserted paragraph is one run, and its own site's
#: lines lie outside the shared ones.  Measured (30 synthetic files of six
#: seeds): precision up on 4 (that file 0.979 -> 0.984, seed 9001's zh-t2s
#: 0.984 -> 0.990, the default zh tune +0.0009), lower on none; recall down on
#: 9 (-0.03 to -0.27 points, F1 -0.0002 to -0.0005); real pages, the sample and
#: its popular-story check unchanged.  With 3 runs only the seed 6061 file
#: changed; a containment of 0.25 instead cost recall and caught nothing more.
SIBLING_RUNS: Final = 2
SIBLING_RUN_GRAMS: Final = 10
SIBLING_GRAMS: Final = 60
SIBLING_CONTAINMENT: Final = 0.15


def template_sibling(features: Features, member: Member, skip: set[int]) -> bool:
    """Whether the page agrees with ``member`` in whole lines only, with lines of its own spliced between them.

    ``skip``: lines left out (the frame shared with the members and the lines
    other clusters have).  See :data:`SIBLING_RUNS`.
    """
    keys, grams = features.line_keys, features.line_grams
    has = [index not in skip and has_line(member.lines, key) for index, key in enumerate(keys)]
    if True not in has:
        return False
    first, last = has.index(True), len(has) - 1 - has[::-1].index(True)
    between: set[int] = set()
    runs = run = 0
    for index in range(first, last + 1):
        if index in skip or has[index]:
            runs += run >= SIBLING_RUN_GRAMS
            run = 0
        else:
            between.add(index)
            run += grams[index]
    if runs < SIBLING_RUNS or sum(grams[i] for i in between) < SIBLING_GRAMS:
        return False
    spliced = body_sketch(features, set(range(len(keys))) - between)
    return containment(spliced, member.sketch) + containment_error(spliced, member.sketch) < SIBLING_CONTAINMENT

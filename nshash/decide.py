"""The decision rule: which cluster a document joins, and which clusters merge.

One rule for every way of feeding documents: online ``get_similar``, batch
``similar_ids``, Dask and the CLI all end here (the C accelerator implements
the same function and is tested against it).

1. **The same text again** (its whole-text key is stored) gets its cluster's
   current id: ids are idempotent.
2. **Candidates.**  Sentence keys point to earlier clusters; sentences found
   to be boilerplate (:mod:`nshash.boilerplate`) do not count.  The clusters
   most of the ``n + extra`` looked-up sentences point to (through the head,
   or the tail; a tail leading elsewhere proposes its cluster too:
   :func:`~nshash.votes.sentence_votes`) are the candidates
   (at most ``MAX_CANDIDATES``); the share of the top ``n`` that point to one
   is its vote, of those that do not lead to a candidate the page shares
   nothing else with (:func:`~nshash.votes.vote_shares`).
3. **Verification.**  A candidate is joined only when the whole texts agree:
   the estimated containment of the smaller text in the larger one, between
   the document's sketch and the sketch of one of the cluster's first
   ``members`` documents (:mod:`nshash.verify`), is at least ``verify`` (less when most of the
   document's sentences point to the candidate: :func:`agrees`; almost total
   when one text is many times the other: :func:`~nshash.estimate.trusted_containment`).
   Reprints with other headers, footers, titles, truncation and edits pass;
   templated sibling pages and articles sharing a paragraph fail.  A page
   whose lines shared verbatim with a member span most of it, its own lines
   between them the member's text, is an edited copy and passes too
   (:func:`~nshash.frame.edited_copy`).  When none passes, the cluster most
   of the page's paragraphs were seen in is verified too (:func:`join_by_lines`):
   a story among longer prose of other stories is keyed by that prose.
4. **Join and merge.**  The document joins the verified candidate most of
   its sentences lead to (the higher agreement breaks ties), or one verified on
   its containment alone clearly above it (:func:`clearly_closer`); another verified
   candidate merges into it only when the two clusters' own sketches also agree,
   by ``verify + MERGE_MARGIN``: a page quoting two articles does not chain them.
5. **Evidence.**  Keys that proposed a candidate that failed verification are
   evidence of boilerplate; keys that led to a verified one are content.  The
   page's lines are noted with the cluster they were seen in: a line two clusters
   have is frame, left out in a second comparison (:func:`~nshash.verify.verify_score`),
   unless most of the page's sentences lead to the candidate that has it: then it
   may be the article's, split over two clusters by an earlier miss (:func:`split_article`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from nshash.bodies import body_agrees, line_body_agrees
from nshash.boilerplate import (
    BOILERPLATE,
    FP,
    SHARED_LINE,
    line_roots,
    record_evidence,
    record_lines,
    unstored_keys,
    without_boilerplate,
)
from nshash.clusters import find_roots, merge
from nshash.errors import ArgumentError, StoreCorruptError
from nshash.fingerprint import Features
from nshash.frame import (
    as_seen_by,
    edited_copy,
    known_lines,
    shared_frame,
    unframed_lines,
)
from nshash.match import Match
from nshash.members import ENTRIES, add_member, load_entries, members_at
from nshash.native import assign_native
from nshash.options import Options
from nshash.site import same_site
from nshash.stores.view import StoreView
from nshash.verify import (
    cjk_page,
    members_overlapping,
    members_score,
    verify_clusters,
    verify_score,
)
from nshash.votes import count_votes, sentence_votes, vote_shares

#: Candidate clusters verified per document: the ones most sentences point to, a tie to the newest (copies
#: arrive near their original; an old cluster that ties is more often one whose sentences a page family shares).
#: Newest against oldest: the 95 synthetic files F1 up on 29, down on 1 (-0.0006); independent zh up on 4 of 4.
MAX_CANDIDATES: Final = 4
#: The share of a document's keyed sentences that must point to a candidate for ``verify_voted`` to apply.
VOTED_SHARE: Final = 0.4
#: When this share of them points to it (3 of 5), ``verify_voted - MAJORITY_EASING`` suffices.
MAJORITY_SHARE: Final = 0.6
MAJORITY_EASING: Final = 0.1
#: On a page whose characters are at least ``CJK_PAGE`` CJK, the containment
#: sentence votes ask (``verify_voted``, and less with a majority) is
#: ``CJK_EASING`` lower.  A CJK character carries about a word: a one-character
#: edit (的/地/得, a two-character synonym) takes five 5-grams out of a text that
#: says in a third of the characters what a Latin text says, so an edited
#: Chinese copy scores lower than an English copy with as many edits.
#: Measured on the 95 synthetic files of nineteen seeds, as kept (CJK pages,
#: not the body check of :func:`body_agrees`): zh recall +0.70 points, precision
#: -0.14 (mean of 57 files; F1 down on two, by 0.0007 at most), en unchanged.
#: ``verify_voted`` 0.05 lower on every page: en recall +0.18, precision -0.44
#: (F1 down on 25 of 38 files, 7 below 0.98).  0.1 on the zh files: recall
#: +1.51, precision -0.36, three zh tune or held-out files below 0.98.  With the
#: body check eased too, two stories of one Chinese site merged through their
#: notices in the popular-story check (precision 0.998 -> 0.957).
#: Between sites the whole-text need (``verify - FRAMELESS_EASING``) is eased by
#: as much on such a page (:func:`whole_text_need`): copies on other sites with
#: one sentence vote and heavy edits were the commonest zh miss.  Measured on
#: 110 synthetic files of twenty-two seeds: zh held-out F1 up on all 22 (mean
#: +0.0024; recall +0.0046, precision -0.0002), zh tune mean +0.0014 (recall
#: +0.0031, precision -0.0006, -0.0028 at most), zh-t2s mean +0.0015 (the
#: default corpus's -0.0049: two templated sibling pages of a manual, sharing
#: its standard opening paragraph, joined on it at 0.63); zh files at F1 0.95
#: or more 38 -> 41 of 44; the real pages, the sample and its popular-story
#: check unchanged.
CJK_EASING: Final = 0.05
#: Between pages of different sites (they share no header and footer with
#: the candidate's members), ``verify - FRAMELESS_EASING`` suffices: a reprint
#: elsewhere carries its own site's frame, which the members cannot leave out.
#: Measured: recall +0.26 points on the 15 synthetic files (mean; precision
#: +0.0001, none lower by more than 0.002), real pages' article text -> full
#: page 0.91 -> 0.92, the popular-story check up in recall on 4 of 8 seeds;
#: 0.1 cost one zh-t2s file 0.012 of precision.
FRAMELESS_EASING: Final = 0.05
#: A page none of whose sentence-vote candidates passed is compared with the
#: cluster most of its paragraphs were seen in (:func:`line_candidate`): lines of
#: ``LINE_PARAGRAPH`` grams or more (menus, titles and buttons are shorter), holding
#: ``LINE_CANDIDATE`` grams or more in all.  Its sentence keys may all be another
#: page's: a copy inside a page of long other prose (a forum's excerpts of other
#: stories, longer than the article's sentences) stores and looks up those.  It joins
#: at ``verify``, its body (without the frame shared with the members and the lines
#: other clusters have) at ``verify`` too (:func:`line_body_agrees`).  Measured
#: (2026-12-05): real pages, all forms F1 0.974 -> 0.980 (recall 0.955 -> 0.966),
#: text forms 0.973 -> 0.980, full pages unchanged; real chrome F1 0.903 -> 0.904
#: (recall +1.3 points, precision -1.3: pages whose chrome holds another annotated
#: article's text); the 95 synthetic files F1 up on 29, down on none; the independent
#: corpus's en recall up on 3 of 4 seeds.  200 to 400 grams and paragraphs of 40 to
#: 100 gave the same within 0.001; without the body check real chrome fell to 0.897.
LINE_PARAGRAPH: Final = 60
LINE_CANDIDATE: Final = 200
#: A merge joins two whole clusters, so their members must agree by this much
#: more than ``verify``.  Their shared frame is found through the document's
#: lines, and a copy whose header or footer lines were edited finds too little
#: of it: two articles of one site then looked alike at 0.72-0.75 and one
#: merge chained 5 stories of the popular-story check (precision 0.805 ->
#: 0.998 with 0.1; recall -0.005 at most on 10 corpus files, real pages unchanged).
MERGE_MARGIN: Final = 0.1


#: A page joins the verified candidate most of its sentences lead to, unless that one passed on its
#: votes only and another verified on its containment alone (:func:`whole_text_need`) by
#: ``CLEAR_MARGIN`` or more above it: then the best of those (:func:`clearly_closer`).  Seen on pages
#: whose line breaks were lost: a copy verified at 0.86 against its story went to the cluster of its
#: site's notices, whose sentences, the page's longest, voted for it (0.61), and later pages of the
#: site followed.  Measured (0.1 / 0.2 / 0.3): the 95 synthetic files F1 up on 27 / 24 / 24, down on
#: 26 / 19 / 14 (mean +0.00015 / +0.00015 / +0.00017; at most -0.0012 / -0.0008 / -0.0008 on a
#: file); seeds 2025, 6174 and 7919 up on 5 / 3 / 2 of 15, down on 1 / 0 / 0; the independent
#: corpus's F1 mean +0.0006 / +0.0003 / +0.0002; with every page's lines joined (20 files of four
#: seeds) +0.0001 / +0.0015 / +0.0004; real chrome recall 0.890 -> 0.892; the real pages and the
#: sample unchanged.  0.2: two standard errors of a short page's estimate; the most on joined pages.
CLEAR_MARGIN: Final = 0.2


#: The name nshash 2.0 gave :class:`~nshash.Match`.
Decision = Match


def assign(view: StoreView, features: Features, options: Options) -> Match:
    """Decide ``features``' cluster and record it in ``view`` (a store or a transaction view).

    With the C accelerator the decision is one C call (:func:`nshash.native.assign_native`),
    merges included: on the memory store's own C tables, or on a cache read
    through a LevelDB or Redis view.  It hands the rare turns back to
    :func:`assign_python` (an empty page, ids past the entry keys).
    """
    decided = assign_native(view, features, options)
    return decided if decided is not None else assign_python(view, features, options)


def assign_python(
    view: StoreView, features: Features, options: Options, trace: list[dict[str, Any]] | None = None
) -> Match:
    """:func:`assign` in Python: the specification the C follows, and what runs without the C accelerator.

    ``trace``: a list to append each candidate's scores to (:meth:`nshash.NSHash.explain_decision`).

    Raises:
        StoreCorruptError: the store gave back an id that is not a valid key (damaged data, or a store that
            nshash did not write).
    """
    try:
        return _assign_python(view, features, options, trace)
    except ArgumentError as exc:
        # The page's own keys are hashes, in range by construction: a key out of range here is an id
        # the store returned (the C hands such ids back to this path before it writes anything).
        raise StoreCorruptError(
            f"the store holds a cluster id that is not a valid one ({exc}): it is damaged or was not "
            "written by nshash; restore it from a backup or rebuild it"
        ) from exc


def _assign_python(view: StoreView, features: Features, options: Options, trace: list[dict[str, Any]] | None) -> Match:
    if features.doc_key is None:  # empty: never matches anything, stores nothing
        return Match(int(view.allocate_id()), True, 0.0, ())
    found = view.get_many(FP, [features.doc_key, *features.keys])
    keys, values, positions = features.keys, found[1:], features.positions
    if options.boilerplate and BOILERPLATE in values:
        keys, values, positions = without_boilerplate(keys, values, positions)
    # Every sentence looked up proposes candidates (an article's longest
    # sentences may rank below a page's comments and menus); the top n vote,
    # and the n longest that lead nowhere wrong are written (unstored_keys).
    looked_up, looked_keys = values, keys
    if len(positions) > options.n:
        keys, values, positions = keys[: 2 * options.n], values[: 2 * options.n], positions[: options.n]
    if found[0]:
        root = find_roots(view, [found[0]])[found[0]]
        if trace is not None:
            trace.append({"cluster": root, "passed": True, "rule": "the same normalised text was seen before"})
        # The same normalised text may be split into other sentences (a line
        # break moved): its new keys lead here too.
        new = [(key, root) for key, value in zip(keys, values) if value is None]
        if new:
            view.put_many(FP, new)
        return Match(root, False, 1.0, (root,))
    # A sentence matches through its head or, when an edit spoiled that, its tail.
    matches = [head or tail for head, tail in zip(values[0::2], values[1::2])]
    votes = sentence_votes(looked_up)
    top_votes = count_votes(matches)
    need = min(options.min_match, len(matches))
    candidates = sorted((c for c in votes if votes[c] >= need), key=lambda c: (-votes[c], -c))[:MAX_CANDIDATES]
    lines, roots = line_roots(view, features.line_keys, features.line_grams, candidates)
    entries = load_entries(view, candidates, options.members)
    known = known_lines(lines, [roots[c] for c in candidates])
    # Each candidate is compared with the page's lines its members can have (frame.as_seen_by).
    per = options.members * ENTRIES
    seen_by = {
        c: as_seen_by(features, lines, roots[c], members_at(entries, index, options.members))
        for index, c in enumerate(candidates)
    }
    verified = {
        c: verify_clusters(seen_by[c], entries[index * per : (index + 1) * per], 1, options.members, known)[0]
        for index, c in enumerate(candidates)
    }
    share = vote_shares(candidates, top_votes, {c: verified[c][0] for c in candidates}, len(matches))
    cjk = bool(candidates) and cjk_page(features)
    split = [
        c for c in candidates if known and split_article(top_votes.get(c, 0), verified[c][0], share[c], options, cjk)
    ]
    for c in split:  # the lines other clusters have are its own article's: no frame bounds its score
        unbounded = verify_score(seen_by[c], members_at(entries, candidates.index(c), options.members), known, False)
        verified[c] = (max(verified[c][0], unbounded), verified[c][1])
    # Just below verify, whether the page shares a frame with the candidate's members matters (rare).
    frameless = {
        c
        for index, c in enumerate(candidates)
        if whole_text_need(options, frameless=True, cjk=cjk) <= verified[c][0] < options.verify
        and not shared_frame(seen_by[c], members_at(entries, index, options.members), known)
    }
    passed = [c for c in candidates if agrees(verified[c][0], share[c], options, c in frameless, cjk)]
    # Below verify on sentence votes: pages of one site must also agree without their frame, and
    # a page with lines other clusters have must not be clearly elsewhere without them.
    eased = [c for c in passed if verified[c][0] < options.verify and c not in frameless]
    if eased:  # rare: the frame's own comparison, in Python
        for c in eased:
            kept = members_at(entries, candidates.index(c), options.members)
            # Not eased for CJK: the body check is against a site's notices voting (edited ones hide from
            # its frame), and eased it let two stories of one site merge in the popular-story check.
            if not body_agrees(seen_by[c], kept, known, eased_need(share[c], options)):
                passed.remove(c)
    # Edits may leave too little containment and too few votes: an edited copy passes on its lines.
    edited = {
        c
        for index, c in enumerate(candidates)
        if c not in passed and edited_copy(seen_by[c], members_at(entries, index, options.members), known)
    }
    if edited:
        passed = [c for c in candidates if c in edited or c in passed]
    if trace is not None:
        for index, c in enumerate(candidates):
            kept = members_at(entries, index, options.members)
            frame = sorted(shared_frame(seen_by[c], kept, known))
            trace.append({"cluster": roots[c], "sentences": votes[c], "share": share[c], "members": verified[c][1]})
            trace[-1] |= {"frame_lines": frame, "containment": verified[c][0], "passed": c in passed}
            trace[-1]["members_overlapping"] = members_overlapping(seen_by[c], kept, known)
            trace[-1] |= {"unframed_lines": [] if frame or c in split else unframed_lines(seen_by[c], kept, known)}
            trace[-1]["split_article"] = c in split
            trace[-1] |= {
                "edited_copy": c in edited,
                "same_site": any(same_site(features.site_keys, m.lines) for m in kept),
            }
    stored = {c: found for c, (_, found) in verified.items()}
    by_lines = None if passed else join_by_lines(view, features, lines, [roots[c] for c in candidates], options, trace)
    if passed:
        # The cluster most sentences lead to: a copy that also quotes another
        # page, or verified with a stray copy that had missed its story, joins
        # the story (by agreement alone, one copy split a 17-page story of the
        # bundled sample: recall 0.921 -> 0.888).
        best = max(passed, key=lambda c: (votes[c], verified[c][0], -c))
        outright = {c for c in passed if verified[c][0] >= whole_text_need(options, c in frameless, cjk)}
        best = clearly_closer(best, passed, {c: verified[c][0] for c in passed}, outright)
        joined = {roots[best]}
        these = None
        for other in passed:
            if roots[other] not in joined:
                if these is None:
                    these = members_at(entries, candidates.index(best), options.members)
                those = members_at(entries, candidates.index(other), options.members)
                if members_score(features, these, those) >= options.verify + MERGE_MARGIN:
                    joined.add(roots[other])
        target = merge(view, joined)
        decision = Match(target, False, verified[best][0], tuple(sorted(joined)))
    elif by_lines is not None:
        target, score, stored[target] = by_lines
        decision = Match(target, False, score, (target,))
    else:
        target = int(view.allocate_id())
        decision = Match(target, True, 0.0, ())
        stored[target] = 0  # a new cluster has no members yet: no need to read them
    failed = {c for c in votes if c not in passed}
    writes = [(key, target) for key in unstored_keys(looked_keys, looked_up, failed, options.n)]
    writes.append((features.doc_key, target))
    view.put_many(FP, writes)
    add_member(view, target, features, options.members, stored.get(target))
    record_lines(view, features.line_keys, lines, [target, *decision.matched])
    if options.boilerplate and votes:
        content = [key for key, value in zip(keys, values) if value in passed]
        suspects = [key for key, value in zip(keys, values) if value and value in votes and value not in passed]
        record_evidence(view, suspects, content, options.boilerplate_after)
    return decision


def clearly_closer(best: int, passed: list[int], scores: dict[int, float], outright: set[int]) -> int:
    """``best``, or the candidate of ``outright`` that scores highest, :data:`CLEAR_MARGIN` or more above it.

    ``outright``: the ``passed`` candidates that passed on their containment alone; ``best`` stays when it is one.
    """
    if best in outright:
        return best
    closer = [c for c in passed if c in outright and scores[c] >= scores[best] + CLEAR_MARGIN]
    return max(closer, key=lambda c: scores[c], default=best)


def line_candidate(lines: dict[int, int], line_grams: Sequence[int], exclude: Sequence[int]) -> int | None:
    """The cluster most of the page's paragraphs were seen in, when they hold :data:`LINE_CANDIDATE` grams or more.

    ``lines`` as :func:`~nshash.boilerplate.line_roots` gives them; lines of
    :data:`LINE_PARAGRAPH` grams or more count, and clusters in ``exclude``
    (the candidates that failed) do not.  Ties go to the lower id.
    """
    held: dict[int, int] = {}
    for index, seen in lines.items():
        if seen > SHARED_LINE and seen not in exclude and line_grams[index] >= LINE_PARAGRAPH:
            held[seen] = held.get(seen, 0) + line_grams[index]
    best = min(held, key=lambda cluster: (-held[cluster], cluster), default=None)
    return best if best is not None and held[best] >= LINE_CANDIDATE else None


def join_by_lines(
    view: StoreView,
    features: Features,
    lines: dict[int, int],
    failed: Sequence[int],
    options: Options,
    trace: list[dict[str, Any]] | None = None,
) -> tuple[int, float, int] | None:
    """The cluster a page joins through its paragraphs (:func:`line_candidate`), its score and members, or ``None``.

    ``failed``: the current ids of the sentence-vote candidates, none of which passed.
    """
    cluster = line_candidate(lines, features.line_grams, failed)
    if cluster is None:
        return None
    entries = load_entries(view, [cluster], options.members)
    known = known_lines(lines, [cluster])  # its own lines are the article's, not frame
    ((score, found),) = verify_clusters(features, entries, 1, options.members, known)
    members = members_at(entries, 0, options.members)
    passed = found > 0 and score >= options.verify and line_body_agrees(features, members, known, options.verify)
    if trace is not None:
        frame = sorted(shared_frame(features, members, known))
        trace.append({"cluster": cluster, "sentences": 0, "share": 0.0, "members": found, "frame_lines": frame})
        trace[-1] |= {"containment": score, "passed": passed, "unframed_lines": [], "edited_copy": False}
        trace[-1] |= {"same_site": any(same_site(features.site_keys, m.lines) for m in members), "by_lines": True}
        trace[-1]["members_overlapping"] = members_overlapping(features, members, known)
    return (cluster, score, found) if passed else None


def agrees(score: float, share: float, options: Options, frameless: bool = False, cjk: bool = False) -> bool:
    """Whether a document joins a candidate: the texts agree enough, given how many sentences point to it.

    Containment of ``verify`` suffices (``verify - FRAMELESS_EASING`` when
    ``frameless``: the page shares no frame with the candidate's members,
    :data:`FRAMELESS_EASING`); ``verify_voted`` suffices when at
    least :data:`VOTED_SHARE` of the document's keyed sentences point to the
    candidate, and ``verify_voted - MAJORITY_EASING`` when
    :data:`MAJORITY_SHARE` do (a heavily edited copy keeps its sentences'
    heads or tails; a templated sibling shares a few paragraphs of
    boilerplate prose, rarely most of its longest sentences).
    """
    voted = share >= VOTED_SHARE and score >= eased_need(share, options, cjk)
    return score >= whole_text_need(options, frameless, cjk) or voted


def split_article(top_votes: int, score: float, share: float, options: Options, cjk: bool = False) -> bool:
    """Whether a candidate's lines that other clusters have may be its article's, split by an earlier miss.

    Most of the page's ``n`` top sentences lead to the candidate (``top_votes``), yet its ``score``, in
    which those lines were taken for a frame (:func:`~nshash.estimate.unframed_score`), is below even
    what the votes ask (:func:`eased_need`).  An article's copy that once went to a cluster of its own
    leaves all its lines "seen elsewhere": every later copy of it then lost its whole article that way
    (containment 0 on five votes of five).  Such a candidate is scored without that bound, except against
    a member whose last lines are among those lines (:func:`~nshash.verify.member_scores`): there they
    are a footer, a site's long notices that are most of a short page and its longest sentences.
    Measured (2026-12-05): real chrome around real articles recall 0.892 -> 0.898, precision unchanged;
    the 95 synthetic files F1 up on 18, down on one (-0.0008), precision unchanged on all; the
    independent corpus up on one file of eight.  A majority of the ``n`` places, not of the page's
    sentences: a page of three whose one vote was its site's notice joined another article.  Only below
    what the votes ask: candidates that passed on them would skip the body check that tells templated
    siblings apart (the independent zh seed 2, precision 0.968 -> 0.966).
    """
    return 2 * top_votes > options.n and score < eased_need(share, options, cjk)


def whole_text_need(options: Options, frameless: bool = False, cjk: bool = False) -> float:
    """The containment :func:`agrees` asks whatever the sentence votes: less between sites (``frameless``).

    Between sites, less again on a mostly CJK page (``cjk``, :data:`CJK_EASING`).
    """
    if not frameless:
        return options.verify
    return options.verify - FRAMELESS_EASING - (CJK_EASING if cjk else 0.0)


def eased_need(share: float, options: Options, cjk: bool = False) -> float:
    """The containment :func:`agrees` asks of a candidate ``share`` (>= :data:`VOTED_SHARE`) of sentences point to.

    ``cjk``: the page is mostly CJK (:func:`cjk_page`, :data:`CJK_EASING`).
    """
    need = options.verify_voted - CJK_EASING if cjk else options.verify_voted
    return need - MAJORITY_EASING if share >= MAJORITY_SHARE else need

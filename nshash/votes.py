"""Sentence votes: how many of a document's keyed sentences lead to each earlier cluster, and their share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

#: A candidate verified at or below this containment shares nothing with the page but the sentences
#: that led to it: they are a notice or menu line the store has not learnt to be boilerplate yet, and
#: they leave the vote of a candidate at least ``OWN_VOTES`` of the top sentences lead to
#: (:func:`vote_shares`).  Seen on Chinese pages of short articles, whose longest sentences are their
#: site's copyright notices: each notice voted for an unrelated page of its site, so the copy's own
#: story had two votes of five and needed the containment of a copy without any.  One vote is not
#: enough: a sibling page of the site whose one vote is its header's paragraph stays at its share.
#: Measured (2026-12-05): the 95 synthetic files F1 up on 36, down on 8 (mean +0.0002); seeds 2025,
#: 6174, 7919 up on 7 of 15, down on none; the independent corpus's zh F1 up on all four seeds (to
#: +0.006); real pages, real chrome, the sample unchanged.  Without the two votes, 0.1 gave the 95
#: files +0.00025 in the mean and 0.2 +0.00043.
UNRELATED: Final = 0.2
OWN_VOTES: Final = 2


def count_votes(matches: Sequence[int | None]) -> dict[int, int]:
    """How many of ``matches`` (each sentence's cluster, ``None`` for none) lead to each cluster."""
    votes: dict[int, int] = {}
    for match in matches:
        if match:
            votes[match] = votes.get(match, 0) + 1
    return votes


def sentence_votes(values: Sequence[int | None]) -> dict[int, int]:
    """:func:`count_votes` of each sentence's head or tail (``values``: two per sentence), and the tails that differ.

    A sentence votes through its head or, when an edit spoiled that, its tail.
    A tail leading to another cluster than its head, one no sentence votes for,
    is proposed too, with one vote: a short article's one sentence may begin
    like another article's (the head leads there, and fails), and its copy with
    an edited head found only that one.  Measured (2026-12-06): 21 files
    (synthetic, independent, held-out books) F1 up on 10, down on 4 (-0.0011 at
    most); the independent zh seed 3 +0.015.
    """
    votes = count_votes([head or tail for head, tail in zip(values[0::2], values[1::2])])
    for head, tail in zip(values[0::2], values[1::2]):
        if head and tail and tail != head and tail not in votes:
            votes[tail] = 1
    return votes


def vote_shares(
    candidates: Sequence[int], top_votes: dict[int, int], scores: dict[int, float], top: int
) -> dict[int, float]:
    """Each candidate's share of the ``top`` voting sentences.

    ``top_votes``: the votes of the top sentences; ``scores``: each candidate's verified containment.  A
    candidate ``OWN_VOTES`` or more of them lead to has its share of those that do not lead to another,
    :data:`UNRELATED` candidate.
    """
    unrelated = {c: top_votes.get(c, 0) for c in candidates if scores[c] <= UNRELATED}
    everyone = sum(unrelated.values())
    shares = {}
    for c in candidates:
        # A candidate's own votes never leave its share, whatever it scored: a share stays at most 1.
        own, others = top_votes.get(c, 0), everyone - unrelated.get(c, 0)
        shares[c] = own / (top - others) if own >= OWN_VOTES and top > others else own / top
    return shares

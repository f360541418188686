"""Clustering quality metrics for near-duplicate detection.

Every metric works on two label sequences of equal length, ``true`` and
``pred``, where position ``i`` is the ``i``-th document in arrival order.
Labels are any hashable values; only equality between labels matters, so
true and predicted labels never need to share a vocabulary.

Pair metrics come from the contingency table of ``(true, pred)`` label pairs,
so they cost O(N) time and memory instead of looking at all N^2 pairs.

>>> s = evaluate(["a", "a", "b"], [1, 1, 1])
>>> (s.precision, s.recall, s.wrongly_dropped, s.missed)
(0.3333333333333333, 1.0, 1, 0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "PairCounts",
    "Scores",
    "adjusted_rand_index",
    "arrival_errors",
    "evaluate",
    "pair_counts",
    "pair_scores",
]


def _comb2(n: int) -> int:
    return n * (n - 1) // 2


def _check(true: Sequence[Hashable], pred: Sequence[Hashable]) -> None:
    if len(true) != len(pred):
        raise ValueError(f"true and pred must have the same length, got {len(true)} and {len(pred)}")


@dataclass(frozen=True)
class PairCounts:
    """Pair counts of a clustering against the truth.

    ``same_both`` pairs are in one cluster in both labelings; ``same_true`` and
    ``same_pred`` are the pairs sharing a cluster in each labeling alone;
    ``total`` is N*(N-1)/2.
    """

    same_both: int
    same_true: int
    same_pred: int
    total: int


def pair_counts(true: Sequence[Hashable], pred: Sequence[Hashable]) -> PairCounts:
    """Count co-clustered document pairs via the contingency table, in O(N).

    >>> pair_counts([0, 0, 1, 1], [0, 0, 0, 1])
    PairCounts(same_both=1, same_true=2, same_pred=3, total=6)
    """
    _check(true, pred)
    cells = Counter(zip(true, pred))
    rows = Counter(true)
    cols = Counter(pred)
    return PairCounts(
        same_both=sum(_comb2(c) for c in cells.values()),
        same_true=sum(_comb2(c) for c in rows.values()),
        same_pred=sum(_comb2(c) for c in cols.values()),
        total=_comb2(len(true)),
    )


def pair_scores(counts: PairCounts) -> tuple[float, float, float]:
    """Pairwise precision, recall and F1 from pair counts.

    A clustering that predicts no pair has precision 1.0 (it made no false
    claim); a truth with no pair gives recall 1.0 (nothing to find). F1 is 0.0
    when both precision and recall are 0.
    """
    p = counts.same_both / counts.same_pred if counts.same_pred else 1.0
    r = counts.same_both / counts.same_true if counts.same_true else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f1


def adjusted_rand_index(counts: PairCounts) -> float:
    """Adjusted Rand Index (Hubert & Arabie 1985) from pair counts.

    ARI = (index - expected) / (max_index - expected) where index is the
    number of pairs together in both labelings, expected = same_true *
    same_pred / total and max_index = (same_true + same_pred) / 2.

    The denominator is 0 only when both labelings are all singletons or both
    are one cluster, i.e. when they are identical, so that case returns 1.0.

    >>> adjusted_rand_index(pair_counts([0, 0, 1, 1], [5, 5, 7, 7]))
    1.0
    """
    if counts.total == 0:
        return 1.0
    expected = counts.same_true * counts.same_pred / counts.total
    max_index = (counts.same_true + counts.same_pred) / 2
    if max_index == expected:
        return 1.0
    return (counts.same_both - expected) / (max_index - expected)


def arrival_errors(true: Sequence[Hashable], pred: Sequence[Hashable]) -> tuple[int, int]:
    """Count ``(wrongly_dropped, missed)`` documents, walking in arrival order.

    A crawler that keeps a page only when its cluster is new sees two kinds of
    mistakes. *Wrongly dropped*: the true cluster has no earlier document (the
    page is unique so far) but the predicted cluster has one, so the page is
    thrown away. *Missed*: the true cluster has an earlier document but the
    predicted cluster has none, so a duplicate is kept.

    >>> arrival_errors(["a", "b", "a"], [1, 1, 2])
    (1, 1)
    """
    _check(true, pred)
    seen_true: set[Hashable] = set()
    seen_pred: set[Hashable] = set()
    dropped = missed = 0
    for t, p in zip(true, pred):
        t_seen, p_seen = t in seen_true, p in seen_pred
        dropped += p_seen and not t_seen
        missed += t_seen and not p_seen
        seen_true.add(t)
        seen_pred.add(p)
    return dropped, missed


@dataclass(frozen=True)
class Scores:
    """All quality numbers for one labeling; see the module docstring."""

    n_docs: int
    n_first: int  # documents that are the first of their true cluster
    precision: float
    recall: float
    f1: float
    ari: float
    wrongly_dropped: int
    missed: int

    def as_dict(self) -> dict[str, Any]:
        """Plain dict, for JSON output."""
        return asdict(self)


def evaluate(true: Sequence[Hashable], pred: Sequence[Hashable]) -> Scores:
    """Compute every metric for ``pred`` against ``true`` (both in arrival order).

    Raises:
        ValueError: if the sequences differ in length.
    """
    counts = pair_counts(true, pred)
    p, r, f1 = pair_scores(counts)
    dropped, missed = arrival_errors(true, pred)
    return Scores(
        n_docs=len(true),
        n_first=len(set(true)),
        precision=p,
        recall=r,
        f1=f1,
        ari=adjusted_rand_index(counts),
        wrongly_dropped=dropped,
        missed=missed,
    )

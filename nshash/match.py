"""What an index says about one document: :class:`Match`."""

from __future__ import annotations

from typing import NamedTuple


class Match(NamedTuple):
    """What was decided (``add``) or would be decided (``query``) for one document.

    >>> import nshash
    >>> nsh = nshash.NSHash()
    >>> text = "A long enough first sentence here. And another long one too."
    >>> nsh.query(text)
    Match(similar_id=0, is_new=True, score=0.0, matched=())
    >>> nsh.add(text).is_new, nsh.add(text).is_new, nsh.query(text).similar_id
    (True, False, 1)
    """

    #: The cluster's canonical id at decision time; ``0`` from :meth:`~nshash.Index.query`
    #: when nothing matched (ids start at 1).
    similar_id: int
    #: No earlier cluster matched: the document starts a cluster (or would).
    is_new: bool
    #: How similar the document is to the cluster it joined, in [0, 1]: 1.0 for
    #: the same text, 0.0 when new.  NSHash: estimated containment of character
    #: 5-grams; SimHash: 1 - Hamming distance / 64; Shingles: share of equal min-hashes.
    score: float
    #: The earlier clusters (canonical ids) the document matched; more than one
    #: when it merged them.
    matched: tuple[int, ...]

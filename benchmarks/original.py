"""A re-implementation of the original 2019 nshash, kept only as a baseline.

Behaviour reproduced from the 2019 release (``NSHash(hashfunc='md5',
hashdb='memory')``), including its quirks, because the point is to measure
what users of that release actually got:

* The text is split on any of ``：:；？。！】`` and newline. Nothing else is a
  separator: ``.``, ``!``, ``?`` (ASCII) and ``,`` are not, so English text
  splits mostly on newlines and colons.
* Pieces longer than 30 characters are kept. If there is none, *all* pieces
  are kept instead, even empty ones; so short documents are still
  fingerprinted, and two short documents with fewer than ``n`` non-empty
  pieces can meet on ``md5("")``.
* The pieces are sorted by length, longest first (a stable sort: ties keep
  text order), and the first ``n`` (5) are hashed with md5 hex digests.
  Repeated pieces are not deduplicated.
* Each hash is looked up in a dict. If any is found the document gets the
  smallest id found; otherwise a new id ``counter + 1``. Then *every* hash is
  written with that id, overwriting: a found hash can only be lowered,
  because the chosen id is the minimum of the ids found.
* Clusters are never merged afterwards: a document's label is the id
  returned when it arrived. (The 2019 LevelDB store compared ids as strings,
  so ``min`` was lexicographic there; the memory store compared ints, which
  is what this file does.)

>>> nsh = OriginalNSHash()
>>> a = "第一句话很长很长很长很长很长很长很长很长很长很长很长很长很长很长。第二句"
>>> nsh.get_similar(a), nsh.get_similar("别的内容。" + a), nsh.get_similar("新的")
(1, 1, 2)
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["SEPARATORS", "OriginalNSHash", "fingerprints"]

SEPARATORS = re.compile(r"[：:；？。！】\n]")


def fingerprints(text: str, n: int = 5, min_len: int = 30) -> list[str]:
    """Return the md5 hex digests of the ``n`` longest pieces of ``text``.

    >>> len(fingerprints("short"))
    1
    """
    pieces = SEPARATORS.split(text)
    long_pieces = [p for p in pieces if len(p) > min_len]
    chosen = long_pieces or pieces
    # sorted() is stable, which is what the original's list.sort did too.
    chosen = sorted(chosen, key=len, reverse=True)[:n]
    return [hashlib.md5(p.encode("utf-8")).hexdigest() for p in chosen]


class OriginalNSHash:
    """Online duplicate finder with the 2019 algorithm and an in-memory dict.

    Args:
        n: how many longest pieces to fingerprint (5 in the original; 1 gives
            the "longest sentence" method).
    """

    def __init__(self, n: int = 5) -> None:
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        self.n = n
        self.db: dict[str, int] = {}
        self.max_similar_id = 0

    def get_similar(self, text: str) -> int:
        """Return the id for ``text`` and store its fingerprints under it."""
        return self.add(text)[0]

    def add(self, text: str) -> tuple[int, list[int]]:
        """Like :meth:`get_similar`, also returning every id its hashes found."""
        hashes = fingerprints(text, self.n)
        found = [self.db[h] for h in hashes if h in self.db]
        if found:
            sid = min(found)
        else:
            self.max_similar_id += 1
            sid = self.max_similar_id
        for h in hashes:
            self.db[h] = sid
        return sid, found

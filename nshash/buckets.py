"""Buckets of several entries in a HashDB: the candidate index of SimHash and Shingles.

A store maps one int to one int, but a bucket (a SimHash block key, a
MinHash band key) must hold many entries.  A bucket is a ring of ``size``
slots: ``bkt[bucket]`` counts the entries ever added to it, and entry number
``n`` lives in ``slot[bucket + n % size]``.  Reading any number of buckets
costs two round trips to the store (all counters, then all live slots),
whatever their fill, and a full bucket forgets its oldest entries, so a
lookup's cost stays bounded on clusters with thousands of members.

Bucket keys are well-mixed 64-bit hashes, so the keys ``bucket + i`` of two
buckets overlap only if the buckets lie within ``size`` of each other (about
``buckets**2 * size / 2**64``: never in practice); plain addition keeps the
keys of one bucket next to each other, which LevelDB reads fastest.

Stored values are signed 64-bit (:func:`to_value`), so unsigned 64-bit
entries (fingerprints, signature keys) fit every store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from nshash.stores.view import StoreView

BKT: Final = "bkt"
SLOT: Final = "slot"

_MASK64: Final = (1 << 64) - 1
_SIGN: Final = 1 << 63
_WRAP: Final = 1 << 64


def offset_keys(keys: Sequence[int], count: int) -> list[int]:
    """The ``count`` consecutive keys from each of ``keys`` (wrapping at 2**64): a signature's words.

    >>> offset_keys([2**64 - 1, 10], 2)
    [18446744073709551615, 0, 10, 11]
    """
    return [(key + index) & _MASK64 for key in keys for index in range(count)]


def to_value(unsigned: int) -> int:
    """An unsigned 64-bit int as the signed value a store keeps (``from_value`` undoes it).

    >>> to_value(2**64 - 1), from_value(-1)
    (-1, 18446744073709551615)
    """
    return unsigned - _WRAP if unsigned >= _SIGN else unsigned


def from_value(value: int) -> int:
    """The unsigned 64-bit int behind a stored value."""
    return value + _WRAP if value < 0 else value


def read_buckets(view: StoreView, keys: Sequence[int], size: int) -> tuple[list[int], list[int]]:
    """The fill counters of ``keys`` and the distinct entries they hold.

    Entries come bucket by bucket in the order of ``keys``, each once.
    ``view`` is a store or a transaction view.
    """
    counts = [count or 0 for count in view.get_many(BKT, keys)]
    # Slots 0 .. min(count, size) - 1 are live: a ring fills them in order first.
    slots = [(key + index) & _MASK64 for key, count in zip(keys, counts) if count for index in range(min(count, size))]
    if not slots:
        return counts, []
    values = view.get_many(SLOT, slots)
    entries = dict.fromkeys([value + _WRAP if value < 0 else value for value in values if value is not None])
    return counts, list(entries)


def add_to_buckets(view: StoreView, keys: Sequence[int], counts: Sequence[int], entry: int, size: int) -> None:
    """Append ``entry`` to each bucket of ``keys``, whose counters :func:`read_buckets` returned.

    Writes go through ``view`` (one batch of each table), overwriting the
    oldest slot of a full bucket.
    """
    value = to_value(entry)
    view.put_many(SLOT, [((key + count % size) & _MASK64, value) for key, count in zip(keys, counts)])
    view.put_many(BKT, [(key, count + 1) for key, count in zip(keys, counts)])

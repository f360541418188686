"""What a cluster keeps of its first documents (its members), and reading them back.

A member is a document's sketch and line filter (:class:`Member`), stored as
:data:`ENTRIES` 64-bit words in the ``sketch`` table under :func:`entry_keys`,
so every store holds it as ints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from nshash._accel import speedups
from nshash.edges import BLOOM_BITS, line_filter, member_tail
from nshash.fingerprint import Features
from nshash.pieces import FLAT_MARK, piece_keys
from nshash.sketch import SLOTS, Sketch
from nshash.stores.view import StoreView

SKETCH: Final = "sketch"

# -- a cluster member in a store: int -> int entries ----------------------------------
_WORDS: Final = SLOTS // 8
_FILTER_WORDS: Final = BLOOM_BITS // 64
#: Entries per stored member: the gram count, the slots (8 a word), the line filter.
ENTRIES: Final = 1 + _WORDS + _FILTER_WORDS
#: Members per cluster the key layout has room for.
MAX_MEMBERS: Final = 4
#: The gram count's bits in a member's first entry (the tail is above them).
_GRAM_BITS: Final = 32
_GRAM_MASK: Final = (1 << _GRAM_BITS) - 1
_WORD_MASK: Final = (1 << 64) - 1
#: A member's entries are keyed ``cluster << 8 | member << 6 | entry``.
CLUSTER_SHIFT: Final = 8
MEMBER_SHIFT: Final = 6


class Member(NamedTuple):
    """What a cluster keeps of one of its first documents."""

    sketch: Sketch
    #: :func:`line_filter` of its lines and its site keys (:attr:`~nshash.fingerprint.Features.site_keys`).
    lines: int
    #: :func:`member_tail` of its lines; 0 in a member stored before nshash kept it.
    tail: int = 0


def entry_keys(cluster: int, member: int) -> list[int]:
    """The ``sketch`` table keys of a cluster's ``member``-th document (member < :data:`MAX_MEMBERS`)."""
    base = (cluster << CLUSTER_SHIFT) | (member << MEMBER_SHIFT)
    return [base | part for part in range(ENTRIES)]


def _words(data: bytes) -> list[int]:
    return [int.from_bytes(data[i : i + 8], "little", signed=True) for i in range(0, len(data), 8)]


def to_entries(value: Member) -> list[int]:
    """The stored form: signed 64-bit ints (what every store keeps).

    The first holds the gram count in its low 32 bits (at most 2**32 - 1: a
    larger count would spill into the tail) and the tail above them (a member
    stored before the tail was kept reads as tail 0).
    """
    first = min(value.sketch.grams, _GRAM_MASK) | value.tail << _GRAM_BITS
    return [first, *_words(value.sketch.slots), *_words(value.lines.to_bytes(BLOOM_BITS // 8, "little"))]


def from_entries(entries: Sequence[int | None]) -> Member | None:
    """:func:`to_entries` reversed; ``None`` when the member is not stored."""
    values = [int(entry) for entry in entries if entry is not None]
    if len(values) != ENTRIES:
        return None
    raw = b"".join(word.to_bytes(8, "little", signed=True) for word in values[1:])
    slots, lines = raw[:SLOTS], raw[SLOTS:]
    first = values[0] & _WORD_MASK
    return Member(Sketch(first & _GRAM_MASK, slots), int.from_bytes(lines, "little"), first >> _GRAM_BITS)


def load_entries(view: StoreView, clusters: list[int], members: int) -> list[int | None]:
    """The stored entries of each cluster's first ``members`` documents (:data:`ENTRIES` each)."""
    if not clusters:
        return []
    keys = speedups.entry_keys(clusters, members) if speedups is not None else None
    if keys is None:  # pure Python, or ids too large for the C's 64-bit keys
        keys = [key for cluster in clusters for member in range(members) for key in entry_keys(cluster, member)]
    return list(view.get_many(SKETCH, keys))


def members_at(entries: list[int | None], index: int, members: int) -> list[Member]:
    """The stored members of the ``index``-th cluster of ``entries``, up to the first one missing."""
    found = []
    for member in range(members):
        start = (index * members + member) * ENTRIES
        value = from_entries(entries[start : start + ENTRIES])
        if value is None:
            break
        found.append(value)
    return found


def load_members(view: StoreView, clusters: list[int], members: int) -> dict[int, list[Member]]:
    """The stored members (sketch and edge lines) of each cluster's first ``members`` documents."""
    entries = load_entries(view, clusters, members)
    return {cluster: members_at(entries, index, members) for index, cluster in enumerate(clusters)}


def stored_form(features: Features) -> list[int]:
    """What a cluster keeps of a document: :func:`to_entries` of its sketch and line filter.

    The filter holds its lines, site keys and pieces (:mod:`nshash.pieces`), and whether it came flat.
    """
    if speedups is not None:
        return list(
            speedups.member_entries(
                features.line_keys,
                features.line_grams,
                *features.sketch,
                features.site_keys,
                features.pieces,
                features.flat,
            )
        )
    lines = line_filter(features.line_keys) | line_filter(features.site_keys) | line_filter(piece_keys(features))
    if features.flat:
        lines |= line_filter([FLAT_MARK])
    return to_entries(Member(features.sketch, lines, member_tail(features.line_keys, features.line_grams)))


def add_member(view: StoreView, cluster: int, features: Features, members: int, known: int | None) -> None:
    """Keep the document as one of the cluster's first ``members`` documents, if there is room."""
    if known is None:
        known = len(load_members(view, [cluster], members)[cluster])
    if known < members:
        view.put_many(SKETCH, list(zip(entry_keys(cluster, known), stored_form(features))))

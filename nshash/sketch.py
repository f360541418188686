"""Compact sketches of a whole text, to verify that two documents are one article.

Sentence keys only propose a candidate cluster; the decision compares whole
texts.  A sketch is a one-permutation MinHash of the text's character
5-grams (64 slots, empty slots filled by rotation, 8 bits kept per slot) and
the number of grams: 65 bytes that estimate how much of the smaller text
lies in the larger one (containment), which keeps truncated reprints and
article-text-versus-whole-page pairs.

This module is the specification; ``nshash._speedups.sketch`` computes the
same bytes in C (tested against it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from nshash.features import mix64

GRAM: Final = 5
SLOTS: Final = 64
_SLOT_SHIFT: Final = 58  # 64 slots: the top 6 bits of a gram's hash choose the slot
_MASK64: Final = (1 << 64) - 1
_PRIME: Final = 0x100000001B3  # FNV-1's 64-bit prime: spreads code points over the word
_PRIME_OUT: Final = pow(_PRIME, GRAM - 1, 1 << 64)
_EMPTY: Final = _MASK64
#: Slots agree by chance with probability 1/256 at 8 bits.
_CHANCE: Final = 1 / 256


class Sketch(NamedTuple):
    """A text's sketch: its number of character 5-grams and one byte per slot."""

    grams: int
    slots: bytes


def sketch(text: str) -> Sketch:
    """The sketch of a normalised text (see :func:`containment`).

    A text shorter than 5 characters is one gram.

    >>> s = sketch("the quick brown fox")
    >>> s.grams, len(s.slots)
    (15, 64)
    """
    codes = [ord(char) for char in text]
    if not codes:
        return Sketch(0, bytes(SLOTS))
    mins = [_EMPTY] * SLOTS
    poly = 0
    for code in codes[: GRAM - 1]:
        poly = (poly * _PRIME + code) & _MASK64
    grams = max(1, len(codes) - GRAM + 1)
    if len(codes) < GRAM:
        _offer(mins, poly)
    else:
        for index in range(grams):
            poly = (poly * _PRIME + codes[index + GRAM - 1]) & _MASK64
            _offer(mins, poly)
            poly = (poly - codes[index] * _PRIME_OUT) & _MASK64
    return Sketch(grams, _densified_bytes(mins))


def _offer(mins: list[int], poly: int) -> None:
    value = mix64(poly)
    slot = value >> _SLOT_SHIFT
    low = value & ((1 << _SLOT_SHIFT) - 1)
    if low < mins[slot]:
        mins[slot] = low


def _densified_bytes(mins: list[int]) -> bytes:
    """One byte per slot; an empty slot borrows from the next filled one, mixed with the distance."""
    out = bytearray(SLOTS)
    for slot in range(SLOTS):
        for distance in range(SLOTS):
            value = mins[(slot + distance) % SLOTS]
            if value != _EMPTY:
                out[slot] = mix64(value + distance) >> 56
                break
    return bytes(out)


def containment(a: Sketch, b: Sketch) -> float:
    """Estimated share of the smaller text's grams found in the larger one, in [0, 1].

    >>> text = "a reprinted article keeps most of its sentences"
    >>> containment(sketch(text), sketch(text))
    1.0
    >>> containment(sketch(text), sketch("something else entirely, nothing in common")) < 0.2
    True
    """
    if not a.grams or not b.grams:
        return 0.0
    same = sum(x == y for x, y in zip(a.slots, b.slots)) / SLOTS
    jaccard = (same - _CHANCE) / (1 - _CHANCE)
    if jaccard <= 0:
        return 0.0
    shared = jaccard * (a.grams + b.grams) / (1 + jaccard)
    return min(1.0, shared / min(a.grams, b.grams))


def body_containment(a: Sketch, b: Sketch, shared_edges: int) -> float:
    """:func:`containment` with ``shared_edges`` grams of a shared header and footer left out.

    Two pages of one site share their header and footer lines; two copies of
    one article share their middle.  Grams of the header and footer both
    texts have are taken out of the estimate, unless they are most of the
    smaller text (then the two are one page).

    >>> page = sketch("site menu line here" + "an article about one thing" + "site footer line")
    >>> other = sketch("site menu line here" + "a different story altogether" + "site footer line")
    >>> round(containment(page, other), 1) > 0.3, body_containment(page, other, 28) < 0.2
    (True, True)
    """
    both = containment(a, b)
    smaller = min(a.grams, b.grams)
    rest = smaller - shared_edges
    if shared_edges <= 0 or rest < EDGE_REST * smaller:
        return both
    return max(0.0, both * smaller - shared_edges) / rest


def shared_chrome(edges: Sequence[int], grams: Sequence[int], other: Sequence[int]) -> int:
    """Grams of the header and footer a document shares with another: 0 unless it shares both.

    ``edges`` (and their ``grams``) are a document's top and bottom line keys
    (``EDGES`` each, 0-padded); ``other`` the other's.  The header is the
    document's top lines that the other has among its top lines; the footer
    likewise at the bottom.  Sharing only one of them is what a copy that
    keeps a page's title or signature does.
    """
    top, bottom = set(other[:EDGES]) - {0}, set(other[EDGES:]) - {0}
    head = sum(count for key, count in zip(edges[:EDGES], grams[:EDGES]) if key in top)
    foot = sum(count for key, count in zip(edges[EDGES:], grams[EDGES:]) if key in bottom)
    return head + foot if head and foot else 0


#: When identical edge lines leave less than this share of the smaller text, the texts are one page.
EDGE_REST: Final = 0.3


# -- a cluster member in a store: int -> int entries ----------------------------------
#: Edge lines kept per member: this many at the top and at the bottom.
EDGES: Final = 6
_WORDS: Final = SLOTS // 8
#: Entries per stored member: the gram count, 8 words of slots, the edge line
#: keys (32 bits, two an entry), their gram counts (16 bits, four an entry).
ENTRIES: Final = 1 + _WORDS + EDGES + EDGES // 2


class Member(NamedTuple):
    """What a cluster keeps of one of its first documents."""

    sketch: Sketch
    #: Keys of its first and last :data:`EDGES` lines (0 where there are fewer).
    edges: tuple[int, ...]
    #: Gram counts of those lines.
    grams: tuple[int, ...]


def entry_keys(cluster: int, member: int) -> list[int]:
    """The ``sketch`` table keys of a cluster's ``member``-th document (member < 8)."""
    base = (cluster << 8) | (member << 5)
    return [base | part for part in range(ENTRIES)]


def _pack(values: Sequence[int], bits: int) -> list[int]:
    """Fixed-width unsigned values, ``64 // bits`` to a signed 64-bit int."""
    per = 64 // bits
    words = []
    for start in range(0, len(values), per):
        word = 0
        for offset, value in enumerate(values[start : start + per]):
            word |= (value & ((1 << bits) - 1)) << (offset * bits)
        words.append(word - (1 << 64) if word >= 1 << 63 else word)
    return words


def _unpack(words: Sequence[int], bits: int) -> list[int]:
    per = 64 // bits
    return [((word & _MASK64) >> (offset * bits)) & ((1 << bits) - 1) for word in words for offset in range(per)]


def to_entries(value: Member) -> list[int]:
    """The stored form: signed 64-bit ints (what every store keeps).

    Edge keys keep their low 32 bits (they are compared, never looked up) and
    gram counts saturate at 65,535.
    """
    words = [int.from_bytes(value.sketch.slots[i : i + 8], "little", signed=True) for i in range(0, SLOTS, 8)]
    grams = [min(count, 0xFFFF) for count in value.grams]
    return [value.sketch.grams, *words, *_pack(value.edges, 32), *_pack(grams, 16)]


def from_entries(entries: Sequence[int | None]) -> Member | None:
    """:func:`to_entries` reversed (edge keys as their low 32 bits); ``None`` when not stored."""
    values = [int(entry) for entry in entries if entry is not None]
    if len(values) != ENTRIES:
        return None
    slots = b"".join(word.to_bytes(8, "little", signed=True) for word in values[1 : 1 + _WORDS])
    edges = tuple(_unpack(values[1 + _WORDS : 1 + _WORDS + EDGES], 32))
    grams = tuple(_unpack(values[1 + _WORDS + EDGES :], 16))
    return Member(Sketch(values[0], slots), edges, grams)

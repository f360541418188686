"""Compact sketches of a whole text, to verify that two documents are one article.

Sentence keys only propose a candidate cluster; the decision compares whole
texts.  A sketch is a one-permutation MinHash of the text's character
5-grams (128 slots, empty slots filled by rotation, 8 bits kept per slot) and
the number of grams: 130 bytes that estimate how much of the smaller text
lies in the larger one (containment), which keeps truncated reprints and
article-text-versus-whole-page pairs.

This module is the specification; ``nshash._speedups.sketch`` computes the
same bytes in C (tested against it).
"""

from __future__ import annotations

import math
import sys
from operator import eq
from typing import Final, NamedTuple

from nshash import sketch_numpy
from nshash._accel import speedups
from nshash.features import mix64

GRAM: Final = 5
SLOTS: Final = 128
_SLOT_SHIFT: Final = 57  # 128 slots: the top 7 bits of a gram's hash choose the slot
_MASK64: Final = (1 << 64) - 1
_PRIME: Final = 0x100000001B3  # FNV-1's 64-bit prime: spreads code points over the word
_PRIME_OUT: Final = pow(_PRIME, GRAM - 1, 1 << 64)
_EMPTY: Final = _MASK64
_UTF32: Final = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
#: Bits kept per slot: slots agree by chance with probability 1 / 2**8.
_SLOT_BITS: Final = 8
_CHANCE: Final = 1 / (1 << _SLOT_BITS)


class Sketch(NamedTuple):
    """A text's sketch: its number of character 5-grams and one byte per slot."""

    grams: int
    slots: bytes


def sketch(text: str) -> Sketch:
    """The sketch of a normalised text (see :func:`containment`); under 5 characters, one gram.

    The same bytes in C (:mod:`nshash._accel`), with numpy (:mod:`nshash.sketch_numpy`) or by :func:`sketch_python`.

    >>> s = sketch("the quick brown fox")
    >>> s.grams, len(s.slots)
    (15, 128)
    """
    if speedups is not None:
        return Sketch(*speedups.sketch(text))
    if sketch_numpy.available():
        return Sketch(*sketch_numpy.sketch_numpy(text, GRAM, SLOTS, _PRIME, _SLOT_SHIFT))
    return sketch_python(text)


def sketch_python(text: str) -> Sketch:
    """:func:`sketch` in pure Python: the specification the C version is tested against."""
    # Code points as 4-byte unsigned ints (the same values as ord), not a list of int objects:
    # a page of millions of CJK characters would take 36 bytes a character.
    codes = memoryview(text.encode(_UTF32, "surrogatepass")).cast("I")
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
    return min(1.0, shared_grams(a, b) / min(a.grams, b.grams))


def shared_grams(a: Sketch, b: Sketch) -> float:
    """The estimated number of grams two texts share (from their Jaccard similarity), at least 0."""
    same: float = sum(map(eq, a.slots, b.slots)) / SLOTS
    jaccard = (same - _CHANCE) / (1 - _CHANCE)
    if jaccard <= 0:
        return 0.0
    return jaccard * (a.grams + b.grams) / (1 + jaccard)


def containment_error(a: Sketch, b: Sketch) -> float:
    """The standard error of :func:`containment`'s estimate (from the binomial error of the slots' agreement).

    >>> text = "a reprinted article keeps most of its sentences"
    >>> containment_error(sketch(text), sketch(text))
    0.0
    """
    if not a.grams or not b.grams:
        return 0.0
    same: float = sum(map(eq, a.slots, b.slots)) / SLOTS
    jaccard = min(1.0, max(0.0, (same - _CHANCE) / (1 - _CHANCE)))
    spread = math.sqrt(jaccard * (1 - jaccard) / SLOTS)
    return spread * (a.grams + b.grams) / (min(a.grams, b.grams) * (1 + jaccard) ** 2)


def body_containment(a: Sketch, b: Sketch, chrome: int, site: bool = False) -> float:
    """:func:`containment` with ``chrome`` grams of a shared header and footer left out.

    Two pages of one site share their header and footer lines; two copies of
    one article share their middle.  Grams of the header and footer that both
    texts have are taken out of the estimate, unless they are most of the
    smaller text (then the two are one page: :func:`has_rest`; ``site``: the
    two are pages of one site).

    >>> page = sketch("site menu line here" + "an article about one thing" + "site footer line")
    >>> other = sketch("site menu line here" + "a different story altogether" + "site footer line")
    >>> round(containment(page, other), 1) > 0.3, body_containment(page, other, 28) < 0.2
    (True, True)
    """
    both = containment(a, b)
    smaller = min(a.grams, b.grams)
    rest = smaller - chrome
    if chrome <= 0 or not has_rest(rest, smaller, site):
        return both
    return max(0.0, both * smaller - chrome) / rest


#: When a shared header and footer leave less than this share of the smaller text, the texts are one page ...
EDGE_REST: Final = 0.1
#: ... unless they are two pages of one site (:func:`nshash.site.same_site`) and
#: leave this many grams or more: a short article in a site's long chrome (an
#: aggregator's lists of other stories, 12,000 characters around 650) is an
#: article of its own, not the page of another article of the site.  Measured
#: (2026-12-05): real chrome around real articles P / R / F1 0.946 / 0.885 /
#: 0.914 -> 0.952 / 0.890 / 0.920 (false pairs within one site 44.0 -> 31.0 a
#: seed); the real pages, the 95 synthetic files and the independent corpus
#: unchanged.  Without the site condition real pages' text forms F1 fell 0.9787
#: -> 0.9777: an article's annotated text and its extraction, near-identical,
#: were compared by the few lines that differ.
EDGE_REST_GRAMS: Final = 300


def has_rest(rest: int, smaller: int, site: bool = False) -> bool:
    """Whether the ``rest`` grams a shared frame leaves of the ``smaller`` text are its own (:data:`EDGE_REST`)."""
    return rest >= EDGE_REST * smaller or (site and rest >= EDGE_REST_GRAMS)

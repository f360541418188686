"""The sketch of a text over numpy arrays: what Python computes when the C accelerator is missing.

:func:`nshash.sketch.sketch_python` is the specification: a loop over every
character 5-gram, 1.2 ms for a page of 950 characters.  The same arithmetic
runs here on whole ``uint64`` arrays (numpy wraps every product modulo
2**64, as the specification masks it): the grams' polynomial hashes, their
mix, the smallest per slot (one sort: a slot's values share their top bits)
and the filling of empty slots.  The bytes are the specification's (tested
against it); numpy is optional, and without it :func:`nshash.sketch.sketch`
keeps to the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from nshash.features import mix64_array
from nshash.sketch import _PRIME, _SLOT_SHIFT, _UTF32, GRAM, SLOTS, Sketch


def sketch_numpy(text: str) -> Sketch:
    """:func:`nshash.sketch.sketch_python`'s result, computed with numpy."""
    import numpy as np

    codes = np.frombuffer(text.encode(_UTF32, "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    if not len(codes):
        return Sketch(0, bytes(SLOTS))
    grams = max(1, len(codes) - GRAM + 1)
    # A text shorter than a gram is one gram of all its characters.
    polys = codes[:grams].copy()
    prime = np.uint64(_PRIME)
    for offset in range(1, min(GRAM, len(codes))):
        polys *= prime
        polys += codes[offset : offset + grams]
    values = np.sort(mix64_array(polys))
    slots = (values >> np.uint64(_SLOT_SHIFT)).astype(np.intp)
    first = np.empty(len(values), dtype=bool)
    first[0] = True
    np.not_equal(slots[1:], slots[:-1], out=first[1:])
    filled, lows = slots[first], values[first] & np.uint64((1 << _SLOT_SHIFT) - 1)
    # An empty slot borrows from the next filled one (round the end), mixed with the distance.
    every = np.arange(SLOTS)
    nearest = np.searchsorted(filled, every) % len(filled)
    distance = ((filled[nearest] - every) % SLOTS).astype(np.uint64)
    out = mix64_array(lows[nearest] + distance) >> np.uint64(56)
    return Sketch(grams, out.astype(np.uint8).tobytes())


@cache
def fallback() -> Callable[[str], Sketch] | None:
    """:func:`sketch_numpy` when numpy can be imported, else ``None`` (asked once)."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return None
    return sketch_numpy

"""The sketch of a text over numpy arrays: what Python computes when the C accelerator is missing.

:func:`nshash.sketch.sketch_python` is the specification: a loop over every
character 5-gram, 1.2 ms for a page of 950 characters.  The same arithmetic
runs here on whole ``uint64`` arrays (numpy wraps every product modulo
2**64, as the specification masks it): the grams' polynomial hashes, their
mix, the smallest per slot (one sort: a slot's values share their top bits)
and the filling of empty slots.  The bytes are the specification's (tested
against it); numpy is optional, and without it :func:`nshash.sketch.sketch`
keeps to the loop.  The sketch's parameters come from :mod:`nshash.sketch`,
which calls this module (not the other way round).
"""

from __future__ import annotations

import sys
from functools import cache

from nshash.features import mix64_array

_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"


@cache
def available() -> bool:
    """Whether numpy can be imported (asked once)."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def sketch_numpy(text: str, gram: int, slots: int, prime: int, slot_shift: int) -> tuple[int, bytes]:
    """:func:`nshash.sketch.sketch_python`'s gram count and slot bytes, computed with numpy.

    ``gram``, ``slots``, ``prime`` and ``slot_shift``: the sketch's
    parameters (:data:`nshash.sketch.GRAM` and the others).
    """
    import numpy as np

    codes = np.frombuffer(text.encode(_UTF32, "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    if not len(codes):
        return 0, bytes(slots)
    grams = max(1, len(codes) - gram + 1)
    # A text shorter than a gram is one gram of all its characters.
    polys = codes[:grams].copy()
    for offset in range(1, min(gram, len(codes))):
        polys *= np.uint64(prime)
        polys += codes[offset : offset + grams]
    values = np.sort(mix64_array(polys))
    slot = (values >> np.uint64(slot_shift)).astype(np.intp)
    first = np.empty(len(values), dtype=bool)
    first[0] = True
    np.not_equal(slot[1:], slot[:-1], out=first[1:])
    filled, lows = slot[first], values[first] & np.uint64((1 << slot_shift) - 1)
    # An empty slot borrows from the next filled one (round the end), mixed with the distance.
    every = np.arange(slots)
    nearest = np.searchsorted(filled, every) % len(filled)
    distance = ((filled[nearest] - every) % slots).astype(np.uint64)
    out = mix64_array(lows[nearest] + distance) >> np.uint64(56)
    return grams, out.astype(np.uint8).tobytes()

"""The sketch of a text over numpy arrays: what Python computes when the C accelerator is missing.

:func:`nshash.sketch.sketch_python` is the specification: a loop over every
character 5-gram, 1.2 ms for a page of 950 characters.  The same arithmetic
runs here on ``uint64`` arrays of 2,048 grams at a time (numpy wraps every
product modulo 2**64, as the specification masks it; the chunks keep the
temporary arrays small, where a whole page's took 30 bytes a character): the
grams' polynomial hashes, their mix, the smallest per slot (one sort: a
slot's values share their top bits) and the filling of empty slots.  The
bytes are the specification's (tested against it); numpy is optional, and
without it :func:`nshash.sketch.sketch` keeps to the loop.  The sketch's
parameters come from :mod:`nshash.sketch`, which calls this module (not the
other way round).
"""

from __future__ import annotations

import sys
from functools import cache

from nshash.features import mix64_array

_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
#: Grams hashed at once: ~60 bytes each in temporary arrays.
_CHUNK = 2048


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

    # The code points as 4-byte ints, read in place as the specification reads them; the grams
    # are hashed _CHUNK at a time, so the arrays of 8-byte values stay small whatever the page.
    codes = np.frombuffer(text.encode(_UTF32, "surrogatepass"), dtype=np.uint32)
    if not len(codes):
        return 0, bytes(slots)
    grams = max(1, len(codes) - gram + 1)
    low_mask = np.uint64((1 << slot_shift) - 1)
    least = np.full(slots, low_mask, dtype=np.uint64)  # each slot's smallest low bits so far
    seen = np.zeros(slots, dtype=bool)
    for start in range(0, grams, _CHUNK):
        count = min(_CHUNK, grams - start)
        window = codes[start : start + count + gram - 1].astype(np.uint64)
        # A text shorter than a gram is one gram of all its characters.
        polys = window[:count].copy()
        for offset in range(1, min(gram, len(window))):
            polys *= np.uint64(prime)
            polys += window[offset : offset + count]
        values = np.sort(mix64_array(polys))
        slot = (values >> np.uint64(slot_shift)).astype(np.intp)
        first = np.empty(count, dtype=bool)
        first[0] = True
        np.not_equal(slot[1:], slot[:-1], out=first[1:])
        found = slot[first]
        least[found] = np.minimum(least[found], values[first] & low_mask)
        seen[found] = True
    # An empty slot borrows from the next filled one (round the end), mixed with the distance.
    filled = np.flatnonzero(seen)
    every = np.arange(slots)
    nearest = filled[np.searchsorted(filled, every) % len(filled)]
    distance = ((nearest - every) % slots).astype(np.uint64)
    out = mix64_array(least[nearest] + distance) >> np.uint64(56)
    return grams, out.astype(np.uint8).tobytes()

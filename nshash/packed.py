"""Many documents' features as one ``bytes``: what a Dask worker sends the process that decides.

Python objects (lists of ints, arrays, a string and two tuples a page) cost
more to pack, pickle, unpickle and unpack than the decision itself; one
``bytes`` travels as a buffer, and the C reads it straight into its decision
(``assign_packed`` in ``nshash/_packed.h``, via :meth:`nshash.NSHash._assign_packed`).
:func:`pack_python` and :func:`unpack` here are the specification; the C
packer gives the same bytes (tests compare them).

The layout, in the byte order of the machine that packed it (the header says
which; a process of another byte order refuses it)::

    header  "NSF3", u32 0x01020304, u64 pages
    a page  u8 flags, u32 keys, u32 positions, u32 lines, u32 site keys, u32 piece words, u64 characters,
            u64 grams, u64 doc_key, keys (u64 each), positions (i64), line keys (u32), line grams and
            line ends (u32 each, i64 when flagged wide), site keys (u32), pieces (u32), the sketch's
            slots, the whole text (characters x 1, 2 or 4 bytes: the narrowest that holds it, as
            CPython stores it)

``flags``: 1 an empty page (no ``doc_key``), 2 wide line grams, 4 wide line
ends, the whole text's character size in bits 3-4 (0: 1 byte, 1: 2, 2: 4), and
32 a page whose lines were restored (``Features.flat``).
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Iterable, Iterator
from typing import Final

from nshash._accel import speedups
from nshash.errors import ArgumentError
from nshash.fingerprint import Features
from nshash.sketch import SLOTS, Sketch

MAGIC: Final = b"NSF3"
_ORDER: Final = 0x01020304
_HEADER: Final = struct.Struct("=4sIQ")
_PAGE: Final = struct.Struct("=BIIIIIQQQ")
_EMPTY, _WIDE_GRAMS, _WIDE_ENDS = 1, 2, 4
_KIND_SHIFT: Final = 3
_FLAT: Final = 32
#: Codecs of a string stored 1, 2 or 4 bytes a character in this machine's byte order.
_CODECS: Final = ("latin-1", f"utf-16-{sys.byteorder[0]}e", f"utf-32-{sys.byteorder[0]}e")
HEADER_SIZE: Final = _HEADER.size


def pack(features: list[Features]) -> bytes:
    """``features`` as one ``bytes`` (the layout above); in C when the accelerator is there."""
    if speedups is not None:
        return bytes(speedups.pack_features(features))
    return pack_python(features)


def pack_python(features: Iterable[Features]) -> bytes:
    """:func:`pack` in pure Python: the specification the C packer is tested against."""
    out = [b""]
    count = 0
    for each in features:
        out.append(_page(each))
        count += 1
    out[0] = _HEADER.pack(MAGIC, _ORDER, count)
    return b"".join(out)


def _page(f: Features) -> bytes:
    grams_wide = _wide(f.line_grams)
    ends_wide = _wide(f.line_ends)
    size = 0 if f.whole.isascii() else ord(max(f.whole))
    kind = 0 if size < 0x100 else 1 if size < 0x10000 else 2
    flags = (f.doc_key is None) * _EMPTY | grams_wide * _WIDE_GRAMS | ends_wide * _WIDE_ENDS | kind << _KIND_SHIFT
    flags |= f.flat * _FLAT
    if len(f.sketch.slots) != SLOTS:
        raise ArgumentError(f"a sketch holds {SLOTS} slots, not {len(f.sketch.slots)}")
    head = _PAGE.pack(
        flags,
        len(f.keys),
        len(f.positions),
        len(f.line_keys),
        len(f.site_keys),
        len(f.pieces),
        len(f.whole),
        f.sketch.grams,
        0 if f.doc_key is None else f.doc_key,
    )
    return b"".join(
        (
            head,
            array("Q", f.keys).tobytes(),
            array("q", f.positions).tobytes(),
            array("I", f.line_keys).tobytes(),
            array("q" if grams_wide else "I", f.line_grams).tobytes(),
            array("q" if ends_wide else "I", f.line_ends).tobytes(),
            array("I", f.site_keys).tobytes(),
            array("I", f.pieces).tobytes(),
            bytes(f.sketch.slots),
            f.whole.encode(_CODECS[kind], "surrogatepass"),
        )
    )


def _wide(values: array[int]) -> bool:
    return values.itemsize == 8


def unpack(blob: bytes, offset: int = HEADER_SIZE) -> Iterator[Features]:
    """:func:`pack` reversed, one document at a time, from the page at byte ``offset`` (the first by default).

    Raises:
        ArgumentError: ``blob`` is not packed features, is damaged, or was packed in another byte order.
    """
    check(blob)
    view = memoryview(blob)
    at = offset
    while at < len(blob):
        features, at = unpack_page(view, at)
        yield features


def check(blob: bytes) -> int:
    """The number of pages of packed features ``blob``, checking its header."""
    if len(blob) < HEADER_SIZE:
        raise ArgumentError("not packed nshash features: too short")
    magic, order, count = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise ArgumentError("not packed nshash features (or another version's)")
    if order != _ORDER:
        raise ArgumentError("packed nshash features come from a machine of another byte order")
    return int(count)


def unpack_page(view: memoryview, at: int) -> tuple[Features, int]:
    """The page packed at byte ``at`` of ``view``, and where the next one starts."""
    if at + _PAGE.size > len(view):
        raise ArgumentError("packed nshash features are truncated or damaged")
    flags, n_keys, n_positions, n_lines, n_site, n_pieces, chars, grams, doc_key = _PAGE.unpack_from(view, at)
    at += _PAGE.size
    keys, at = _take(view, at, "Q", n_keys)
    positions, at = _take(view, at, "q", n_positions)
    line_keys, at = _take(view, at, "I", n_lines)
    line_grams, at = _take(view, at, "q" if flags & _WIDE_GRAMS else "I", n_lines)
    line_ends, at = _take(view, at, "q" if flags & _WIDE_ENDS else "I", n_lines)
    site, at = _take(view, at, "I", n_site)
    pieces, at = _take(view, at, "I", n_pieces)
    slots = bytes(view[at : at + SLOTS])
    at += SLOTS
    kind = flags >> _KIND_SHIFT & 3
    end = at + chars * (1 << kind)
    if end > len(view) or kind > 2:
        raise ArgumentError("packed nshash features are truncated or damaged")
    whole = str(view[at:end], _CODECS[kind], "surrogatepass")
    features = Features(
        keys.tolist(),
        positions.tolist(),
        None if flags & _EMPTY else doc_key,
        Sketch(grams, slots),
        line_keys,
        line_grams,
        whole,
        line_ends,
        site,
        bool(flags & _FLAT),
        pieces,
    )
    return features, end


def _take(view: memoryview, at: int, typecode: str, count: int) -> tuple[array[int], int]:
    values = array(typecode)
    end = at + count * values.itemsize
    if end > len(view):
        raise ArgumentError("packed nshash features are truncated or damaged")
    values.frombytes(view[at:end])
    return values, end

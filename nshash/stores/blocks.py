"""The ``sketch`` table kept a block a record, as the LevelDB and Redis stores keep it.

NSHash keys a cluster member's entries ``cluster << 8 | member << 6 | entry``
(:func:`nshash.members.entry_keys`): the keys that differ only in their low
:data:`BLOCK_BITS` bits are one member, written together once.  A store that
keeps such a block as one record reads a candidate's members as a few records
and writes a new member as one, instead of 33.  The record is a bitmap of the
entries present, then their values (8-byte big-endian signed ints).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from nshash.errors import StoreCorruptError

#: A block: the keys that differ only in these low bits.
BLOCK_BITS = 6
#: A key's index in its block.
IN_BLOCK = (1 << BLOCK_BITS) - 1
BITMAP = struct.Struct(">Q")


def encode_block(entries: dict[int, int]) -> bytes:
    """A block's record: the bitmap of its entries (index in the block -> value), then their values."""
    order = sorted(entries)
    if order and order[-1] == len(order) - 1:  # a member's entries: 0 to 32, all there
        return encode_run([entries[index] for index in order])
    return struct.pack(f">Q{len(order)}q", sum(1 << index for index in order), *[entries[index] for index in order])


def encode_run(values: Sequence[int]) -> bytes:
    """:func:`encode_block` of entries 0 to ``len(values) - 1`` (a whole member), given their values in order."""
    return struct.pack(f">Q{len(values)}q", (1 << len(values)) - 1, *values)


def bitmap_of(raw: bytes, where: str) -> int:
    """A block record's bitmap, checked against its length (:class:`~nshash.StoreCorruptError` if not)."""
    bitmap: int = BITMAP.unpack_from(raw)[0] if len(raw) >= BITMAP.size else -1
    if bitmap < 0 or len(raw) % 8 or (len(raw) - 8) // 8 != bitmap.bit_count():
        raise StoreCorruptError(f"{where}: a sketch block of {len(raw)} bytes does not match its bitmap")
    return bitmap


def decode_block(raw: bytes, where: str) -> dict[int, int]:
    """:func:`encode_block` reversed; a record that does not add up is a :class:`~nshash.StoreCorruptError`."""
    bitmap = bitmap_of(raw, where)
    values = struct.unpack_from(f">{bitmap.bit_count()}q", raw, 8)
    if bitmap == (1 << len(values)) - 1:  # a member's entries: 0 to 32, all there
        return dict(enumerate(values))
    entries: dict[int, int] = {}
    for value in values:
        low = bitmap & -bitmap
        entries[low.bit_length() - 1] = value
        bitmap ^= low
    return entries

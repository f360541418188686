"""The LevelDB store's layout: one key range per table, the format marks, a ``sketch`` block's record.

Keys are a table's prefix byte, then the 8-byte big-endian key; values are
8-byte big-endian signed ints, except in the ``sketch`` table, whose keys come
in blocks of 64 (a cluster member's 33 entries are one) and whose record is a
block: a bitmap of the entries present, then their values (:func:`encode_block`).
"""

from __future__ import annotations

import struct

from nshash.errors import StoreCorruptError
from nshash.stores.leveldb_filter import GROUP_SHIFT, table_salt

SKETCH = "sketch"

# One byte per table in front of an 8-byte big-endian key keeps each table a
# contiguous key range (cheap to count) and never mixes with metadata.
PREFIX = {
    "fp": b"f",
    "parent": b"p",
    "stat": b"s",
    "bkt": b"b",
    "slot": b"o",
    "sig": b"g",
    "sketch": b"K",  # blocks (the formats before: b"k", an entry a record)
    "key": b"u",
    "undo": b"n",
    "ref": b"r",
    "line": b"l",
}
# Mixed into a table's filter entries (the order of TABLES, fixed: saved filters depend on it).
TABLES_IN_ORDER = tuple(PREFIX)
SALT = {table: table_salt(index) for index, table in enumerate(TABLES_IN_ORDER)}
META = b"m"
NEXT_ID = META + b"next_id"
# Outside the meta key range (b"m" + any str), so no meta key can collide with it.
FORMAT_KEY = b"Mformat"
FORMAT = b"nshash.leveldb/3"
# A cleanly closed store whose saved filter is to be trusted (its token under FILTER_KEY).
FORMAT_FILTERED = b"nshash.leveldb/4"
# The formats of an entry a record in the sketch table (converted to blocks on open), unfiltered and filtered.
ENTRY_FORMATS = (b"nshash.leveldb/1", b"nshash.leveldb/2")
ENTRY_SKETCH = b"k"
# A block of the sketch table: the keys that differ only in their low GROUP_SHIFT bits.
IN_BLOCK = (1 << GROUP_SHIFT) - 1
BITMAP = struct.Struct(">Q")
# Blocks converted in one write batch when a store of the formats before is opened.
CONVERT_BATCH = 10_000
FILTER_KEY = b"Mfilter"
FILTER_FILE = "nshash-keys.filter"
# What an older nshash store holds: its tables, its meta, and the options every index records.
OURS = frozenset(PREFIX.values()) | {META, ENTRY_SKETCH}
LEGACY_OPTIONS = META + b"options"
KEY = struct.Struct(">Q")
# Reads of at least SCAN_KEYS keys in one run of 2**BLOCK_SHIFT keys are one scan, and so are reads of
# sketch blocks less than SCAN_KEYS apart (a cluster's members are consecutive blocks).
BLOCK_SHIFT = 8
SCAN_KEYS = 8
WRITE_BUFFER = 64 << 20
VALUE = struct.Struct(">q")


def encode_block(entries: dict[int, int]) -> bytes:
    """A sketch block's record: the bitmap of its entries (index in the block -> value), then their values."""
    order = sorted(entries)
    full = bool(order) and order[-1] == len(order) - 1  # a member's entries: 0 to 32, all there
    bitmap = (1 << len(order)) - 1 if full else sum(1 << index for index in order)
    return struct.pack(f">Q{len(order)}q", bitmap, *[entries[index] for index in order])


def bitmap_of(raw: bytes, where: str) -> int:
    """A sketch block record's bitmap, checked against its length (:class:`~nshash.StoreCorruptError` if not)."""
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

"""The LevelDB store's layout: one key range per table, the format marks, a ``sketch`` block's record.

Keys are a table's prefix byte, then the 8-byte big-endian key; values are
8-byte big-endian signed ints, except in the ``sketch`` table, whose keys come
in blocks of 64 (a cluster member's 33 entries are one) and whose record is a
block (:mod:`nshash.stores.blocks`).
"""

from __future__ import annotations

import struct

from nshash.stores.leveldb_filter import table_salt

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

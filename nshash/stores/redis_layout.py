"""Where an nshash index lives in Redis: key names, buckets, the commands that read them.

Key layout, for an index with prefix ``P``::

    {P}:store          hash: format, buckets, next_id (the id counter), count:<table>
    {P}:meta           hash: get_meta/set_meta (the index options)
    {P}:<table>:<b>    hash: 8-byte big-endian key -> decimal value, for b in 0..buckets-1
    {P}:sketch:<b>     (format 3) hash: 8-byte big-endian block -> the block's record, base64

From format 3 the ``sketch`` table is kept a block a field, as LevelDB keeps
it (:mod:`nshash.stores.blocks`): a cluster member's 33 entries are one field,
so a page reads a candidate's members as a few fields and writes a new member
as one, instead of 33 each way.  The record travels base64-encoded, because
the scripts pass values joined by newlines; its entries are counted in
``count:sketch`` by the client, which knows each block's value before and
after its write (checked, or read under WATCH).

Why buckets: ``WATCH`` works on whole Redis keys.  With one hash per table,
every document written by any client would abort every other client's
transaction (each reads ``fp``), so concurrent crawlers would mostly retry.
With one key per fingerprint, conflicts would be exact but Redis would spend
~89 bytes per entry.  Splitting each table over 4096 hashes makes a conflict
need two documents touching the same bucket at the same moment, and keeps
each bucket small enough (<= 512 entries, ~2M keys per table) for Redis's
compact listpack encoding: ~18 bytes per entry, against ~67 in one big hash
(measured with Redis 7.0, 200k random keys).  Keys are fixed-width binary
(8 bytes, not up to 20 digits); values are decimal so ``redis-cli`` shows ids.
Key counts are kept in ``{P}:store`` by the same MULTI/EXEC that adds keys, so
``count()`` is one command.  All keys share the hash tag ``{P}``, so the
layout stays valid on a Redis Cluster, where a transaction must stay in one
slot (this store itself talks to one server).
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Iterable, Iterator
from typing import Any

from nshash.errors import ArgumentTypeError, StoreCorruptError
from nshash.stores.blocks import BLOCK_BITS, decode_block, encode_block
from nshash.stores.view import TABLES, check_keys, check_table

#: The format of a new index.  Format 1 (still read and written) spread the
#: sketch table's keys like every other table's; format 2 (also) keeps a
#: cluster's stored members in one bucket (see :meth:`Keys.locate`); format 3
#: keeps each member as one field of that bucket (see the module).
FORMAT = b"nshash.redis/3"
FORMATS = (b"nshash.redis/1", b"nshash.redis/2", FORMAT)
#: The name a format 3 index's sketch blocks go by in a view's reads and a client's memory of values.
BLOCKS = "sketch/block"
#: Format 2: ``sketch`` keys that differ only in these low bits share a bucket.
#: They are ``cluster << 8 | member << 6 | part`` (:func:`nshash.members.entry_keys`), so a
#: candidate cluster's members are one HMGET of one bucket instead of ~100 buckets.
_GROUPED_BITS = 8
# Read at the start of every transaction: see HashDBRedis._check_identity.
IDENTITY_FIELDS = ("format", "identity", "next_id", "lost")
#: Buckets per table for a new index; an existing index keeps the number it was created with.
BUCKETS = 4096
_KEY = struct.Struct(">Q")
# Fibonacci hashing: spreads both uniform fingerprints and consecutive cluster ids over the buckets.
_MIX = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1

Command = tuple[Any, ...]

MEMORY_USAGE = """
local total = 0
for _, key in ipairs(KEYS) do total = total + (redis.call('MEMORY', 'USAGE', key) or 0) end
return total
"""


class Keys:
    """The Redis key names of one index."""

    def __init__(self, prefix: str, buckets: int, format: bytes = FORMAT) -> None:
        self.format = format
        self._grouped = format != FORMATS[0]
        #: Whether the sketch table is kept a block a field (format 3).
        self.blocks = format == FORMAT
        self.tag = "{" + prefix + "}"
        self.store = f"{self.tag}:store"
        self.meta = f"{self.tag}:meta"
        self.buckets = buckets
        self.shift = 64 - (buckets.bit_length() - 1)
        # Bucket names by table, made when first used: a page locates ~70 keys, and formatting each
        # name took longer than the rest of locate.
        self._names: dict[str, list[str | None]] = {}

    def locate(self, table: str, key: int) -> tuple[str, bytes]:
        """The Redis hash and field holding ``key`` of ``table`` (a key checked by :func:`check_keys`)."""
        spread = key >> _GROUPED_BITS if table == "sketch" and self._grouped else key
        bucket = ((spread * _MIX) & _MASK64) >> self.shift
        names = self._names.get(table)
        if names is None:
            names = self._names[table] = [None] * self.buckets
        name = names[bucket]
        if name is None:
            name = names[bucket] = f"{self.tag}:{table}:{bucket}"
        return name, _KEY.pack(key)

    def locate_block(self, block: int) -> tuple[str, bytes]:
        """The Redis hash and field holding a sketch ``block`` (format 3): the bucket of its entries in format 2."""
        bucket, _ = self.locate("sketch", block << BLOCK_BITS)  # its entries' bucket (format 3 is grouped)
        return bucket, _KEY.pack(block)

    def every(self) -> list[str]:
        """Every key the index may use."""
        tables = [f"{self.tag}:{table}:{b}" for table in TABLES for b in range(self.buckets)]
        return [self.store, self.meta, *tables]


def plan_reads(keys: Keys, table: str, wanted: Iterable[int]) -> dict[str, list[tuple[int, bytes]]]:
    """Group ``wanted`` keys by the bucket hash that holds them (one HMGET per bucket)."""
    check_table(table)
    wanted = list(wanted)
    check_keys(wanted)
    plan: dict[str, list[tuple[int, bytes]]] = {}
    for key in wanted:
        bucket, field = keys.locate(table, key)
        plan.setdefault(bucket, []).append((key, field))
    return plan


def hmgets(plan: dict[str, list[tuple[int, bytes]]]) -> list[Command]:
    return [("HMGET", bucket, *(field for _, field in fields)) for bucket, fields in plan.items()]


def values_read(plan: dict[str, list[tuple[int, bytes]]], replies: list[Any]) -> Iterator[tuple[int, Any]]:
    """``(key, raw value)`` for every key of ``plan``, from the HMGET replies."""
    for fields, values in zip(plan.values(), replies):
        for (key, _), raw in zip(fields, values):
            yield key, raw


def pack(commands: list[Command]) -> bytes:
    """``commands`` in the Redis protocol (RESP): what redis-py's packer makes, at a fraction of its cost.

    Arguments are the few types the store sends: bytes, str and int.
    """
    out = []
    for command in commands:
        out.append(b"*%d\r\n" % len(command))
        for arg in command:
            if isinstance(arg, bytes):
                data = arg
            elif isinstance(arg, str):
                data = arg.encode()
            elif isinstance(arg, int):
                data = b"%d" % arg
            else:
                raise ArgumentTypeError(f"cannot send {type(arg).__name__} to Redis")
            out.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(out)


def encode_value(entries: dict[int, int]) -> str:
    """A sketch block's field value (format 3): its record, base64 (no newline, never empty)."""
    return base64.b64encode(encode_block(entries)).decode("ascii")


def decode_value(raw: str, where: str) -> dict[int, int]:
    """:func:`encode_value` reversed; anything else is a :class:`~nshash.StoreCorruptError`."""
    try:
        record = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise StoreCorruptError(f"{where}: a sketch block that is not base64 ({raw[:40]!r})") from exc
    return decode_block(record, where)


def typed(table: str, raw: bytes) -> int | str | None:
    """A value as a script's reply carries it (``b""``: absent): a sketch block's text, else an int."""
    if not raw:
        return None
    return raw.decode("ascii") if table == BLOCKS else int(raw)


def decode(raw: Any) -> int | None:
    return None if raw is None else int(raw)


def count_field(table: str) -> str:
    return f"count:{table}"


def int_or_zero(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def pow2(value: int) -> bool:
    return value > 0 and not value & (value - 1)

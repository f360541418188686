"""The two Lua scripts of :class:`~nshash.stores.redis.HashDBRedis`, and how their arguments are built.

Both are generic: they read, compare and write hash fields they are told
about, and know nothing of fingerprints or clusters (the decision stays in
:mod:`nshash.decide`).  They never do arithmetic on keys, values or ids (Lua
5.1 numbers are doubles): those travel as strings and are compared as strings;
only the small per-table key counts are added up in Lua.

``READ``: one atomic HMGET over many buckets, so a read of keys spread over
dozens of buckets is one command to pack and one reply to parse.

``APPLY``: a conditional write.  Checks first (``N``: named fields of a hash hold
these values; ``C``: 8-byte fields of many hashes hold these values, ``""``
meaning absent; ``M``: a counter is at least this); if any fails nothing is
written and the script returns ``{0, named, keyed}`` (the current values of
the ``N``/``M`` fields, and of the ``C`` fields as one string), else it
applies the writes (``S``: HSETs into many hashes, ``D``: HDEL, each adding
the number of fields created or removed to a count field of the store hash;
``R``: any other command on one key) and returns ``{1}``.  Inside MULTI/EXEC
it runs without checks, so that the counts come from what HSET/HDEL really
did instead of a read beforehand.

``C`` and ``S`` take one blob of groups for all their hashes (a page touches
a few dozen buckets): a group is a 9-byte header (the hash's index in KEYS,
4 bytes; the index of its count field in a ``\n``-joined list, 1 byte;
its field count, 4 bytes; all big-endian) and its 8-byte fields; the values
of all groups travel as one ``\n``-joined string.  A page's APPLY is
therefore a handful of arguments besides its KEYS, cheap to pack and to parse.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from typing import Any

from nshash.errors import StoreError
from nshash.stores.redis_layout import Command

#: A C or S group's header: the hash's index in KEYS, its count field's index, its field count.
_HEAD = struct.Struct(">IBI")


class ScriptsGone(StoreError):
    """The server forgot the scripts (restarted, or SCRIPT FLUSH): load them and run the attempt again."""


# Fields of the tables are 8 bytes each (redis_layout): they travel concatenated,
# one argument per bucket, and values travel joined by newlines ("" = absent),
# so a read of 400 fields is a handful of arguments and one string to split.
_SPLIT = """
local function fields(blob)
  local out = {}
  for i = 1, #blob, 8 do out[#out + 1] = string.sub(blob, i, i + 7) end
  return out
end
local function lines(text)
  local out, from = {}, 1
  while true do
    local to = string.find(text, '\\n', from, true)
    if not to then out[#out + 1] = string.sub(text, from); return out end
    out[#out + 1] = string.sub(text, from, to - 1)
    from = to + 1
  end
end
-- The groups of a C or S blob: {key index, count index, fields}.
local function groups(blob)
  local out, at = {}, 1
  while at <= #blob do
    local k1, k2, k3, k4, c, n1, n2, n3, n4 = string.byte(blob, at, at + 8)
    local count = ((n1 * 256 + n2) * 256 + n3) * 256 + n4
    local names, from = {}, at + 9
    for i = 0, count - 1 do names[i + 1] = string.sub(blob, from + 8 * i, from + 8 * i + 7) end
    out[#out + 1] = {((k1 * 256 + k2) * 256 + k3) * 256 + k4, c, names}
    at = from + 8 * count
  end
  return out
end
-- In slices: unpack() takes a few thousand values at most (most buckets a page reads hold one or two).
local function hmget(key, names)
  if #names <= 1000 then return redis.call('HMGET', key, unpack(names)) end
  local out = {}
  for i = 1, #names, 1000 do
    local part = redis.call('HMGET', key, unpack(names, i, math.min(i + 999, #names)))
    for j = 1, #part do out[#out + 1] = part[j] end
  end
  return out
end
"""

READ = (
    _SPLIT
    + """
local out = {}
for i = 1, #KEYS do
  local values = hmget(KEYS[i], fields(ARGV[i]))
  for j = 1, #values do out[#out + 1] = values[j] or '' end
end
return table.concat(out, '\\n')
"""
)

APPLY = (
    _SPLIT
    + """
local at, last, failed, named, keyed = 1, #ARGV, false, {}, {}
while at <= last and (ARGV[at] == 'N' or ARGV[at] == 'C' or ARGV[at] == 'M') do
  local key = KEYS[tonumber(ARGV[at + 1])]  -- (not for C)
  if ARGV[at] == 'M' then
    -- A decimal counter at least this one, compared as digit strings (no Lua numbers).
    local value, least = redis.call('HGET', key, ARGV[at + 2]) or '', ARGV[at + 3]
    if #value < #least or (#value == #least and value < least) then failed = true end
    named[#named + 1] = value
    at = at + 4
  elseif ARGV[at] == 'N' then
    local count = tonumber(ARGV[at + 2])
    local names = {}
    for i = 1, count do names[i] = ARGV[at + 1 + 2 * i] end
    local values = redis.call('HMGET', key, unpack(names))
    for i = 1, count do
      if (values[i] or '') ~= ARGV[at + 2 + 2 * i] then failed = true end
      named[#named + 1] = values[i]
    end
    at = at + 3 + 2 * count
  else
    local expected, n = lines(ARGV[at + 2]), 0
    for _, group in ipairs(groups(ARGV[at + 1])) do
      local values = hmget(KEYS[group[1]], group[3])
      for i = 1, #group[3] do
        local value = values[i] or ''
        n = n + 1
        if value ~= expected[n] then failed = true end
        keyed[#keyed + 1] = value
      end
    end
    at = at + 3
  end
end
if failed then return {0, named, table.concat(keyed, '\\n')} end
local order, counts = {}, {}
local function add(name, change)
  if change ~= 0 then
    if counts[name] == nil then order[#order + 1] = name; counts[name] = 0 end
    counts[name] = counts[name] + change
  end
end
while at <= last do
  local op, key, name = ARGV[at], KEYS[tonumber(ARGV[at + 1])], ARGV[at + 2]
  local change = 0
  if op == 'S' then
    local names, values, n = lines(ARGV[at + 1]), lines(ARGV[at + 3]), 0
    for _, group in ipairs(groups(ARGV[at + 2])) do
      local part, made = group[3], 0
      for i = 1, #part, 500 do
        local items = {}
        for j = i, math.min(i + 499, #part) do
          items[#items + 1] = part[j]; items[#items + 1] = values[n + j]
        end
        made = made + redis.call('HSET', KEYS[group[1]], unpack(items))
      end
      n = n + #part
      add(names[group[2] + 1], made)
    end
    name = ''
    at = at + 4
  elseif op == 'D' then
    local names = fields(ARGV[at + 3])
    for i = 1, #names, 1000 do
      change = change - redis.call('HDEL', key, unpack(names, i, math.min(i + 999, #names)))
    end
    at = at + 4
  else
    local count = tonumber(ARGV[at + 3])
    redis.call(name, key, unpack(ARGV, at + 4, at + 3 + count))
    name = ''
    at = at + 4 + count
  end
  if name ~= '' then add(name, change) end
end
for _, name in ipairs(order) do
  if counts[name] ~= 0 then redis.call('HINCRBY', KEYS[1], name, counts[name]) end
end
return {1}
"""
)

SCRIPTS = (READ, APPLY)
READ_SHA = hashlib.sha1(READ.encode()).hexdigest()
APPLY_SHA = hashlib.sha1(APPLY.encode()).hexdigest()


class Program:
    """The KEYS and ARGV of one ``APPLY`` call; ``KEYS[1]`` is the store hash (where the counts are)."""

    def __init__(self, store_key: str) -> None:
        self._index: dict[str, int] = {store_key: 1}
        self.keys: list[str] = [store_key]
        self.checks: list[Any] = []
        self.writes: list[Any] = []
        # The C and S blobs (see the module's docstring) and their values, built as parts.
        self._checked: list[bytes] = []
        self._expected: list[int | str | None] = []
        self._set: list[bytes] = []
        self._values: list[int | str] = []
        self._counts: dict[str, int] = {}

    def _key(self, key: str) -> int:
        index = self._index.get(key)
        if index is None:
            self.keys.append(key)
            index = self._index[key] = len(self.keys)
        return index

    def check_named(self, key: str, names: list[str], expected: list[Any]) -> None:
        """Write only if the fields ``names`` of ``key`` hold ``expected`` (``""``: absent)."""
        self.checks += ["N", self._key(key), len(names)]
        for name, value in zip(names, expected):
            self.checks += [name, value]

    def check_at_least(self, key: str, name: str, least: int) -> None:
        """Write only if the decimal counter in field ``name`` of ``key`` is at least ``least`` (absent: 0)."""
        self.checks += ["M", self._key(key), name, str(least) if least else ""]

    def check(self, key: str, fields: list[bytes], expected: Sequence[int | str | None]) -> None:
        """Write only if the 8-byte ``fields`` of ``key`` hold ``expected`` (``None``: absent)."""
        self._checked += [_HEAD.pack(self._key(key), 0, len(fields)), *fields]
        self._expected += expected

    def hset(self, key: str, fields: list[bytes], values: Sequence[int | str], count: str) -> None:
        """HSET the 8-byte ``fields`` to ``values``, adding the fields created to ``count``."""
        counts = self._counts
        at = counts.get(count)
        if at is None:
            at = counts[count] = len(counts)
            if at > 255 or "\n" in count:
                raise StoreError(f"count field {count!r}: at most 256 names without newlines")
        self._set += [_HEAD.pack(self._key(key), at, len(fields)), *fields]
        self._values += values

    def hdel(self, key: str, fields: list[bytes], count: str) -> None:
        """HDEL the 8-byte ``fields``, taking the fields removed from ``count``."""
        self.writes += ["D", self._key(key), count, b"".join(fields)]

    def command(self, command: Command) -> None:
        """Run ``(NAME, key, *args)`` as well (a write on one key)."""
        name, key, *args = command
        self.writes += ["R", self._key(key), name, len(args), *args]

    @property
    def empty(self) -> bool:
        return not (self.writes or self._set)

    def call(self) -> Command:
        checks = [*self.checks, "C", b"".join(self._checked), _lines(self._expected)] if self._checked else self.checks
        writes = self.writes
        if self._set:
            writes = ["S", "\n".join(self._counts), b"".join(self._set), _lines(self._values), *writes]
        return ("EVALSHA", APPLY_SHA, len(self.keys), *self.keys, *checks, *writes)


def write_fields(program: Program, fields: Iterable[tuple[str, bytes, int | str | None]], count: str) -> None:
    """``(bucket, field, value)`` as one HSET per bucket (``None``: an HDEL), the fields made or gone in ``count``."""
    sets: dict[str, tuple[list[bytes], list[int | str]]] = {}
    gone: dict[str, list[bytes]] = {}
    for bucket, name, value in fields:
        if value is None:
            gone.setdefault(bucket, []).append(name)
        else:
            names, values = sets.setdefault(bucket, ([], []))
            names.append(name)
            values.append(value)
    for bucket, (names, values) in sets.items():
        program.hset(bucket, names, values, count)
    for bucket, names in gone.items():
        program.hdel(bucket, names, count)


def _lines(values: Sequence[int | str | None]) -> str:
    return "\n".join("" if value is None else str(value) for value in values)


def read_command(plan: dict[str, list[tuple[int, bytes]]]) -> Command:
    """One ``READ`` of every bucket of ``plan`` (see :func:`~nshash.stores.redis_layout.plan_reads`)."""
    blobs = [b"".join(field for _, field in group) for group in plan.values()]
    return ("EVALSHA", READ_SHA, len(plan), *plan, *blobs)


def read_values(reply: bytes) -> list[int | None]:
    """The values a ``READ`` (or a failed ``APPLY``'s keyed checks) found, in the order asked."""
    return [int(raw) if raw else None for raw in reply.split(b"\n")]


def read_raws(reply: bytes) -> list[bytes]:
    """:func:`read_values` as the server sent them (``b""``: absent)."""
    return reply.split(b"\n")

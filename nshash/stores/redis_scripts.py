"""The two Lua scripts of :class:`~nshash.stores.redis.HashDBRedis`, and how their arguments are built.

Both are generic: they read, compare and write hash fields they are told
about, and know nothing of fingerprints or clusters (the decision stays in
:mod:`nshash.decide`).  They never do arithmetic on keys, values or ids (Lua
5.1 numbers are doubles): those travel as strings and are compared as strings;
only the small per-table key counts are added up in Lua.

``READ``: one atomic HMGET over many buckets, so a read of keys spread over
dozens of buckets is one command to pack and one reply to parse.

``APPLY``: a conditional write.  Checks first (``N``: named fields of a hash hold
these values; ``C``: 8-byte fields hold these values, ``""`` meaning absent;
``M``: a counter is at least this); if any fails nothing is written and the
script returns ``{0, named, keyed}`` (the current values of the ``N``/``M``
fields, and of the ``C`` fields as one string), else it applies the writes
(``S``: HSET, ``D``: HDEL, each adding the number of fields created or
removed to a count field of the store hash; ``R``: any other command on one
key) and returns ``{1}``.  Inside MULTI/EXEC it runs without checks, so that
the counts come from what HSET/HDEL really did instead of a read beforehand.
"""

from __future__ import annotations

import hashlib
from typing import Any

from nshash.errors import StoreError
from nshash.stores.redis_layout import Command


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
-- In slices: unpack() takes a few thousand values at most.
local function hmget(key, names)
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
  local key = KEYS[tonumber(ARGV[at + 1])]
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
    local values = hmget(key, fields(ARGV[at + 2]))
    local expected = lines(ARGV[at + 3])
    for i = 1, #values do
      local value = values[i] or ''
      if value ~= expected[i] then failed = true end
      keyed[#keyed + 1] = value
    end
    at = at + 4
  end
end
if failed then return {0, named, table.concat(keyed, '\\n')} end
local order, counts = {}, {}
while at <= last do
  local op, key, name = ARGV[at], KEYS[tonumber(ARGV[at + 1])], ARGV[at + 2]
  local change = 0
  if op == 'S' then
    local names, values = fields(ARGV[at + 3]), lines(ARGV[at + 4])
    for i = 1, #names, 500 do
      local items = {}
      for j = i, math.min(i + 499, #names) do items[#items + 1] = names[j]; items[#items + 1] = values[j] end
      change = change + redis.call('HSET', key, unpack(items))
    end
    at = at + 5
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
  if name ~= '' and change ~= 0 then
    if counts[name] == nil then order[#order + 1] = name; counts[name] = 0 end
    counts[name] = counts[name] + change
  end
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

    def check(self, key: str, fields: list[bytes], expected: list[int | None]) -> None:
        """Write only if the 8-byte ``fields`` of ``key`` hold ``expected`` (``None``: absent)."""
        self.checks += ["C", self._key(key), b"".join(fields), _lines(expected)]

    def hset(self, key: str, fields: list[bytes], values: list[int], count: str) -> None:
        """HSET the 8-byte ``fields`` to ``values``, adding the fields created to ``count``."""
        self.writes += ["S", self._key(key), count, b"".join(fields), _lines(values)]

    def hdel(self, key: str, fields: list[bytes], count: str) -> None:
        """HDEL the 8-byte ``fields``, taking the fields removed from ``count``."""
        self.writes += ["D", self._key(key), count, b"".join(fields)]

    def command(self, command: Command) -> None:
        """Run ``(NAME, key, *args)`` as well (a write on one key)."""
        name, key, *args = command
        self.writes += ["R", self._key(key), name, len(args), *args]

    @property
    def empty(self) -> bool:
        return not self.writes

    def call(self) -> Command:
        return ("EVALSHA", APPLY_SHA, len(self.keys), *self.keys, *self.checks, *self.writes)


def _lines(values: list[int | None] | list[int]) -> str:
    return "\n".join("" if value is None else str(value) for value in values)


def read_command(plan: dict[str, list[tuple[int, bytes]]]) -> Command:
    """One ``READ`` of every bucket of ``plan`` (see :func:`~nshash.stores.redis_layout.plan_reads`)."""
    blobs = [b"".join(field for _, field in group) for group in plan.values()]
    return ("EVALSHA", READ_SHA, len(plan), *plan, *blobs)


def read_values(reply: bytes) -> list[int | None]:
    """The values a ``READ`` (or a failed ``APPLY``'s keyed checks) found, in the order asked."""
    return [int(raw) if raw else None for raw in reply.split(b"\n")]

"""The two Lua scripts of :class:`~nshash.stores.redis.HashDBRedis`, and how their arguments are built.

Both are generic: they read, compare and write hash fields they are told
about, and know nothing of fingerprints or clusters (the decision stays in
:mod:`nshash.decide`).  They never do arithmetic on keys, values or ids (Lua
5.1 numbers are doubles): those travel as strings and are compared as strings;
only the small per-table key counts are added up in Lua.

``READ``: one atomic HMGET over many buckets, so a read of keys spread over
dozens of buckets is one command to pack and one reply to parse.

``APPLY``: a conditional write.  Checks first (``C`` groups: these fields of
this hash hold these values, ``""`` meaning absent); if any differs nothing
is written and the script returns ``{0, values}`` (the checked fields' current
values, HMGET-shaped, one group per check), else it applies the writes
(``S``: HSET, ``D``: HDEL, each adding the number of fields created or
removed to a count field of the store hash; ``R``: any other command on one
key) and returns ``{1}``.  Inside MULTI/EXEC it runs without checks, so that
the counts come from what HSET/HDEL really did instead of a read beforehand.
"""

from __future__ import annotations

import hashlib
from typing import Any

from nshash.stores.redis_layout import Command

READ = """
local out, at = {}, #KEYS + 1
for i = 1, #KEYS do
  local count = tonumber(ARGV[i])
  out[i] = redis.call('HMGET', KEYS[i], unpack(ARGV, at, at + count - 1))
  at = at + count
end
return out
"""

APPLY = """
local at, last, failed, checked = 1, #ARGV, false, {}
while at <= last and ARGV[at] == 'C' do
  local count = tonumber(ARGV[at + 2])
  local fields = {}
  for i = 1, count do fields[i] = ARGV[at + 1 + 2 * i] end
  local values = redis.call('HMGET', KEYS[tonumber(ARGV[at + 1])], unpack(fields))
  for i = 1, count do
    if (values[i] or '') ~= ARGV[at + 2 + 2 * i] then failed = true end
  end
  checked[#checked + 1] = values
  at = at + 3 + 2 * count
end
if failed then return {0, checked} end
local order, counts = {}, {}
while at <= last do
  local op, key, count, name = ARGV[at], KEYS[tonumber(ARGV[at + 1])], tonumber(ARGV[at + 2]), ARGV[at + 3]
  local change = 0
  if op == 'S' then
    change = redis.call('HSET', key, unpack(ARGV, at + 4, at + 3 + 2 * count))
    at = at + 4 + 2 * count
  elseif op == 'D' then
    change = -redis.call('HDEL', key, unpack(ARGV, at + 4, at + 3 + count))
    at = at + 4 + count
  else
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

    def check(self, key: str, fields: list[Any], expected: list[Any]) -> None:
        """Write only if ``fields`` of ``key`` hold ``expected`` (``b""`` or ``""``: absent)."""
        self.checks += ["C", self._key(key), len(fields)]
        for field, value in zip(fields, expected):
            self.checks += [field, value]

    def hset(self, key: str, pairs: list[Any], count: str = "") -> None:
        """HSET ``pairs`` (field, value, field, value, ...), adding the fields created to ``count``."""
        self.writes += ["S", self._key(key), len(pairs) // 2, count, *pairs]

    def hdel(self, key: str, fields: list[Any], count: str = "") -> None:
        """HDEL ``fields``, taking the fields removed from ``count``."""
        self.writes += ["D", self._key(key), len(fields), count, *fields]

    def command(self, command: Command) -> None:
        """Run ``(NAME, key, *args)`` as well (a write on one key)."""
        name, key, *args = command
        self.writes += ["R", self._key(key), len(args), name, *args]

    @property
    def empty(self) -> bool:
        return not self.writes

    def call(self) -> Command:
        return ("EVALSHA", APPLY_SHA, len(self.keys), *self.keys, *self.checks, *self.writes)


def read_command(plan: dict[str, list[tuple[int, bytes]]]) -> Command:
    """One ``READ`` of every bucket of ``plan`` (see :func:`~nshash.stores.redis_layout.plan_reads`)."""
    sizes = [len(fields) for fields in plan.values()]
    fields = [field for group in plan.values() for _, field in group]
    return ("EVALSHA", READ_SHA, len(plan), *plan, *sizes, *fields)

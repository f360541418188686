"""The views a :class:`~nshash.stores.redis.HashDBRedis` transaction runs on.

:class:`GuessView` is a transaction's first attempt: it sends nothing until
the end, guessing that every key read holds what this client last saw there
(absent if it saw nothing) and that the id counter is where it last saw it,
then commits with one conditional write (the ``APPLY`` script) that checks
the guess.  A new page (nothing found), and any page whose keys this client
remembers, therefore costs one round trip.  When the guess was wrong, the
same reply holds the real values, read under WATCH, and :class:`RedisView`
decides again on them: WATCHed reads and one MULTI/EXEC of writes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nshash.errors import StoreError
from nshash.members import CLUSTER_SHIFT, MEMBER_SHIFT, SKETCH
from nshash.stores.blocks import BLOCK_BITS
from nshash.stores.redis_blocks import SketchBlocks
from nshash.stores.redis_layout import (
    BLOCKS,
    IDENTITY_FIELDS,
    Command,
    Keys,
    count_field,
    plan_reads,
    typed,
)
from nshash.stores.redis_scripts import Program, read_command, read_raws, read_values, write_fields
from nshash.stores.view import StoreView, ViewBase, check_items, check_keys, check_table

if TYPE_CHECKING:
    from nshash.stores.redis import HashDBRedis


#: The table whose values, once written, NSHash never changes or deletes: a member's sketch words.
WRITE_ONCE = SKETCH
_ENTRY_MASK = (1 << MEMBER_SHIFT) - 1
_MEMBER_STEP = 1 << MEMBER_SHIFT
_MEMBER_MASK = (1 << CLUSTER_SHIFT) - _MEMBER_STEP
# A block's member number (format 3): a block is ``cluster << 2 | member``.
_BLOCK_MEMBER = (1 << (CLUSTER_SHIFT - BLOCK_BITS)) - 1


class NotGuessable(StoreError):
    """A first attempt needed something a guess cannot answer (the metadata); decide on real reads."""


@dataclass
class Seed:
    """What a wrong guess found: values read atomically under WATCH, for the next attempt."""

    values: dict[tuple[str, int], int | str | None] = field(default_factory=dict)
    watched: set[str] = field(default_factory=set)
    #: Whether every key held what was guessed (so only the id counter or the identity was wrong).
    as_guessed: bool = True


def remember(store: HashDBRedis, values: Iterable[tuple[tuple[str, int], int | str | None]]) -> None:
    """Note what keys hold (``None``: absent), for the store's next guesses (:attr:`HashDBRedis.remember`)."""
    known = store._known
    for place, value in values:
        if value is None:
            known.pop(place, None)
        else:
            known[place] = value
    if len(known) > store.remember:
        # Forget the oldest quarter at once (dicts keep insertion order): cheap per write.
        for place in list(itertools.islice(known, len(known) - store.remember * 3 // 4)):
            del known[place]


def remember_writes(
    store: HashDBRedis, writes: dict[str, dict[int, int | None]], blocks: dict[int, str | None]
) -> None:
    for table, items in writes.items():
        if not (blocks and table == SKETCH):
            remember(store, (((table, key), value) for key, value in items.items()))
    remember(store, (((BLOCKS, block), raw) for block, raw in blocks.items()))


def _add_writes(
    program: Program, keys: Keys, writes: dict[str, dict[int, int | None]], meta: dict[str, str], extras: list[Command]
) -> None:
    """The buffered writes as ``APPLY`` operations: one HSET/HDEL per bucket, counts kept by the script."""
    for table, items in writes.items():
        placed = ((*keys.locate(table, key), value) for key, value in items.items())
        write_fields(program, placed, count_field(table))
    if meta:
        program.command(("HSET", keys.meta, *(part for item in meta.items() for part in item)))
    for command in extras:
        program.command(command)


class _Buffer(SketchBlocks, ViewBase):
    """Writes buffered until commit, and the checks every view applies."""

    reads_through = True  # NSHash's C decision reads through this view (nshash.native.ReadThrough)

    def __init__(self, store: HashDBRedis) -> None:
        self._store = store
        self._keys = store._keys
        self._values: dict[tuple[str, int], int | None] = {}  # what func sees: read, guessed or written
        self._writes: dict[str, dict[int, int | None]] = {}  # None: delete
        self._meta_values: dict[str, str | None] = {}
        self._meta_writes: dict[str, str] = {}
        self._init_blocks(self._keys)

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        check_table(table)
        checked = list(check_items(items))  # a bad key is rejected now, not at commit
        if table == SKETCH and self._blocked:  # a block is written whole: its entries first
            self._load((key for key, _ in checked), writing=True)
        writes = self._writes.setdefault(table, {})
        for key, value in checked:
            writes[key] = self._values[table, key] = int(value)

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        check_table(table)
        check_keys(keys)
        if table == SKETCH and self._blocked:
            self._load(keys, writing=True)
        writes = self._writes.setdefault(table, {})
        for key in keys:
            writes[key] = self._values[table, key] = None

    def _add_writes(self, program: Program, extras: list[Command]) -> None:
        writes = self._writes
        if self._blocked and SKETCH in writes:
            self._add_block_writes(program)
            writes = {table: items for table, items in writes.items() if table != SKETCH}
        _add_writes(program, self._keys, writes, self._meta_writes, extras)

    def _remember_writes(self) -> None:
        remember_writes(self._store, self._writes, self._blocks_out if self._blocked else {})

    def set_meta(self, key: str, value: str) -> None:
        self._meta_writes[key] = self._meta_values[key] = value

    def count(self, table: str) -> int:
        """Keys in ``table`` as committed (like LevelDB's view, pending writes are not counted)."""
        return self._store.count(table)

    def _program(self) -> Program:
        program = Program(self._keys.store)
        if self._blocked:
            self._blocks_out = self._block_changes()
        self._add_writes(program, self._store._commit_extras())
        return program


class GuessView(_Buffer):
    """A first attempt on a guess: every key holds what this client last read or wrote there, else nothing.

    The id counter is guessed where this client last saw it.  With one client
    the guess is always right as long as the client remembers enough
    (:attr:`HashDBRedis.remember`); with several, a key another client
    changed makes the commit fail its check and the real values come back.
    """

    def __init__(self, store: HashDBRedis) -> None:
        super().__init__(store)
        # bucket -> (table, key, field, value guessed) read there
        self._reads: dict[str, list[tuple[str, int, bytes, int | str | None]]] = {}
        self._counter = store._high_water
        self._ids = 0
        # Members (their first sketch key; format 3: their block) whose absence the commit checks or that check implies.
        self._absent: set[int] = set()
        self._checked: set[int] = set()  # format 3: the blocks the commit checks

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        check_table(table)
        if table == SKETCH and self._blocked:
            return self._get_sketch(keys)
        check_keys(keys)
        values = self._values
        known: dict[tuple[str, int], Any] = self._store._known  # ints: only BLOCKS' values are str
        new = []
        for key in keys:
            if (table, key) not in values:
                values[table, key] = known.get((table, key))
                new.append(key)
        if table == WRITE_ONCE:
            new = self._sketch_checks(new)
        for key in new:
            bucket, name = self._keys.locate(table, key)
            self._reads.setdefault(bucket, []).append((table, key, name, values[table, key]))
        return [values[table, key] for key in keys]

    def _sketch_checks(self, keys: list[int]) -> list[int]:
        """The sketch words among ``keys`` whose guess the commit must check.

        NSHash writes a member's words once, all in one commit, never changes
        or deletes them, and adds member m only after members 0..m-1
        (:func:`~nshash.members.add_member`).  So a word this client saw cannot
        have changed, and a member guessed absent is absent if its first word
        is, which holds if the member before it is absent: per cluster, one
        check proves a run of absent members (most of what a page reads).
        """
        values, absent = self._values, self._absent
        out = []
        for key in sorted(keys):
            if values[WRITE_ONCE, key] is not None:
                continue
            base = key & ~_ENTRY_MASK
            if key & _ENTRY_MASK:
                if base not in absent:
                    out.append(key)
            elif base & _MEMBER_MASK and (base - _MEMBER_STEP) in absent:
                absent.add(base)
            else:
                out.append(key)
                absent.add(base)
        return out

    def _load_blocks(self, blocks: list[int]) -> None:
        """Guess each block is what this client last saw, else absent: as :meth:`_sketch_checks`, a block at a time."""
        absent = self._absent
        for block in sorted(blocks):
            if self._set_remembered(block) is not None:
                continue
            if block & _BLOCK_MEMBER and (block - 1) in absent:
                absent.add(block)
                continue
            absent.add(block)
            self._check_block(block)

    def _read_absent(self, block: int) -> None:
        self._check_block(block)

    def _check_block(self, block: int) -> None:
        if block not in self._checked:
            self._checked.add(block)
            bucket, name = self._keys.locate_block(block)
            self._reads.setdefault(bucket, []).append((BLOCKS, block, name, self._raws[block]))

    def get_meta(self, key: str) -> str | None:
        raise NotGuessable("metadata is read on real values")

    def allocate_id(self) -> int:
        self._ids += 1
        return self._counter + self._ids

    def commit(self) -> Seed | None:
        """Write if the guess holds (``None``); else the values found instead, read under WATCH."""
        store = self._store
        program = Program(self._keys.store)
        program.check_named(self._keys.store, ["format", "identity", "lost"], [self._keys.format, store._identity, ""])
        if self._ids:  # the ids guessed are free only if nobody took ids since
            program.check_named(self._keys.store, ["next_id"], [str(self._counter) if self._counter else ""])
            program.command(("HSET", self._keys.store, "next_id", self._counter + self._ids))
        else:  # other clients taking ids changes nothing here; a counter gone back means lost data
            program.check_at_least(self._keys.store, "next_id", self._counter)
        if self._blocked:
            # A block is written whole, on the value guessed for it: that must be the one there.
            self._blocks_out = self._block_changes()
            for block in self._blocks_out:
                self._check_block(block)
        for bucket, reads in self._reads.items():
            program.check(bucket, [name for _, _, name, _ in reads], [value for _, _, _, value in reads])
        self._add_writes(program, store._commit_extras())
        if not self._reads and program.empty:
            return None
        watch: list[Command] = [("WATCH", *self._reads)] if self._reads else []
        try:
            reply = store._roundtrip([*watch, program.call()])[-1]
            if reply[0] == 1:
                if self._ids:
                    store._check_new_id(self._counter + self._ids)
                store._stale_watch = store._stale_watch or bool(watch)
                self._remember_writes()
                return None
            format_, identity, lost, counter = reply[1]
            store._check_identity([format_, identity, counter, lost])
        except BaseException:
            store._stale_watch = store._stale_watch or bool(watch)
            raise
        seed = Seed(watched=set(self._reads))
        guessed = (read for group in self._reads.values() for read in group)
        for (table, key, _, guess), raw in zip(guessed, read_raws(reply[2])):
            seed.values[table, key] = value = typed(table, raw)
            seed.as_guessed = seed.as_guessed and value == guess
        remember(store, seed.values.items())
        return seed


def run_guessed(store: HashDBRedis, func: Callable[[StoreView], Any]) -> tuple[bool, Any, Seed | None]:
    """Run ``func`` on a guess: ``(True, result, None)`` if committed, else the real values found (if any)."""
    first = GuessView(store)
    try:
        result = func(first)
    except Exception:
        # Found in a guessed state, maybe not in the real one: decide on real reads.
        return False, None, None
    seed = first.commit()
    right = seed is None
    store._guess_rate += (right - store._guess_rate) / 8
    if right:
        store.guessed_right += 1
        return True, result, None
    store.guessed_wrong += 1
    return False, None, seed


class RedisView(_Buffer):
    """What ``func`` sees inside :meth:`HashDBRedis.transaction` once a guess failed.

    Reads WATCH the buckets they read (a concurrent change then aborts the
    commit) and are cached; writes are buffered and sent in one MULTI/EXEC.
    Every transaction that read something ends with EXEC, so each one,
    read-only or not, is serializable.  ``seed``: values a failed guess read
    under WATCH.
    """

    def __init__(self, store: HashDBRedis, seed: Seed | None = None, *, predict: bool = True) -> None:
        super().__init__(store)
        self._watched: set[str] = set()
        self._checked = False
        # The id counter as read with the identity: new ids are taken from it
        # in the commit, which checks it did not move (no round trip of their own).
        self._counter: int | None = None
        self._predict = predict
        self._ids = 0
        #: Whether the commit failed because another client took ids meanwhile.
        self.id_conflict = False
        self._assumed: list[int] = []  # format 3: blocks written on a value assumed (see _assume_blocks)
        if seed is not None:
            for place, value in seed.values.items():
                if place[0] == BLOCKS:
                    self._set_block(place[1], value)
                else:
                    self._values[place] = value if isinstance(value, int) else None
            self._watched |= seed.watched
            self._checked = True  # the guess's reply was checked
            self._counter = store._high_water

    @property
    def watching(self) -> bool:
        return bool(self._watched)

    def _call(self, commands: list[Command]) -> list[Any]:
        if not self._checked:
            # Every transaction checks that the index is still the one this
            # client opened, and no older: a server restarted without
            # persistence, flushed or restored from an older snapshot would
            # otherwise hand out ids again.
            commands = [("HMGET", self._keys.store, *IDENTITY_FIELDS), *commands]
        replies = self._store._roundtrip(commands)
        if not self._checked:
            self._checked = True
            self._store._check_identity(replies[0])
            self._counter = self._store._high_water
            replies = replies[1:]
        return replies

    def _watch(self, buckets: Iterable[str]) -> list[Command]:
        new = [bucket for bucket in buckets if bucket not in self._watched]
        self._watched.update(new)
        return [("WATCH", *new)] if new else []

    def _fetch(self, table: str, keys: Iterable[int]) -> None:
        plan = plan_reads(self._keys, table, keys)
        watch = self._watch(plan)
        # One command and one string back, however many buckets and fields:
        # redis-py's cost is per argument and per reply element.
        values = read_values(self._call([*watch, read_command(plan)])[-1])
        read = [(table, key) for group in plan.values() for key, _ in group]
        remember(self._store, zip(read, values))
        for place, value in zip(read, values):
            self._values.setdefault(place, value)

    def _assume_blocks(self, blocks: list[int]) -> None:
        """Blocks written unread (a new cluster's first member, mostly): each is what this client last saw there,
        else absent, which the commit checks instead of a round trip now (it remembers the real value if not)."""
        for block in blocks:
            self._set_remembered(block)
            self._assumed.append(block)

    def _load_blocks(self, blocks: list[int]) -> None:
        plan: dict[str, list[tuple[int, bytes]]] = {}
        for block in blocks:
            bucket, name = self._keys.locate_block(block)
            plan.setdefault(bucket, []).append((block, name))
        watch = self._watch(plan)
        raws = read_raws(self._call([*watch, read_command(plan)])[-1])
        read = [block for group in plan.values() for block, _ in group]
        found = [((BLOCKS, block), typed(BLOCKS, raw)) for block, raw in zip(read, raws)]
        remember(self._store, found)
        for (_, block), value in found:
            self._set_block(block, value)

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        if table == SKETCH and self._blocked:
            check_table(table)
            return self._get_sketch(keys)
        missing = [key for key in dict.fromkeys(keys) if (table, key) not in self._values]
        if missing:
            self._fetch(table, missing)
        return [self._values[table, key] for key in keys]

    def get_meta(self, key: str) -> str | None:
        if key not in self._meta_values:
            watch = self._watch([self._keys.meta])
            raw = self._call([*watch, ("HGET", self._keys.meta, key)])[-1]
            self._meta_values[key] = None if raw is None else raw.decode()
        return self._meta_values[key]

    @property
    def took_from_counter(self) -> bool:
        """Whether the commit took ids from the counter read (and checked that it had not moved)."""
        return bool(self._ids)

    def allocate_id(self) -> int:
        if self._predict and self._counter is not None:
            self._ids += 1
            return self._counter + self._ids
        # Not watched and not part of the MULTI: HINCRBY is atomic by itself,
        # and an id taken by an attempt that is retried is simply never used.
        new_id = int(self._call([("HINCRBY", self._keys.store, "next_id", 1)])[0])
        self._store._check_new_id(new_id)
        return new_id

    def commit(self) -> bool:
        """Send the buffered writes in one MULTI/EXEC; ``False`` if a watched key changed."""
        program = self._program()
        assumed = [block for block in self._assumed if block in self._blocks_out]
        for block in assumed:
            bucket, name = self._keys.locate_block(block)
            program.check(bucket, [name], [self._raws[block]])
        counter = ""
        if self._ids and self._counter is not None:
            counter = str(self._counter) if self._counter else ""
            program.check_named(self._keys.store, ["next_id"], [counter])
            program.command(("HSET", self._keys.store, "next_id", self._counter + self._ids))
        if program.empty and not self.watching:
            return True
        # Also when there is nothing to write: an empty MULTI/EXEC checks that
        # no watched key changed between the reads, so what func saw (and
        # returns) was one consistent state, not a mix of before and after
        # another client's commit.  The writes go through APPLY, which counts
        # the keys HSET really created (no read of blind writes beforehand).
        writes = [] if program.empty else [program.call()]
        result = self._call([("MULTI",), *writes, ("EXEC",)])[-1]
        if result is None:
            return False
        self._store._raise_first_error(result)
        if writes and result[0][0] == 0:
            _, named, keyed = result[0]
            if assumed:  # the next attempt writes them on what is there
                remember(
                    self._store,
                    [((BLOCKS, block), typed(BLOCKS, raw)) for block, raw in zip(assumed, read_raws(keyed))],
                )
            self.id_conflict = bool(named) and (named[0] or b"").decode() != counter
            return False
        if self._ids and self._counter is not None:
            self._store._check_new_id(self._counter + self._ids)
        self._remember_writes()
        return True

"""The LevelDB store's view in a transaction (:class:`LeveldbTransaction`)."""

from __future__ import annotations

import contextlib
import struct
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from nshash.members import ENTRIES
from nshash.stores.blocks import IN_BLOCK, decode_block, encode_block, encode_run
from nshash.stores.leveldb_filter import GROUP_SHIFT, MIX
from nshash.stores.leveldb_layout import (
    BLOCK_SHIFT,
    KEY,
    META,
    NEXT_ID,
    PREFIX,
    SALT,
    SCAN_KEYS,
    SKETCH,
    VALUE,
)
from nshash.stores.view import MAX_KEY, ViewBase, check_items, check_keys, check_table

if TYPE_CHECKING:
    from nshash.stores.leveldb import HashDBLeveldb


class LeveldbTransaction(ViewBase):
    """The store's view in a transaction: reads through to LevelDB, buffers writes, commits them as one batch."""

    reads_through = True  # NSHash's C decision reads through this view (nshash.native.ReadThrough)

    def __init__(self, store: HashDBLeveldb) -> None:
        self._store = store
        self._pending: dict[bytes, bytes] = {}
        self._deleted: set[bytes] = set()
        # The same writes (None: deleted) by table and int key, for reads: a page's reads in a chunk's
        # transaction looked each key up packed, and the packing took longer than the lookups.
        self._changed: dict[str, dict[int, int | None]] = {}
        self._next_id = store._next_id
        #: Whether this transaction wrote what the store's kept cache does not hold (it is then dropped).
        self.uncached = False

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        check_table(table)
        check_keys(keys)
        return self.get_cached(table, keys)

    def get_cached(self, table: str, keys: Sequence[int]) -> list[int | None]:
        """:meth:`get_many` for the kept cache: the C decision asks, so table and keys are not checked again."""
        if table == SKETCH:
            blocks = self._blocks(list(dict.fromkeys([key >> GROUP_SHIFT for key in keys])))
            return [blocks[key >> GROUP_SHIFT].get(key & IN_BLOCK) for key in keys]
        prefix, salt = PREFIX[table], SALT[table]
        # A cluster's members come as runs of keys in one block; fingerprints are scattered.
        if len(keys) >= SCAN_KEYS and keys[0] >> BLOCK_SHIFT == keys[SCAN_KEYS - 1] >> BLOCK_SHIFT:
            found = self._read_many(prefix, salt, keys)
            values = [found.get(key) for key in keys]
        else:
            # Keys the filter rules out are not looked up; written ones (even pending) are in it.
            maybe = self._store._filter.may_contain(salt, keys)
            if not any(maybe):  # a new page's keys, mostly
                values = [None] * len(keys)
            else:
                get, pack, unpack = self._store._db.get, KEY.pack, VALUE.unpack
                values = [
                    None if (raw := get(prefix + pack(key)) if there else None) is None else unpack(raw)[0]
                    for key, there in zip(keys, maybe)
                ]
        changed = self._changed.get(table)
        if changed:  # this transaction's writes and deletions over what is stored
            values = [changed.get(key, value) for key, value in zip(keys, values)]
        return values

    def _blocks(self, blocks: Sequence[int]) -> dict[int, dict[int, int]]:
        """The entries of each sketch block (index in the block -> value), this transaction's writes included.

        The blocks the filter lets through are read with one scan when they
        lie close together (a cluster's members are consecutive blocks), else
        one lookup each.
        """
        prefix, pack, pending, deleted = PREFIX[SKETCH], KEY.pack, self._pending, self._deleted
        where = self._store.describe()
        found: dict[int, dict[int, int]] = {}
        unread: list[int] = []
        for block in blocks:
            raw_key = prefix + pack(block)
            raw = pending.get(raw_key)
            if raw is not None:
                found[block] = decode_block(raw, where)
            else:
                found[block] = {}
                if raw_key not in deleted:
                    unread.append(block)
        if not unread:
            return found
        maybe = self._store._filter.may_contain(SALT[SKETCH], [block << GROUP_SHIFT for block in unread])
        wanted = [block for block, there in zip(unread, maybe) if there]
        db = self._store._db
        if len(wanted) > 1 and max(wanted) - min(wanted) < SCAN_KEYS:
            start, stop = prefix + pack(min(wanted)), prefix + pack(max(wanted) + 1)
            wanted_set = set(wanted)
            for raw_key, raw in db.iterator(start=start, stop=stop):
                block = int.from_bytes(raw_key[1:], "big")
                if block in wanted_set:
                    found[block] = decode_block(raw, where)
        else:
            for block in wanted:
                raw = db.get(prefix + pack(block))
                if raw is not None:
                    found[block] = decode_block(raw, where)
        return found

    def _new_members(self, pairs: list[tuple[int, int]]) -> bool:
        """Buffer ``pairs`` as new whole members, one record each (what a page that becomes a member writes).

        False, with nothing buffered, unless every block ``pairs`` touch gets all
        its member's entries and holds nothing yet (not buffered, and ruled out by
        the filter): :meth:`_write_blocks` then merges them into what is there.
        The record is :func:`~nshash.stores.blocks.encode_run`'s.
        """
        if not pairs or len(pairs) % ENTRIES:
            return False
        pairs = sorted(pairs)
        firsts = pairs[::ENTRIES]
        # Keys are distinct: a run from ``base`` to ``base + ENTRIES - 1`` is that member's every entry.
        last = ENTRIES - 1
        if any(key & IN_BLOCK or pairs[at * ENTRIES + last][0] != key + last for at, (key, _) in enumerate(firsts)):
            return False
        groups = [key for key, _ in firsts]  # each block's first key: what the filter holds for it
        raw_keys = [PREFIX[SKETCH] + KEY.pack(key >> GROUP_SHIFT) for key in groups]
        if any(raw_key in self._pending or raw_key in self._deleted for raw_key in raw_keys):
            return False
        filter_ = self._store._filter
        if any(filter_.may_contain(SALT[SKETCH], groups)):
            return False
        for at, raw_key in enumerate(raw_keys):
            self._pending[raw_key] = encode_run([value for _, value in pairs[at * ENTRIES : (at + 1) * ENTRIES]])
        filter_.add(SALT[SKETCH], groups)
        return True

    def _write_blocks(self, changes: dict[int, list[tuple[int, int | None]]]) -> None:
        """Each sketch block's entries changed (``None``: deleted) and buffered as one record (or its deletion)."""
        current = self._blocks(list(changes))
        prefix, pack = PREFIX[SKETCH], KEY.pack
        for block, items in changes.items():
            entries = current[block]
            for index, value in items:
                if value is None:
                    entries.pop(index, None)
                else:
                    entries[index] = value
            raw_key = prefix + pack(block)
            if entries:
                self._pending[raw_key] = encode_block(entries)
                self._deleted.discard(raw_key)
            else:
                self._pending.pop(raw_key, None)
                self._deleted.add(raw_key)

    def _read_many(self, prefix: bytes, salt: int, keys: Sequence[int]) -> dict[int, int]:
        """The stored values of ``keys`` the filter lets through (others may come along), by key.

        The filter is asked once per group, and a run of 2**BLOCK_SHIFT keys
        with many keys wanted is read with one scan: about what two lookups
        cost (the sketch table reads its blocks in :meth:`_blocks`).
        """
        shift, db = GROUP_SHIFT, self._store._db
        groups = Counter([key >> shift for key in keys])
        maybe = self._store._filter.may_contain(salt, [group << shift for group in groups])
        wanted: dict[int, int] = {}  # per block: keys wanted in it
        present: set[int] = set()
        sparse: set[int] = set()
        for (group, count), there in zip(groups.items(), maybe):
            if there:
                present.add(group)
                block = group >> (BLOCK_SHIFT - shift)
                wanted[block] = wanted.get(block, 0) + count
        found: dict[int, int] = {}
        pack = KEY.pack
        for block, count in wanted.items():
            if count < SCAN_KEYS:
                sparse.add(block)
                continue
            start = block << BLOCK_SHIFT
            end = start + (1 << BLOCK_SHIFT)
            stop = prefix + pack(end) if end <= MAX_KEY else bytes([prefix[0] + 1])
            scanned = list(db.iterator(start=prefix + pack(start), stop=stop))
            if scanned:
                raw_keys, raws = zip(*scanned)
                # Decoded in two C calls: a key is the prefix byte then 8 bytes, a value 8 bytes.
                found.update(
                    zip(
                        struct.unpack(">" + "xQ" * len(raw_keys), b"".join(raw_keys)),
                        struct.unpack(f">{len(raws)}q", b"".join(raws)),
                    )
                )
        if sparse:
            get, unpack = db.get, VALUE.unpack
            for key in keys:
                if key >> shift in present and key >> BLOCK_SHIFT in sparse:
                    raw = get(prefix + pack(key))
                    if raw is not None:
                        found[key] = unpack(raw)[0]
        return found

    def kept_cache(self, names: Sequence[str]) -> tuple[Any, ...] | None:
        """The store's cache of earlier transactions' reads and writes, for the C decision (``None``: none kept).

        See :meth:`~nshash.stores.leveldb.HashDBLeveldb.kept_cache`.  None once this transaction wrote
        around it: the cache may hold an older value of a key written then.
        """
        return None if self.uncached else self._store.kept_cache(names)

    def kept_filter(self, names: Sequence[str]) -> tuple[bytearray, int, tuple[int, ...], int, int]:
        """The store's filter of the keys it holds, as the C decision probes it: a key it rules out is absent.

        Its bits as they are now (a full filter is replaced, between calls, by a larger one), its size, each
        of ``names``' salt, and how keys are grouped and mixed (:mod:`~nshash.stores.leveldb_filter`).
        """
        keys = self._store._filter
        return keys.bits, keys.log2_bits, tuple(SALT[name] for name in names), GROUP_SHIFT, MIX

    def put_cached(self, table: str, items: list[tuple[int, int]]) -> None:
        """:meth:`put_many` of writes the kept cache holds already (the C decision made them, in range, there)."""
        self._put(table, items)

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        self.uncached = True
        check_table(table)
        self._put(table, check_items(items))

    def _put(self, table: str, pairs: list[tuple[int, int]]) -> None:
        if not pairs:
            return
        if table == SKETCH:
            if self._new_members(pairs):
                return
            changes: dict[int, list[tuple[int, int | None]]] = {}
            for key, item in pairs:
                changes.setdefault(key >> GROUP_SHIFT, []).append((key & IN_BLOCK, item))
            self._write_blocks(changes)  # read before the filter learns the blocks: new ones are not looked up
            self._store._filter.add(SALT[table], [key for key, _ in pairs])
            return
        prefix, pack, value = PREFIX[table], KEY.pack, VALUE.pack
        # In the filter before the batch is written: a key stored is never filtered out.
        self._store._filter.add(SALT[table], [key for key, _ in pairs])
        written = {prefix + pack(key): value(item) for key, item in pairs}
        self._pending.update(written)
        self._changed.setdefault(table, {}).update(pairs)
        if self._deleted:
            self._deleted.difference_update(written)

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        self.uncached = True
        check_table(table)
        check_keys(keys)
        if table == SKETCH:
            changes: dict[int, list[tuple[int, int | None]]] = {}
            for key in keys:
                changes.setdefault(key >> GROUP_SHIFT, []).append((key & IN_BLOCK, None))
            self._write_blocks(changes)
            return
        changed = self._changed.setdefault(table, {})
        for key in keys:
            raw_key = PREFIX[table] + KEY.pack(key)
            self._pending.pop(raw_key, None)
            self._deleted.add(raw_key)
            changed[key] = None

    def get_meta(self, key: str) -> str | None:
        raw_key = META + key.encode()
        raw = self._pending.get(raw_key)
        if raw is None:
            raw = self._store._db.get(raw_key)
        return None if raw is None else raw.decode()

    def set_meta(self, key: str, value: str) -> None:
        self._pending[META + key.encode()] = value.encode()

    def allocate_id(self) -> int:
        new_id = self._next_id
        self._next_id += 1
        self._pending[NEXT_ID] = str(self._next_id).encode()
        return new_id

    def count(self, table: str) -> int:
        """Keys in ``table`` as committed (pending writes are not counted)."""
        return self._store.count(table)

    def commit(self) -> None:
        if self._pending or self._deleted:
            store = self._store
            try:
                batch = store._db.write_batch(sync=store.sync)
                put = batch.put
                for raw_key, raw in self._pending.items():
                    put(raw_key, raw)
                for raw_key in self._deleted:
                    batch.delete(raw_key)
                batch.write()
            except store._plyvel.Error as exc:
                raise store._write_failed(exc) from exc
            if store._filter.groups > store._filter.capacity:
                # Full: rebuilt larger from the keys.  Should that fail, the full one is still right.
                with contextlib.suppress(store._plyvel.Error):
                    store._filter = store._build_filter()
        self._store._next_id = self._next_id

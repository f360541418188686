"""HashDBLeveldb: a LevelDB directory ``<name>.hashdb`` (plyvel).

A store created by this version carries a format marker; an existing
directory without one is opened only if it looks like an older nshash store
(its keys all in nshash's key ranges, and the index options recorded), so a
LevelDB of another program is refused, never written to.  LevelDB runs with
``paranoid_checks``: a damaged log or table makes the open fail (a
:class:`~nshash.StoreCorruptError`) instead of silently dropping what it
cannot read.  Every plyvel error becomes an :class:`~nshash.NSHashError`.

Reads skip the keys a Bloom filter of the stored keys says are absent
(:mod:`nshash.stores.leveldb_filter`).  A clean close saves the filter to
``nshash-keys.filter`` in the directory and records its token in LevelDB
(with format ``nshash.leveldb/2``, which older nshash refuses rather than
write keys the filter would not know); an open trusts the file only if its
token matches, then erases the record before any write.  After a kill, or
with a missing, damaged or other file, the filter is rebuilt from the keys.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from nshash.errors import (
    NSHashError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreWriteError,
    missing_dependency,
)
from nshash.migrate import refuse_07_leveldb
from nshash.stores.base import HashDB
from nshash.stores.files import check_file_name, os_error
from nshash.stores.leveldb_filter import GROUP_SHIFT, KeyFilter, table_salt
from nshash.stores.view import MAX_KEY, StoreView, ViewBase, check_items, check_keys, check_table

T = TypeVar("T")

# One byte per table in front of an 8-byte big-endian key keeps each table a
# contiguous key range (cheap to count) and never mixes with metadata.
_PREFIX = {
    "fp": b"f",
    "parent": b"p",
    "stat": b"s",
    "bkt": b"b",
    "slot": b"o",
    "sig": b"g",
    "sketch": b"k",
    "key": b"u",
    "undo": b"n",
    "ref": b"r",
    "line": b"l",
}
# Mixed into a table's filter entries (the order of TABLES, fixed: saved filters depend on it).
_TABLES_IN_ORDER = tuple(_PREFIX)
_SALT = {table: table_salt(index) for index, table in enumerate(_TABLES_IN_ORDER)}
_META = b"m"
_NEXT_ID = _META + b"next_id"
# Outside the meta key range (b"m" + any str), so no meta key can collide with it.
_FORMAT_KEY = b"Mformat"
_FORMAT = b"nshash.leveldb/1"
# A cleanly closed store whose saved filter is to be trusted (its token under _FILTER_KEY).
_FORMAT_FILTERED = b"nshash.leveldb/2"
_FILTER_KEY = b"Mfilter"
_FILTER_FILE = "nshash-keys.filter"
# What an older nshash store holds: its tables, its meta, and the options every index records.
_OURS = frozenset(_PREFIX.values()) | {_META}
_LEGACY_OPTIONS = _META + b"options"
_KEY = struct.Struct(">Q")
# Reads of at least _SCAN_KEYS keys in one block of 2**_BLOCK_SHIFT keys are one scan (the
# sketch table keeps a cluster's members in one block: nshash.sketch's key layout).
_BLOCK_SHIFT = 8
_SCAN_KEYS = 8
_WRITE_BUFFER = 64 << 20
_VALUE = struct.Struct(">q")


class _Transaction(ViewBase):
    """The store's view in a transaction: reads through to LevelDB, buffers writes, commits them as one batch."""

    reads_through = True  # NSHash's C decision reads through this view (nshash.native.ReadThrough)

    def __init__(self, store: HashDBLeveldb) -> None:
        self._store = store
        self._pending: dict[bytes, bytes] = {}
        self._deleted: set[bytes] = set()
        self._next_id = store._next_id

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        check_table(table)
        check_keys(keys)
        prefix, salt = _PREFIX[table], _SALT[table]
        # A cluster's members come as runs of keys in one block; fingerprints are scattered.
        if len(keys) >= _SCAN_KEYS and keys[0] >> _BLOCK_SHIFT == keys[_SCAN_KEYS - 1] >> _BLOCK_SHIFT:
            found = self._read_many(prefix, salt, keys)
            values = [found.get(key) for key in keys]
        else:
            # Keys the filter rules out are not looked up; written ones (even pending) are in it.
            maybe = self._store._filter.may_contain(salt, keys)
            get, pack, unpack = self._store._db.get, _KEY.pack, _VALUE.unpack
            values = [
                None if (raw := get(prefix + pack(key)) if there else None) is None else unpack(raw)[0]
                for key, there in zip(keys, maybe)
            ]
        if self._pending or self._deleted:
            values = self._overlaid(prefix, keys, values)
        return values

    def _overlaid(self, prefix: bytes, keys: Sequence[int], values: list[int | None]) -> list[int | None]:
        """``values`` (as stored) with this transaction's writes and deletions over them."""
        pending, deleted, pack, unpack = self._pending, self._deleted, _KEY.pack, _VALUE.unpack
        result: list[int | None] = []
        for key, value in zip(keys, values):
            raw_key = prefix + pack(key)
            raw = pending.get(raw_key)
            if raw is not None:
                result.append(unpack(raw)[0])
            else:
                result.append(None if raw_key in deleted else value)
        return result

    def _read_many(self, prefix: bytes, salt: int, keys: Sequence[int]) -> dict[int, int]:
        """The stored values of ``keys`` the filter lets through (others may come along), by key.

        The filter is asked once per group (a cluster member's entries are one),
        and a block of 2**_BLOCK_SHIFT keys with many keys wanted (a cluster's
        members) is read with one scan: about what two lookups cost.
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
                block = group >> (_BLOCK_SHIFT - shift)
                wanted[block] = wanted.get(block, 0) + count
        found: dict[int, int] = {}
        pack = _KEY.pack
        for block, count in wanted.items():
            if count < _SCAN_KEYS:
                sparse.add(block)
                continue
            start = block << _BLOCK_SHIFT
            end = start + (1 << _BLOCK_SHIFT)
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
            get, unpack = db.get, _VALUE.unpack
            for key in keys:
                if key >> shift in present and key >> _BLOCK_SHIFT in sparse:
                    raw = get(prefix + pack(key))
                    if raw is not None:
                        found[key] = unpack(raw)[0]
        return found

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        check_table(table)
        pairs = check_items(items)
        if not pairs:
            return
        prefix, pack, value = _PREFIX[table], _KEY.pack, _VALUE.pack
        # In the filter before the batch is written: a key stored is never filtered out.
        self._store._filter.add(_SALT[table], [key for key, _ in pairs])
        written = {prefix + pack(key): value(item) for key, item in pairs}
        self._pending.update(written)
        if self._deleted:
            self._deleted.difference_update(written)

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        check_table(table)
        check_keys(keys)
        for key in keys:
            raw_key = _PREFIX[table] + _KEY.pack(key)
            self._pending.pop(raw_key, None)
            self._deleted.add(raw_key)

    def get_meta(self, key: str) -> str | None:
        raw_key = _META + key.encode()
        raw = self._pending.get(raw_key)
        if raw is None:
            raw = self._store._db.get(raw_key)
        return None if raw is None else raw.decode()

    def set_meta(self, key: str, value: str) -> None:
        self._pending[_META + key.encode()] = value.encode()

    def allocate_id(self) -> int:
        new_id = self._next_id
        self._next_id += 1
        self._pending[_NEXT_ID] = str(self._next_id).encode()
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


class HashDBLeveldb(HashDB):
    """A store in a LevelDB directory; every acknowledged write survives a crash of the process.

    Each document's writes (fingerprints, merges, the id counter) go to LevelDB
    as one atomic write batch, so a crash never leaves half a document.

    Args:
        path: the directory (created when missing).
        sync: fsync every batch (survives power loss, much slower); without it a
            killed *process* still loses nothing, since LevelDB's log is written
            before a call returns.

    Raises:
        StoreLockedError: another process has the directory open.
        StoreCorruptError: the directory is not a readable LevelDB.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "news.hashdb")
        >>> with HashDBLeveldb(path) as db:
        ...     db.put_many("fp", [(42, 1)])
        >>> with HashDBLeveldb(path) as db:
        ...     db.get_many("fp", [42, 43])
        [1, None]
    """

    reads_through = True

    def __init__(self, path: str | os.PathLike[str], sync: bool = False) -> None:
        super().__init__()
        try:
            import plyvel
        except ImportError as exc:  # pragma: no cover - plyvel is a core dependency
            raise missing_dependency("plyvel", "leveldb") from exc
        self._plyvel: Any = plyvel
        self.path = Path(path)
        self.sync = sync
        check_file_name(self.path, "HashDBLeveldb")
        try:
            if self.path.exists() and not self.path.is_dir():
                raise StoreCorruptError(f"{str(self.path)!r} is a file, not a LevelDB directory")
            # Create only where nothing is: a LevelDB that lost its CURRENT file
            # would otherwise be replaced by an empty one, its tables deleted.
            create = not self.path.exists() or not any(self.path.iterdir())
            if create:  # here, not in LevelDB, so that "permission denied" is what gets reported
                self.path.mkdir(exist_ok=True)
        except OSError as exc:
            raise os_error(exc, self.describe(), "opening") from exc
        self._db: Any = self._open(create)
        try:
            self._run(lambda: self._check_format(create))
            raw = self._run(lambda: self._db.get(_NEXT_ID))
            self._next_id = int(raw) if raw is not None else 1
            self._filter: KeyFilter = self._run(self._load_filter)
        except BaseException:
            self._db.close()
            raise

    def _open(self, create: bool) -> Any:
        plyvel = self._plyvel
        try:
            # A bloom filter: lookups of unseen fingerprints (most) skip disk reads.  A 64 MiB write buffer
            # (default 4) keeps the newest pages in memory and makes fewer level-0 files to search: 1.1-1.3x the
            # pages/s at 30,000 pages (one-off runs on a shared machine; 16 and 128 MiB, or 1 KiB blocks, within
            # the noise of 64).  An open replays up to that much log: 1.4 s for a store of 20,000 pages.
            return plyvel.DB(
                str(self.path),
                create_if_missing=create,
                bloom_filter_bits=10,
                lru_cache_size=64 << 20,
                write_buffer_size=_WRITE_BUFFER,
                paranoid_checks=True,
            )
        except plyvel.IOError as exc:
            message = str(exc)
            # Only a failure to take the lock; "IO error: <dir>/LOCK: Not a directory" is not one.
            if "IO error: lock " in message:
                raise StoreLockedError(
                    f"LevelDB store {str(self.path)!r} is open in another process (or another store object)"
                ) from exc
            if "No space left" in message:
                raise StoreWriteError(
                    f"{self.describe()}: no space left while opening ({message}); free disk space, then retry"
                ) from exc
            raise StoreError(f"cannot open LevelDB store {str(self.path)!r}: {message}") from exc
        except plyvel.Error as exc:
            raise StoreCorruptError(
                f"{str(self.path)!r} is not a readable LevelDB ({exc}); it was left untouched: restore it "
                "from a backup, or try plyvel.repair_db on a copy (repair drops what it cannot read)"
            ) from exc

    def _check_format(self, create: bool) -> None:
        """Mark a new store as ours; refuse a directory some other program wrote."""
        db = self._db
        found = db.get(_FORMAT_KEY)
        if found in (_FORMAT, _FORMAT_FILTERED):
            return
        if found is not None:
            raise StoreCorruptError(
                f"{self.describe()} has format {found!r}, not {_FORMAT!r} or {_FORMAT_FILTERED!r}; "
                "it was left untouched (a newer nshash may have written it)"
            )
        first = next(db.iterator(include_value=False), None)
        # An older nshash store: every key in nshash's ranges, and the options an index records.
        legacy = db.get(_LEGACY_OPTIONS) is not None and all(
            key[:1] in _OURS for key in db.iterator(include_value=False)
        )
        if first is not None and not legacy:
            refuse_07_leveldb(db.iterator(), self.describe())
            raise StoreCorruptError(
                f"{self.describe()} is a LevelDB not written by nshash; it was left untouched: pass another name"
            )
        try:
            db.put(_FORMAT_KEY, _FORMAT, sync=True)
        except self._plyvel.Error as exc:
            raise self._write_failed(exc) from exc

    def _load_filter(self) -> KeyFilter:
        """The filter a clean close saved, if it is that very file; else one rebuilt from the keys.

        The record of the saved filter is erased before anything is written,
        so a store killed from here on is never opened with a stale filter.
        """
        db = self._db
        token = db.get(_FILTER_KEY)
        loaded = KeyFilter.load(self.path / _FILTER_FILE, token) if token is not None else None
        if token is not None or db.get(_FORMAT_KEY) == _FORMAT_FILTERED:
            try:
                with db.write_batch(sync=True) as batch:
                    batch.delete(_FILTER_KEY)
                    batch.put(_FORMAT_KEY, _FORMAT)
            except self._plyvel.Error as exc:
                raise self._write_failed(exc) from exc
        return loaded if loaded is not None else self._build_filter()

    def _build_filter(self) -> KeyFilter:
        """A filter of every key in the store, sized for twice as many."""
        groups: dict[int, list[int]] = {}
        pack, step = _KEY.pack, 1 << GROUP_SHIFT
        for table, prefix in _PREFIX.items():
            found: list[int] = []
            last = -1
            keys = self._db.iterator(prefix=prefix, include_value=False)
            for raw_key in keys:
                group = int.from_bytes(raw_key[1:], "big") >> GROUP_SHIFT
                if group != last:
                    found.append(group << GROUP_SHIFT)
                    last = group
                elif (group + 1) * step <= MAX_KEY:  # a run of one group (a member's entries): skip it
                    keys.seek(prefix + pack((group + 1) * step))
            groups[_SALT[table]] = found
        built = KeyFilter(KeyFilter.log2_bits_for(sum(map(len, groups.values()))))
        for salt, keys_of_table in groups.items():
            built.add(salt, keys_of_table)
        return built

    def _save_filter(self) -> None:
        """Save the filter and record its token, so the next open need not rebuild it.

        Best effort: without the record, the next open rebuilds the filter.
        """
        token = secrets.token_bytes(16)
        try:
            self._filter.save(self.path / _FILTER_FILE, token)
            with self._db.write_batch(sync=True) as batch:
                batch.put(_FILTER_KEY, token)
                batch.put(_FORMAT_KEY, _FORMAT_FILTERED)
        except (OSError, self._plyvel.Error):
            pass

    def _write_failed(self, exc: Exception) -> NSHashError:
        """The error for a failed write; LevelDB refuses every later write, so the next call reopens it."""
        self._broken = True
        message = str(exc)
        if "No space left" in message:
            return StoreWriteError(
                f"{self.describe()}: no space left on the device ({message}); the document was not stored: "
                "free disk space and retry it (the store reopens itself on the next call)"
            )
        return StoreError(
            f"{self.describe()}: LevelDB failed to write ({message}); the document was not stored: retry it "
            "(the store reopens itself on the next call)"
        )

    _broken = False

    def _recover(self) -> None:
        """Reopen LevelDB after a failed write, so that freeing disk space is enough to go on."""
        with contextlib.suppress(self._plyvel.Error):
            self._db.close()
        self._db = self._open(create=False)
        self._broken = False
        raw = self._db.get(_NEXT_ID)
        self._next_id = int(raw) if raw is not None else 1

    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        return self._run(lambda: _Transaction(self).get_many(table, keys))

    def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        self.transaction(lambda view: view.put_many(table, items))

    def _delete_many(self, table: str, keys: Sequence[int]) -> None:
        self.transaction(lambda view: view.delete_many(table, keys))

    def _get_meta(self, key: str) -> str | None:
        return self._run(lambda: _Transaction(self).get_meta(key))

    def _set_meta(self, key: str, value: str) -> None:
        self.transaction(lambda view: view.set_meta(key, value))

    def _allocate_id(self) -> int:
        return int(self.transaction(lambda view: view.allocate_id()))

    def highest_id(self) -> int:
        self._check_open()
        return self._next_id - 1

    def _count(self, table: str) -> int:
        return self._run(lambda: sum(1 for _ in self._db.iterator(prefix=_PREFIX[table], include_value=False)))

    def transaction(self, func: Callable[[StoreView], T]) -> T:
        self._check_open()
        with self._lock:

            def body() -> T:
                view = _Transaction(self)
                result = func(view)
                view.commit()
                return result

            return self._run(body)

    def _run(self, operation: Callable[[], T]) -> T:
        """``operation()``, with plyvel's errors translated (and LevelDB reopened after a failed write)."""
        with self._lock:
            try:
                if self._broken:
                    self._recover()
                return operation()
            except self._plyvel.CorruptionError as exc:
                raise StoreCorruptError(
                    f"{self.describe()} is damaged ({exc}); restore it from a backup, or try "
                    "plyvel.repair_db on a copy (repair drops what it cannot read)"
                ) from exc
            except self._plyvel.Error as exc:
                raise StoreError(f"{self.describe()}: LevelDB failed: {exc}") from exc

    def _release(self) -> None:
        try:
            if not self._broken:
                self._save_filter()
        finally:
            self._db.close()

    def describe(self) -> str:
        return f"HashDBLeveldb({self.path!s})"

    def size_bytes(self) -> int | None:
        try:
            return sum(entry.stat().st_size for entry in self.path.iterdir() if entry.is_file())
        except OSError:
            return None

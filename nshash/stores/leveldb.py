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
(with format ``nshash.leveldb/4``, which older nshash refuses rather than
write keys the filter would not know); an open trusts the file only if its
token matches, then erases the record before any write.  After a kill, or
with a missing, damaged or other file, the filter is rebuilt from the keys.

The ``sketch`` table is kept a block a record: its keys come in blocks of 64
(a cluster member's 33 entries are one), and a block is one LevelDB value, a
bitmap of the entries present then their values, so a member is one write and
one read, not 33 (formats ``nshash.leveldb/3`` and ``/4``).  A store of the
formats before (``/1``, ``/2``: an entry a record) is converted on open, a
batch of whole blocks at a time, so a conversion killed halfway goes on at the
next open; older nshash then refuses the store instead of missing its members.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from nshash.errors import (
    ArgumentError,
    MissingDependencyError,
    NSHashError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreWriteError,
    missing_dependency,
)
from nshash.migrate import refuse_07_leveldb
from nshash.stores.base import HashDB
from nshash.stores.blocks import IN_BLOCK, bitmap_of, encode_block
from nshash.stores.files import check_file_name, os_error
from nshash.stores.leveldb_filter import GROUP_SHIFT, KeyFilter
from nshash.stores.leveldb_layout import (
    CONVERT_BATCH,
    ENTRY_FORMATS,
    ENTRY_SKETCH,
    FILTER_FILE,
    FILTER_KEY,
    FORMAT,
    FORMAT_FILTERED,
    FORMAT_KEY,
    KEY,
    LEGACY_OPTIONS,
    NEXT_ID,
    OURS,
    PREFIX,
    SALT,
    SKETCH,
    VALUE,
    WRITE_BUFFER,
)
from nshash.stores.leveldb_view import LeveldbTransaction
from nshash.stores.memory_table import IntTable, new_table
from nshash.stores.view import MAX_KEY, StoreView

T = TypeVar("T")
#: Entries kept at most in the cache of what was read and written (see HashDBLeveldb.kept_cache): about
#: 35,000 new pages of 59 entries (a member's 33 included), ~40 MB (benchmarks/results/leveldb_scale.md).
CACHE_ENTRIES = 1 << 21


def _no_plyvel() -> MissingDependencyError:
    """Why a LevelDB store cannot open without plyvel, and what to do instead."""
    if sys.platform == "win32":
        return MissingDependencyError(
            "the LevelDB store needs plyvel, which does not build on Windows (nshash leaves it out there): "
            "use name=None (an index in memory only) or a Redis store (pip install 'nshash[redis]')"
        )
    return missing_dependency("plyvel", "leveldb")


class HashDBLeveldb(HashDB):
    """A store in a LevelDB directory; every acknowledged write survives a crash of the process.

    Each document's writes (fingerprints, merges, the id counter) go to LevelDB
    as one atomic write batch, so a crash never leaves half a document.

    Args:
        path: the directory (created when missing).
        sync: fsync every batch (survives power loss, much slower); without it a
            killed *process* still loses nothing, since LevelDB's log is written
            before a call returns.
        cache_entries: how many entries read or written to keep in memory for
            the C decision (:meth:`kept_cache`); ``0``: none.

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

    def __init__(self, path: str | os.PathLike[str], sync: bool = False, cache_entries: int = CACHE_ENTRIES) -> None:
        super().__init__()
        if isinstance(cache_entries, bool) or not isinstance(cache_entries, int) or cache_entries < 0:
            raise ArgumentError(f"cache_entries must be an int >= 0 (0: no cache), not {cache_entries!r}")
        #: At most this many entries are kept in the cache of what was read and written (see :meth:`kept_cache`).
        self.cache_entries = cache_entries
        self._cache: tuple[IntTable, ...] | None = None
        try:
            import plyvel
        except ImportError as exc:  # plyvel is a core dependency, but not on Windows (pyproject.toml)
            raise _no_plyvel() from exc
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
            raw = self._run(lambda: self._db.get(NEXT_ID))
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
                write_buffer_size=WRITE_BUFFER,
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
        found = db.get(FORMAT_KEY)
        if found in (FORMAT, FORMAT_FILTERED):
            return
        if found in ENTRY_FORMATS:
            self._convert_sketch(found == ENTRY_FORMATS[1])
            return
        if found is not None:
            raise StoreCorruptError(
                f"{self.describe()} has format {found!r}, not {FORMAT!r} or {FORMAT_FILTERED!r}; "
                "it was left untouched (a newer nshash may have written it)"
            )
        first = next(db.iterator(include_value=False), None)
        # An older nshash store: every key in nshash's ranges, and the options an index records.
        legacy = db.get(LEGACY_OPTIONS) is not None and all(key[:1] in OURS for key in db.iterator(include_value=False))
        if first is not None and not legacy:
            refuse_07_leveldb(db.iterator(), self.describe())
            raise StoreCorruptError(
                f"{self.describe()} is a LevelDB not written by nshash; it was left untouched: pass another name"
            )
        if first is not None:  # an older nshash's store: an entry a record in the sketch table
            self._convert_sketch(False)
            return
        try:
            db.put(FORMAT_KEY, FORMAT, sync=True)
        except self._plyvel.Error as exc:
            raise self._write_failed(exc) from exc

    def _convert_sketch(self, filtered: bool) -> None:
        """Rewrite a store of the formats before as blocks (see the module), then mark it with the format now.

        Each write batch moves whole blocks (their record written, their
        entries deleted), so a conversion killed halfway leaves every block in
        one form or the other, and the next open goes on from there.
        """
        db, value, where = self._db, VALUE.unpack, self.describe()
        try:
            batch = db.write_batch(sync=True)
            block, moved = -1, 0
            entries: dict[int, int] = {}
            raw_keys: list[bytes] = []
            for raw_key, raw in db.iterator(prefix=ENTRY_SKETCH):
                key = int.from_bytes(raw_key[1:], "big")
                if key >> GROUP_SHIFT != block:
                    if entries:
                        self._move_block(batch, block, entries, raw_keys)
                        moved += 1
                        if moved % CONVERT_BATCH == 0:
                            batch.write()
                            batch = db.write_batch(sync=True)
                    block, entries, raw_keys = key >> GROUP_SHIFT, {}, []
                if len(raw) != VALUE.size:
                    raise StoreCorruptError(f"{where}: a sketch entry of {len(raw)} bytes")
                entries[key & IN_BLOCK] = value(raw)[0]
                raw_keys.append(raw_key)
            if entries:
                self._move_block(batch, block, entries, raw_keys)
            # The filter's groups are the blocks either way: a filter saved before stays right.
            batch.put(FORMAT_KEY, FORMAT_FILTERED if filtered else FORMAT)
            batch.write()
        except self._plyvel.Error as exc:
            raise self._write_failed(exc) from exc

    @staticmethod
    def _move_block(batch: Any, block: int, entries: dict[int, int], raw_keys: list[bytes]) -> None:
        """Into ``batch``: ``block``'s record, and the deletion of the entries it was made of."""
        batch.put(PREFIX[SKETCH] + KEY.pack(block), encode_block(entries))
        for raw_key in raw_keys:
            batch.delete(raw_key)

    def _load_filter(self) -> KeyFilter:
        """The filter a clean close saved, if it is that very file; else one rebuilt from the keys.

        The record of the saved filter is erased before anything is written,
        so a store killed from here on is never opened with a stale filter.
        """
        db = self._db
        token = db.get(FILTER_KEY)
        loaded = KeyFilter.load(self.path / FILTER_FILE, token) if token is not None else None
        if token is not None or db.get(FORMAT_KEY) == FORMAT_FILTERED:
            try:
                with db.write_batch(sync=True) as batch:
                    batch.delete(FILTER_KEY)
                    batch.put(FORMAT_KEY, FORMAT)
            except self._plyvel.Error as exc:
                raise self._write_failed(exc) from exc
        return loaded if loaded is not None else self._build_filter()

    def _build_filter(self) -> KeyFilter:
        """A filter of every key in the store, sized for twice as many."""
        groups: dict[int, list[int]] = {}
        pack, step = KEY.pack, 1 << GROUP_SHIFT
        for table, prefix in PREFIX.items():
            found: list[int] = []
            last = -1
            keys = self._db.iterator(prefix=prefix, include_value=False)
            if table == SKETCH:  # a record is a block: its key is the group
                groups[SALT[table]] = [int.from_bytes(raw_key[1:], "big") << GROUP_SHIFT for raw_key in keys]
                continue
            for raw_key in keys:
                group = int.from_bytes(raw_key[1:], "big") >> GROUP_SHIFT
                if group != last:
                    found.append(group << GROUP_SHIFT)
                    last = group
                elif (group + 1) * step <= MAX_KEY:  # a run of one group (a signature's words): skip it
                    keys.seek(prefix + pack((group + 1) * step))
            groups[SALT[table]] = found
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
            self._filter.save(self.path / FILTER_FILE, token)
            with self._db.write_batch(sync=True) as batch:
                batch.put(FILTER_KEY, token)
                batch.put(FORMAT_KEY, FORMAT_FILTERED)
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
        self._cache = None
        self._db = self._open(create=False)
        self._broken = False
        raw = self._db.get(NEXT_ID)
        self._next_id = int(raw) if raw is not None else 1

    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        return self._run(lambda: LeveldbTransaction(self).get_many(table, keys))

    def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        self.transaction(lambda view: view.put_many(table, items))

    def _delete_many(self, table: str, keys: Sequence[int]) -> None:
        self.transaction(lambda view: view.delete_many(table, keys))

    def _get_meta(self, key: str) -> str | None:
        return self._run(lambda: LeveldbTransaction(self).get_meta(key))

    def _set_meta(self, key: str, value: str) -> None:
        self.transaction(lambda view: view.set_meta(key, value))

    def _allocate_id(self) -> int:
        return int(self.transaction(lambda view: view.allocate_id()))

    def highest_id(self) -> int:
        self._check_open()
        return self._next_id - 1

    def _count(self, table: str) -> int:
        if table == SKETCH:  # the entries of every block: its bitmap's bits
            where = self.describe()
            return self._run(
                lambda: sum(
                    bitmap_of(raw, where).bit_count()
                    for raw in self._db.iterator(prefix=PREFIX[table], include_key=False)
                )
            )
        return self._run(lambda: sum(1 for _ in self._db.iterator(prefix=PREFIX[table], include_value=False)))

    def transaction(self, func: Callable[[StoreView], T]) -> T:
        self._check_open()
        with self._lock:

            def body() -> T:
                view = LeveldbTransaction(self)
                try:
                    result = func(view)
                    view.commit()
                except BaseException:
                    self._cache = None  # it may hold writes that were never committed
                    raise
                if self._cache is not None and (
                    view.uncached or sum(len(table) for table in self._cache) > self.cache_entries
                ):
                    self._cache = None
                return result

            return self._run(body)

    def kept_cache(self, names: Sequence[str]) -> tuple[IntTable, ...] | None:
        """C tables of what earlier transactions read and wrote, for the C decision; ``None`` if none is kept.

        Only this process writes this LevelDB (it holds the directory's lock),
        so what it read or wrote stays true as long as every write goes through
        the cache: a transaction that wrote otherwise (``put_many`` from Python),
        failed or grew the cache past :attr:`cache_entries` drops it, and the next
        one starts an empty one.  A page's keys a crawl has seen (its site's lines,
        a candidate's members, the keys the filter cannot rule out) are then
        read from memory instead of LevelDB, with the Python around each read.
        """
        if not self.cache_entries:
            return None
        if self._cache is None:
            self._cache = tuple(new_table(name) for name in names)
        return self._cache

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
        self._cache = None
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
